package bots

import "sync"

// maxBacklog is how many lines a client may fall behind before it is
// dropped as one that does not read. A player is sent a few lines a ply
// and answers every turn; a spectator of many games at once is sent most:
// 256 lines is minutes of the busiest game's events. The queue holds only
// the lines not yet written, so an idle connection holds none (a channel of
// 256 held 4 KiB each, every one scanned by the collector).
const maxBacklog = 256

// outbox is a connection's queue of lines to write: taken by its writer
// goroutine, filled by everyone else, never longer than maxBacklog.
type outbox struct {
	mu    sync.Mutex
	lines []string
	wake  chan struct{} // a value when lines may be waiting
}

func newOutbox() outbox { return outbox{wake: make(chan struct{}, 1)} }

// put queues a line; false if the client is maxBacklog lines behind.
func (o *outbox) put(line string) bool {
	o.mu.Lock()
	if len(o.lines) >= maxBacklog {
		o.mu.Unlock()
		return false
	}
	o.lines = append(o.lines, line)
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return true
}

// take moves the lines queued into batch (emptied first) and returns it.
func (o *outbox) take(batch []string) []string {
	o.mu.Lock()
	batch = append(batch[:0], o.lines...)
	clear(o.lines)
	if cap(o.lines) > 16 {
		o.lines = nil // a backlog caught up: its array goes
	} else {
		o.lines = o.lines[:0]
	}
	o.mu.Unlock()
	return batch
}

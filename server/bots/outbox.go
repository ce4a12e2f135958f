package bots

import "sync"

// maxBacklog is how many lines a client may fall behind before it is
// dropped as one that does not read. A player is sent a few lines a ply
// and answers every turn; a spectator of many games at once is sent most:
// 256 lines is minutes of the busiest game's events. The queue holds only
// the lines not yet written, so an idle connection holds none.
const maxBacklog = 256

// outbox is a connection's queue of lines to write, never longer than
// maxBacklog, and who writes them: at most one goroutine at a time holds
// the pen (writing), and takes the lines that come while it writes too.
type outbox struct {
	mu      sync.Mutex
	lines   []string
	writing bool // a goroutine holds the pen
	closing bool // the connection is closing: the pen's holder closes it
}

// put queues a line; false if the client is maxBacklog lines behind.
func (o *outbox) put(line string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.lines) >= maxBacklog {
		return false
	}
	o.lines = append(o.lines, line)
	return true
}

// takeLocked moves the lines queued into batch (emptied first) and
// returns it.
func (o *outbox) takeLocked(batch []string) []string {
	batch = append(batch[:0], o.lines...)
	clear(o.lines)
	if cap(o.lines) > 16 {
		o.lines = nil // a backlog caught up: its array goes
	} else {
		o.lines = o.lines[:0]
	}
	return batch
}

// take moves the lines queued into batch (emptied first) and returns it.
func (o *outbox) take(batch []string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.takeLocked(batch)
}

// pen takes the pen and the lines queued, if there are lines and nobody
// holds it.
func (o *outbox) pen() ([]string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.writing || len(o.lines) == 0 || o.closing {
		return nil, false
	}
	o.writing = true
	return o.takeLocked(nil), true
}

// next is the pen's holder asking for more: the lines queued meanwhile,
// or, with none, it puts the pen down (false), unless the connection is
// closing, which the holder then does (closing true).
func (o *outbox) next(batch []string) (more []string, closing bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.lines) > 0 {
		return o.takeLocked(batch), o.closing
	}
	if o.closing {
		return batch[:0], true
	}
	o.writing = false
	return batch[:0], false
}

package bots

import (
	"bytes"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"kalah/protocol/line"
)

// WireConfig is what a connection needs to know of the server's settings.
type WireConfig struct {
	// MaxLine limits a line's length, for the error a longer one gets.
	MaxLine int
	// HandshakeTimeout is how long a new connection has to log in or
	// watch; IdleTimeout closes one that sends nothing for this long (it
	// is pinged every IdleTimeout/4); WriteTimeout drops one that does not
	// take a line for this long.
	HandshakeTimeout, IdleTimeout, WriteTimeout time.Duration
	// Log is told of the clients dropped for not reading.
	Log *slog.Logger
	// Waits, if set, counts the writes that had to wait for a client's
	// socket (drain): a client that falls behind, or a transport that
	// cannot write without waiting.
	Waits *atomic.Uint64
}

// Handler is what a connection's reader hands the lines it reads to.
type Handler interface {
	// Handle answers one message; it reports whether to close the
	// connection.
	Handle(m line.Msg) bool
	// Active reports whether the connection has logged in or is
	// watching: until then it has HandshakeTimeout to do so.
	Active() bool
}

// Wire is one client connection speaking the line protocol, as a
// transport: the lines queued to send, written from the goroutine that
// sent them as far as the socket takes them at once, and the loop that
// reads. Only a client that falls behind has a goroutine to wait on its
// socket (drain): 8,000 bots' connections held 8,000 writer goroutines,
// each a stack for the collector to scan and a wake-up a line.
type Wire struct {
	cfg WireConfig
	t   line.Transport
	// Host is the client's IP address, for rate limits.
	Host string
	out  outbox // the lines to send, in order
	done chan struct{}
	once sync.Once
	ping *time.Timer
	// finished is called once the transport is closed.
	finished func()
	// onClose, if set, is called once when the connection starts closing.
	onClose func()
	// readAt is when ReadLoop read the line it is handling (read and
	// written by ReadLoop's goroutine only).
	readAt time.Time
}

// NewWire returns the connection over t of a client at host; Start and
// ReadLoop serve it.
func NewWire(t line.Transport, host string, cfg WireConfig) *Wire {
	return &Wire{cfg: cfg, t: t, Host: host, done: make(chan struct{})}
}

// Refuse tells a client the server cannot take it why, briefly, and
// closes its transport.
func Refuse(t line.Transport, code, text string) {
	t.WriteLine(line.Errorf(code, "%s", text).String(), 100*time.Millisecond)
	t.Close()
}

// Start begins the writing side: the client is pinged every
// IdleTimeout/4, and finished is called once the transport is closed
// (after Close, and the last lines written).
func (w *Wire) Start(finished func()) {
	w.finished = finished
	if every := w.cfg.IdleTimeout / 4; every > 0 {
		w.ping = time.AfterFunc(time.Hour, func() { w.pinged(every) })
		w.ping.Reset(every)
	}
}

func (w *Wire) pinged(every time.Duration) {
	select {
	case <-w.done:
		return
	default:
	}
	w.SendMsg(line.Msg{Cmd: "ping"})
	w.ping.Reset(every)
}

// SendMsg sends a line: queued, then written at once as far as the
// socket takes it. A client too slow to take its lines is dropped.
func (w *Wire) SendMsg(m line.Msg) {
	w.Queue(m)
	w.Flush()
}

// Queue queues a line to go out with the next Flush, so that lines made
// together go out in one write.
func (w *Wire) Queue(m line.Msg) {
	w.QueueLine(m.String())
}

// QueueLine is Queue of a message already formatted (Msg.String): a line
// that goes to several connections is formatted once.
func (w *Wire) QueueLine(s string) {
	select {
	case <-w.done:
		return
	default:
	}
	if !w.out.put(s) {
		w.cfg.Log.Warn("dropping a client that does not read", "addr", w.Host)
		w.Close()
	}
}

// Flush writes the lines queued, unless someone is writing already (who
// then writes them too): from the caller's goroutine, as far as the
// socket takes them without waiting; what it does not take is left to a
// goroutine that waits for it (drain).
func (w *Wire) Flush() {
	if batch, ok := w.out.pen(); ok {
		w.write(batch)
	}
}

// lineBufs holds the buffers a batch of lines is gathered in.
var lineBufs = sync.Pool{New: func() any { return new([]byte) }}

// write writes batch, holding the pen, without waiting on the socket.
func (w *Wire) write(batch []string) {
	tw, ok := w.t.(line.TryWriter)
	if !ok {
		go w.drain(nil, batch)
		return
	}
	bp := lineBufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 4<<10 {
			lineBufs.Put(bp)
		}
	}()
	for {
		*bp = line.AppendLines((*bp)[:0], batch)
		n, err := tw.TryWrite(*bp)
		if err != nil {
			w.Close()
			w.shut()
			return
		}
		if n < len(*bp) {
			go w.drain(bytes.Clone((*bp)[n:]), nil)
			return
		}
		if batch, ok = w.more(batch); !ok {
			return
		}
	}
}

// drain writes what the socket did not take at once, and the lines that
// come meanwhile, waiting at most WriteTimeout on each write (a client
// that takes nothing for that long is dropped), then puts the pen down.
func (w *Wire) drain(rest []byte, batch []string) {
	if w.cfg.Waits != nil {
		w.cfg.Waits.Add(1)
	}
	for {
		timeout := w.cfg.WriteTimeout
		select {
		case <-w.done:
			// Closing: what is left goes out quickly or not at all.
			timeout = closingTimeout
		default:
		}
		var err error
		if len(rest) > 0 {
			err = w.t.(line.TryWriter).WriteBytes(rest, timeout)
			rest = nil
		}
		if err == nil && len(batch) > 0 {
			err = line.WriteLines(w.t, batch, timeout)
		}
		if err != nil {
			w.Close()
			w.shut()
			return
		}
		var ok bool
		if batch, ok = w.more(batch); !ok {
			return
		}
	}
}

// more is the pen's holder, done with its lines, taking those queued
// meanwhile; with none it puts the pen down, or closes the connection if
// it is closing, and reports false.
func (w *Wire) more(batch []string) ([]string, bool) {
	batch, closing := w.out.next(batch)
	if len(batch) == 0 {
		if closing {
			w.shut()
		}
		return nil, false
	}
	return batch, true
}

// closingTimeout bounds the last writes to a connection that is closing.
const closingTimeout = 100 * time.Millisecond

// shut closes the transport, which also ends the reader; the pen's
// holder does, once.
func (w *Wire) shut() {
	w.t.Close()
	if w.finished != nil {
		w.finished()
	}
}

// Close ends the connection: what is queued (a last error) is written,
// briefly, and the transport closed, which also ends the reader.
func (w *Wire) Close() {
	w.once.Do(func() {
		close(w.done)
		if w.onClose != nil {
			w.onClose()
		}
		if w.ping != nil {
			w.ping.Stop()
		}
		o := &w.out
		o.mu.Lock()
		o.closing = true
		idle := !o.writing
		var batch []string
		if idle {
			o.writing = true
			batch = o.takeLocked(nil)
		}
		o.mu.Unlock()
		switch {
		case !idle:
			// The pen's holder closes it: a goroutine waiting on a
			// client that does not read waits no more than briefly.
			if tw, ok := w.t.(line.TryWriter); ok {
				tw.Hurry(closingTimeout)
			}
		case len(batch) == 0:
			w.shut()
		default:
			go w.drain(nil, batch)
		}
	})
}

// Done is closed when the connection is closing.
func (w *Wire) Done() <-chan struct{} { return w.done }

// ReadLoop greets the client and hands h every message it reads until h
// says to close, the client times out or the transport fails; the caller
// cleans up after it.
func (w *Wire) ReadLoop(h Handler) {
	w.SendMsg(line.Greeting())
	handshake := time.Now().Add(w.cfg.HandshakeTimeout)
	for {
		timeout := w.cfg.IdleTimeout
		if !h.Active() {
			timeout = time.Until(handshake)
			if timeout <= 0 {
				w.SendMsg(line.Errorf(line.CodeTimeout, "log in or watch within %v", w.cfg.HandshakeTimeout))
				return
			}
		}
		s, err := w.t.ReadLine(timeout)
		w.readAt = time.Now()
		if err != nil {
			switch {
			case errors.Is(err, line.ErrTooLong):
				w.SendMsg(line.Errorf(line.CodeTooLong, "lines are limited to %d bytes", w.cfg.MaxLine))
			case errors.Is(err, line.ErrTimeout):
				if !h.Active() {
					w.SendMsg(line.Errorf(line.CodeTimeout, "log in or watch within %v", w.cfg.HandshakeTimeout))
				} else {
					w.SendMsg(line.Errorf(line.CodeTimeout, "nothing heard for %v", w.cfg.IdleTimeout))
				}
			}
			return
		}
		m, err := line.Parse(s)
		if err != nil {
			if s == "" {
				continue
			}
			w.SendMsg(line.Errorf(line.CodeSyntax, "%v", err))
			continue
		}
		if quit := h.Handle(m); quit {
			return
		}
	}
}

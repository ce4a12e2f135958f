package bots

import (
	"errors"
	"log/slog"
	"sync"
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
// transport: the lines queued to send and the loops that write and read
// them.
type Wire struct {
	cfg WireConfig
	t   line.Transport
	// Host is the client's IP address, for rate limits.
	Host string
	out  outbox // the lines to send, in order
	done chan struct{}
	once sync.Once
}

// NewWire returns the connection over t of a client at host; WriteLoop
// and ReadLoop serve it.
func NewWire(t line.Transport, host string, cfg WireConfig) *Wire {
	return &Wire{cfg: cfg, t: t, Host: host, out: newOutbox(), done: make(chan struct{})}
}

// Refuse tells a client the server cannot take it why, briefly, and
// closes its transport.
func Refuse(t line.Transport, code, text string) {
	t.WriteLine(line.Errorf(code, "%s", text).String(), 100*time.Millisecond)
	t.Close()
}

// SendMsg queues a line; a client too slow to take its lines is dropped.
func (w *Wire) SendMsg(m line.Msg) {
	select {
	case <-w.done:
		return
	default:
	}
	if !w.out.put(m.String()) {
		w.cfg.Log.Warn("dropping a client that does not read", "addr", w.Host)
		w.Close()
	}
}

// Close ends the connection: the writer flushes what is queued (a last
// error) and closes the transport, which also ends the reader.
func (w *Wire) Close() {
	w.once.Do(func() { close(w.done) })
}

// Done is closed when the connection is closing.
func (w *Wire) Done() <-chan struct{} { return w.done }

// WriteLoop writes the lines queued, and pings, until the connection
// closes; it closes the transport when it returns.
func (w *Wire) WriteLoop() {
	defer w.t.Close()
	ping := time.NewTicker(w.cfg.IdleTimeout / 4)
	defer ping.Stop()
	timeout := w.cfg.WriteTimeout
	var batch []string
	for {
		select {
		case <-w.out.wake:
			select {
			case <-w.done:
				// Closing: what is left goes out quickly or not at all.
				timeout = 100 * time.Millisecond
			default:
			}
			// Every line queued goes out in one write.
			batch = w.out.take(batch)
			if len(batch) == 0 {
				continue
			}
			err := line.WriteLines(w.t, batch, timeout)
			clear(batch)
			if cap(batch) > 16 {
				batch = nil
			}
			if err != nil {
				w.Close()
				return
			}
		case <-ping.C:
			if err := w.t.WriteLine("ping", timeout); err != nil {
				w.Close()
				return
			}
		case <-w.done:
			// Flush what is queued (a last error), briefly.
			for _, s := range w.out.take(nil) {
				if w.t.WriteLine(s, 100*time.Millisecond) != nil {
					return
				}
			}
			return
		}
	}
}

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

package line

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

// Transport carries lines over a connection: TCP (a line per LF) or
// WebSocket (a text message per line). Reads and writes may run in two
// goroutines at once; Close unblocks both.
type Transport interface {
	// ReadLine returns the next line without its ending, waiting at most
	// timeout (none if zero).
	ReadLine(timeout time.Duration) (string, error)
	// WriteLine sends s and a line ending, waiting at most timeout.
	WriteLine(s string, timeout time.Duration) error
	Close() error
	// RemoteAddr is the peer's address, "host:port" where known.
	RemoteAddr() string
}

// LinesWriter is a Transport that sends several lines at once: over TCP
// in one write (one system call for a move's "moved", "state" and "go"),
// over a WebSocket still one message a line.
type LinesWriter interface {
	WriteLines(lines []string, timeout time.Duration) error
}

// WriteLines sends lines over t, at once where t can.
func WriteLines(t Transport, lines []string, timeout time.Duration) error {
	if lw, ok := t.(LinesWriter); ok {
		return lw.WriteLines(lines, timeout)
	}
	for _, s := range lines {
		if err := t.WriteLine(s, timeout); err != nil {
			return err
		}
	}
	return nil
}

// ErrTimeout is returned by a Transport whose read or write timed out.
var ErrTimeout = errors.New("timed out")

// TryWriter is a Transport that can write without waiting: a server
// writes a player's lines from the goroutine that made them, and only a
// client that falls behind gets a goroutine of its own to wait on.
type TryWriter interface {
	// TryWrite writes as much of b as the connection takes at once, maybe
	// none of it, and says how much.
	TryWrite(b []byte) (int, error)
	// WriteBytes writes b whole, lines already ended, waiting at most
	// timeout.
	WriteBytes(b []byte, timeout time.Duration) error
	// Hurry bounds a WriteBytes in progress to d from now.
	Hurry(d time.Duration)
}

// AppendLines appends each line and its ending to b.
func AppendLines(b []byte, lines []string) []byte {
	for _, s := range lines {
		b = append(b, s...)
		b = append(b, '\n')
	}
	return b
}

type tcpTransport struct {
	c net.Conn
	r *Reader
	// raw writes without waiting (TryWrite); nil where c has no
	// descriptor of its own (a WebSocket).
	raw syscall.RawConn
	wm  sync.Mutex
	// perLine writes every line by itself: over a WebSocket each line is
	// a message of its own.
	perLine bool
}

// NewTCP returns a Transport over a stream connection, reading lines of at
// most max bytes (MaxLine if max <= 0).
func NewTCP(c net.Conn, max int) Transport {
	t := &tcpTransport{c: c, r: NewReader(c, max)}
	if sc, ok := c.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			t.raw = raw
		}
	}
	return t
}

func (t *tcpTransport) ReadLine(timeout time.Duration) (string, error) {
	var dl time.Time
	if timeout > 0 {
		dl = time.Now().Add(timeout)
	}
	t.c.SetReadDeadline(dl)
	s, err := t.r.ReadLine()
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return "", fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return s, err
}

func (t *tcpTransport) WriteLine(s string, timeout time.Duration) error {
	return t.WriteLines([]string{s}, timeout)
}

// lineBufs holds the buffers lines are gathered in for one write.
var lineBufs = sync.Pool{New: func() any { return new([]byte) }}

func (t *tcpTransport) WriteLines(lines []string, timeout time.Duration) error {
	b := lineBufs.Get().(*[]byte)
	*b = AppendLines((*b)[:0], lines)
	err := t.WriteBytes(*b, timeout)
	if cap(*b) <= 4<<10 {
		lineBufs.Put(b)
	}
	return err
}

func (t *tcpTransport) WriteBytes(b []byte, timeout time.Duration) error {
	t.wm.Lock()
	defer t.wm.Unlock()
	var dl time.Time
	if timeout > 0 {
		dl = time.Now().Add(timeout)
	}
	t.c.SetWriteDeadline(dl)
	var err error
	if t.perLine {
		for len(b) > 0 && err == nil {
			n := bytes.IndexByte(b, '\n') + 1
			if n == 0 {
				n = len(b)
			}
			_, err = t.c.Write(b[:n])
			b = b[n:]
		}
	} else {
		_, err = t.c.Write(b)
	}
	if t.raw != nil && !dl.IsZero() {
		// A deadline left behind would fail the next TryWrite once it
		// passed.
		t.c.SetWriteDeadline(time.Time{})
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return err
}

// Hurry bounds the write in progress, if any, to d from now.
func (t *tcpTransport) Hurry(d time.Duration) {
	t.c.SetWriteDeadline(time.Now().Add(d))
}

// TryWrite writes what the socket's buffer takes now: one system call,
// never a wait. Over a WebSocket it writes nothing.
func (t *tcpTransport) TryWrite(b []byte) (int, error) {
	if t.raw == nil || t.perLine || !t.wm.TryLock() {
		return 0, nil
	}
	defer t.wm.Unlock()
	var n int
	var werr error
	err := t.raw.Write(func(fd uintptr) bool {
		n, werr = syscall.Write(int(fd), b)
		if n < 0 {
			n = 0
		}
		if werr == syscall.EAGAIN || werr == syscall.EINTR {
			werr = nil
		}
		return true // never wait for the socket: the caller queues the rest
	})
	if err == nil {
		err = werr
	}
	return n, err
}

func (t *tcpTransport) Close() error       { return t.c.Close() }
func (t *tcpTransport) RemoteAddr() string { return t.c.RemoteAddr().String() }

// NewWebSocket returns a Transport over a WebSocket connection. The text
// messages are read as one byte stream split at line ends, as over TCP: a
// line may span messages and a message may hold several lines. Each line
// written goes out as one message ending in a newline. max bounds a line
// (0: MaxLine).
func NewWebSocket(c *websocket.Conn, max int, addr string) Transport {
	if max <= 0 {
		max = MaxLine
	}
	// A message may hold a few lines; the reader bounds each line.
	c.SetReadLimit(4*int64(max) + 2)
	nc := websocket.NetConn(context.Background(), c, websocket.MessageText)
	t := NewTCP(wsConn{Conn: nc, addr: addr, rd: newDeadlineReader(nc)}, max).(*tcpTransport)
	t.perLine = true
	return t
}

// wsConn gives a WebSocket's byte stream the peer's address, and read
// deadlines that only time a read out: the WebSocket's own close the
// connection when they pass, where a TCP read would just stop waiting.
type wsConn struct {
	net.Conn
	addr string
	rd   *deadlineReader
}

func (c wsConn) RemoteAddr() net.Addr { return wsAddr(c.addr) }

func (c wsConn) Read(p []byte) (int, error) { return c.rd.Read(p) }

func (c wsConn) SetReadDeadline(t time.Time) error { c.rd.setDeadline(t); return nil }

func (c wsConn) SetDeadline(t time.Time) error {
	c.rd.setDeadline(t)
	return c.Conn.SetWriteDeadline(t)
}

// deadlineReader reads a connection in a goroutine of its own (until the
// connection fails or closes), so a Read can give up at its deadline
// without touching the connection.
type deadlineReader struct {
	chunks  chan []byte // closed after err is set
	err     error
	pending []byte

	mu      sync.Mutex
	dl      time.Time
	changed chan struct{} // closed when the deadline changes
}

func newDeadlineReader(c net.Conn) *deadlineReader {
	r := &deadlineReader{chunks: make(chan []byte, 4), changed: make(chan struct{})}
	go func() {
		for {
			buf := make([]byte, 4096)
			n, err := c.Read(buf)
			if n > 0 {
				r.chunks <- buf[:n]
			}
			if err != nil {
				r.err = err
				close(r.chunks)
				return
			}
		}
	}()
	return r
}

func (r *deadlineReader) setDeadline(t time.Time) {
	r.mu.Lock()
	r.dl = t
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

func (r *deadlineReader) Read(p []byte) (int, error) {
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	for {
		r.mu.Lock()
		dl, changed := r.dl, r.changed
		r.mu.Unlock()
		var timeout <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			t := time.NewTimer(d)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case b, ok := <-r.chunks:
			if !ok {
				return 0, r.err
			}
			n := copy(p, b)
			r.pending = b[n:]
			return n, nil
		case <-timeout:
			return 0, os.ErrDeadlineExceeded
		case <-changed:
		}
	}
}

type wsAddr string

func (a wsAddr) Network() string { return "websocket" }
func (a wsAddr) String() string  { return string(a) }

// Dial connects to a server at addr: "host:port" for TCP, or a ws:// or
// wss:// URL for WebSocket.
func Dial(ctx context.Context, addr string) (Transport, error) {
	if strings.HasPrefix(addr, "ws://") || strings.HasPrefix(addr, "wss://") {
		c, _, err := websocket.Dial(ctx, addr, nil)
		if err != nil {
			return nil, err
		}
		return NewWebSocket(c, 0, addr), nil
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return NewTCP(c, 0), nil
}

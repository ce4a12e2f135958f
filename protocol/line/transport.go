package line

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
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

// ErrTimeout is returned by a Transport whose read or write timed out.
var ErrTimeout = errors.New("timed out")

type tcpTransport struct {
	c  net.Conn
	r  *Reader
	w  *bufio.Writer
	wm sync.Mutex
}

// NewTCP returns a Transport over a stream connection, reading lines of at
// most max bytes (MaxLine if max <= 0).
func NewTCP(c net.Conn, max int) Transport {
	return &tcpTransport{c: c, r: NewReader(c, max), w: bufio.NewWriterSize(c, 1024)}
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
	t.wm.Lock()
	defer t.wm.Unlock()
	var dl time.Time
	if timeout > 0 {
		dl = time.Now().Add(timeout)
	}
	t.c.SetWriteDeadline(dl)
	t.w.WriteString(s)
	t.w.WriteByte('\n')
	err := t.w.Flush()
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return err
}

func (t *tcpTransport) Close() error       { return t.c.Close() }
func (t *tcpTransport) RemoteAddr() string { return t.c.RemoteAddr().String() }

type wsTransport struct {
	c    *websocket.Conn
	addr string
	max  int
	ctx  context.Context
	stop context.CancelFunc
}

// NewWebSocket returns a Transport over a WebSocket connection, one text
// message a line; a message of more than max bytes (MaxLine if max <= 0)
// ends the connection. addr is the peer's address for logs and limits.
func NewWebSocket(c *websocket.Conn, max int, addr string) Transport {
	if max <= 0 {
		max = MaxLine
	}
	c.SetReadLimit(int64(max) + 2)
	ctx, stop := context.WithCancel(context.Background())
	return &wsTransport{c: c, addr: addr, max: max, ctx: ctx, stop: stop}
}

func (t *wsTransport) ReadLine(timeout time.Duration) (string, error) {
	ctx := t.ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	typ, b, err := t.c.Read(ctx)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", fmt.Errorf("%w: %w", ErrTimeout, err)
		}
		var ce websocket.CloseError
		if errors.As(err, &ce) && ce.Code == websocket.StatusMessageTooBig {
			return "", ErrTooLong
		}
		if strings.Contains(err.Error(), "read limited") {
			return "", ErrTooLong
		}
		return "", err
	}
	if typ != websocket.MessageText {
		return "", fmt.Errorf("%w: binary message", ErrSyntax)
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if len(s) > t.max {
		return "", ErrTooLong
	}
	return s, nil
}

func (t *wsTransport) WriteLine(s string, timeout time.Duration) error {
	ctx := t.ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	err := t.c.Write(ctx, websocket.MessageText, []byte(s))
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return err
}

func (t *wsTransport) Close() error {
	t.stop()
	return t.c.CloseNow()
}

func (t *wsTransport) RemoteAddr() string { return t.addr }

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

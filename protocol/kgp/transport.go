package kgp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// errLineTooLong is returned by a transport for a line beyond MaxLine; the
// line has been skipped and the connection can go on.
var errLineTooLong = errors.New("kgp: line too long")

// errBinary is returned for a binary WebSocket message, which is skipped.
var errBinary = errors.New("kgp: binary message (commands are text)")

// transport carries lines of the protocol over TCP or a WebSocket.
type transport interface {
	// readLine returns the next line without its line end. It fails once
	// nothing arrives within idle (zero: no limit).
	readLine(idle time.Duration) (string, error)
	// writeLine sends one line, adding the line end.
	writeLine(s string, timeout time.Duration) error
	close() error
	remote() string
}

// streamTransport speaks KGP over a byte stream such as TCP: CRLF line
// ends (a bare LF is accepted).
type streamTransport struct {
	c   net.Conn
	r   *bufio.Reader
	wmu sync.Mutex
}

func newStreamTransport(c net.Conn) *streamTransport {
	return &streamTransport{c: c, r: bufio.NewReaderSize(c, MaxLine)}
}

func (t *streamTransport) readLine(idle time.Duration) (string, error) {
	if idle > 0 {
		t.c.SetReadDeadline(time.Now().Add(idle))
	}
	long := false
	for {
		b, err := t.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = true
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(b) > 0 && !long {
				return trimEOL(string(b)), nil
			}
			return "", err
		}
		if long {
			return "", errLineTooLong
		}
		return trimEOL(string(b)), nil
	}
}

func trimEOL(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

func (t *streamTransport) writeLine(s string, timeout time.Duration) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if timeout > 0 {
		t.c.SetWriteDeadline(time.Now().Add(timeout))
	}
	_, err := io.WriteString(t.c, s+"\r\n")
	return err
}

func (t *streamTransport) close() error { return t.c.Close() }

func (t *streamTransport) remote() string { return t.c.RemoteAddr().String() }

// wsTransport speaks KGP over a WebSocket: each text message carries one
// command with its CRLF (several lines in one message, or none of the line
// end, are accepted too).
type wsTransport struct {
	c       *websocket.Conn
	addr    string
	pending []string
	ctx     context.Context
	cancel  context.CancelFunc
}

func newWSTransport(c *websocket.Conn, addr string) *wsTransport {
	// A message may hold a few lines; the limit keeps a hostile peer from
	// making us buffer much more than one long line.
	c.SetReadLimit(4 * MaxLine)
	ctx, cancel := context.WithCancel(context.Background())
	return &wsTransport{c: c, addr: addr, ctx: ctx, cancel: cancel}
}

func (t *wsTransport) readLine(idle time.Duration) (string, error) {
	for len(t.pending) == 0 {
		ctx, cancel := t.ctx, context.CancelFunc(func() {})
		if idle > 0 {
			ctx, cancel = context.WithTimeout(t.ctx, idle)
		}
		typ, b, err := t.c.Read(ctx)
		cancel()
		if err != nil {
			return "", err
		}
		if typ != websocket.MessageText {
			return "", errBinary
		}
		s := strings.ReplaceAll(string(b), "\r\n", "\n")
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		t.pending = append(t.pending, lines...)
	}
	line := t.pending[0]
	t.pending = t.pending[1:]
	if len(line) > MaxLine {
		return "", errLineTooLong
	}
	return line, nil
}

func (t *wsTransport) writeLine(s string, timeout time.Duration) error {
	ctx, cancel := t.ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(t.ctx, timeout)
	}
	defer cancel()
	return t.c.Write(ctx, websocket.MessageText, []byte(s+"\r\n"))
}

func (t *wsTransport) close() error {
	t.cancel()
	return t.c.CloseNow()
}

func (t *wsTransport) remote() string { return t.addr }

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

// errBinary is kept for the read loop's wording of a binary message.
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

// wsConn is a WebSocket read as the byte stream KGP is: the text messages'
// bytes one after the other, whatever their boundaries.
type wsConn struct {
	net.Conn
	ws   *websocket.Conn
	addr string
}

func (c wsConn) RemoteAddr() net.Addr { return wsAddr(c.addr) }

type wsAddr string

func (a wsAddr) Network() string { return "websocket" }
func (a wsAddr) String() string  { return string(a) }

// newWSTransport reads a WebSocket as one byte stream split at line ends,
// as the reference server does; each line written goes out as one message
// with its CRLF.
func newWSTransport(c *websocket.Conn, addr string) *streamTransport {
	c.SetReadLimit(4 * MaxLine)
	nc := websocket.NetConn(context.Background(), c, websocket.MessageText)
	return newStreamTransport(wsConn{Conn: nc, ws: c, addr: addr})
}

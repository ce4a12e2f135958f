package netx

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lockedBuffer is a log's output, read while the server writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

// TestHTTPErrorsHandshakes: each failed TLS handshake is counted, but an
// address gets a line at most once a minute (the next saying how many
// were not logged), and past the addresses remembered a new one gets
// none; any other line of the server's is logged as it comes.
func TestHTTPErrorsHandshakes(t *testing.T) {
	var out lockedBuffer
	var count atomic.Int64
	now := time.Unix(1e9, 0)
	h := &HTTPErrors{Log: slog.New(slog.NewTextHandler(&out, nil)), HandshakeFailed: func() { count.Add(1) }, Addresses: 3}
	h.now = func() time.Time { return now }
	l := h.Logger()
	fail := func(addr string) { l.Printf("http: TLS handshake error from %s: EOF", addr) }
	for port := range 5 {
		fail(fmt.Sprintf("10.0.0.1:%d", 4000+port))
	}
	fail("[2001:db8::1]:443")
	fail("[2001:db8::2]:443") // the same /64
	if n := out.lines("TLS handshake failed"); n != 2 || count.Load() != 7 {
		t.Fatalf("7 failures from 2 addresses: %d lines, %d counted\n%s", n, count.Load(), out.b.String())
	}
	now = now.Add(61 * time.Second)
	fail("10.0.0.1:5000")
	if n := out.lines("TLS handshake failed"); n != 3 || out.lines("unlogged=4") != 1 {
		t.Fatalf("a minute later: %d lines\n%s", n, out.b.String())
	}
	// Three addresses remembered (the IPv6 one's minute is over: it is
	// forgotten to make room): a fourth, within the minute of the others,
	// is counted only.
	fail("10.0.0.3:1")
	fail("10.0.0.4:1")
	fail("10.0.0.5:1")
	if n := out.lines("TLS handshake failed"); n != 5 || count.Load() != 11 || out.lines("10.0.0.5") != 0 {
		t.Fatalf("past the addresses remembered: %d lines, %d counted\n%s", n, count.Load(), out.b.String())
	}
	l.Printf("http: panic serving 10.0.0.6:1: oops")
	l.Printf("http: panic serving 10.0.0.6:1: oops")
	if out.lines("panic serving") != 2 || count.Load() != 11 {
		t.Errorf("other lines: \n%s", out.b.String())
	}
}

// TestHTTPErrorsRealHandshakes: 20 clients that do not speak TLS to a
// real TLS server from one address: 20 counted, one line.
func TestHTTPErrorsRealHandshakes(t *testing.T) {
	var out lockedBuffer
	var count atomic.Int64
	h := &HTTPErrors{Log: slog.New(slog.NewTextHandler(&out, nil)), HandshakeFailed: func() { count.Add(1) }}
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.Config.ErrorLog = h.Logger()
	ts.StartTLS()
	defer ts.Close()
	addr := strings.TrimPrefix(ts.URL, "https://")
	for i := range 20 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") // plain HTTP on the TLS port
		} else {
			c.Write([]byte{0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5}) // a broken ClientHello
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		var b [512]byte
		for {
			if _, err := c.Read(b[:]); err != nil {
				break
			}
		}
		c.Close()
	}
	for deadline := time.Now().Add(5 * time.Second); count.Load() < 20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			break
		}
	}
	if n := out.lines("TLS handshake failed"); count.Load() != 20 || n != 1 {
		t.Errorf("20 failed handshakes: %d counted, %d lines\n%s", count.Load(), n, out.b.String())
	}
}

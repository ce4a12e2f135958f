// Package netx guards the server's listeners: a cap on the connections
// open at once, and an accept loop that survives errors (too many open
// files, a reset before accept) instead of taking the whole server down.
package netx

import (
	"encoding/json"
	"errors"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Guard returns l with at most max connections open at once (0: no cap):
// Accept waits while max are open. Accept errors other than the listener's
// closing are logged and retried with a growing pause (5 ms to 1 s), so a
// descriptor shortage or a reset connection never stops the server.
func Guard(l net.Listener, max int, log *slog.Logger, what string) net.Listener {
	g := &guarded{Listener: l, log: log, what: what, closed: make(chan struct{})}
	if max > 0 {
		g.sem = make(chan struct{}, max)
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	return g
}

type guarded struct {
	net.Listener
	sem       chan struct{}
	log       *slog.Logger
	what      string
	closed    chan struct{}
	closeOnce sync.Once
}

func (g *guarded) Accept() (net.Conn, error) {
	if g.sem != nil {
		select {
		case g.sem <- struct{}{}:
		case <-g.closed:
			return nil, net.ErrClosed
		}
	}
	var pause time.Duration
	for {
		c, err := g.Listener.Accept()
		if err == nil {
			if g.sem == nil {
				return c, nil
			}
			return &released{Conn: c, sem: g.sem}, nil
		}
		if errors.Is(err, net.ErrClosed) {
			if g.sem != nil {
				<-g.sem
			}
			return nil, err
		}
		pause = min(max(2*pause, 5*time.Millisecond), time.Second)
		g.log.Warn("accept failed; retrying", "what", g.what, "err", err, "in", pause)
		select {
		case <-time.After(pause):
		case <-g.closed:
			if g.sem != nil {
				<-g.sem
			}
			return nil, net.ErrClosed
		}
	}
}

func (g *guarded) Close() error {
	g.closeOnce.Do(func() { close(g.closed) })
	return g.Listener.Close()
}

// released frees its place under the cap when closed.
type released struct {
	net.Conn
	sem  chan struct{}
	once sync.Once
}

func (c *released) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.sem })
	return err
}

// LongLived lifts the server's read and write deadlines from a request that
// stays open by design (a WebSocket, an event stream, a request that follows
// a game), so the timeouts that protect the server from slow clients do not
// cut it.
func LongLived(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
}

// CheckWrite checks a request that changes something, as a browser could
// be made to send it from another site: its body must be JSON (a form or
// text/plain, which need no permission across sites, is refused: 415) and
// its Origin, if it has one, must be this server's own (403). Clients that
// are not browsers send no Origin and are not affected. It writes the
// refusal and reports whether the request may go on.
func CheckWrite(w http.ResponseWriter, r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && !sameHost(o, r.Host) {
		writeRefusal(w, http.StatusForbidden, "requests from another site's page are refused (Origin "+o+")")
		return false
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/json" {
		writeRefusal(w, http.StatusUnsupportedMediaType, "send the request body as JSON with Content-Type: application/json")
		return false
	}
	return true
}

// sameHost reports whether origin (scheme://host[:port]) names host.
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

func writeRefusal(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

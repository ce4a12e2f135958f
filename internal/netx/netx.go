// Package netx guards the server's listeners: a cap on the connections
// open at once, and an accept loop that survives errors (too many open
// files, a reset before accept) instead of taking the whole server down.
package netx

import (
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"kalah/internal/httpapi"
)

// Guard returns l with at most max connections open at once (0: no cap):
// Accept waits while max are open. Accept errors other than the listener's
// closing are logged and retried with a growing pause (5 ms to 1 s), so a
// descriptor shortage or a reset connection never stops the server.
func Guard(l net.Listener, max int, log *slog.Logger, what string) *Guarded {
	return GuardWith(l, Caps{Max: max}, log, what)
}

// Caps bound a listener's connections.
type Caps struct {
	// Max is the most connections open at once (0: no cap); Accept waits
	// while that many are open.
	Max int
	// PerAddr is the most one client address (an IPv6 client: its /64) may
	// hold open at once (0: no cap); a connection beyond it is closed as
	// soon as it is accepted, so one address cannot take every place under
	// Max.
	PerAddr int
	// Exempt are peers the per-address cap does not apply to: the reverse
	// proxies in front of the server, whose connections carry many clients.
	Exempt Proxies
}

// GuardWith is Guard with a cap per client address as well.
func GuardWith(l net.Listener, caps Caps, log *slog.Logger, what string) *Guarded {
	g := &Guarded{Listener: l, log: log, what: what, closed: make(chan struct{}), caps: caps, byAddr: map[string]int{}}
	if caps.Max > 0 {
		g.sem = make(chan struct{}, caps.Max)
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	return g
}

// Guarded is a listener under Caps.
type Guarded struct {
	net.Listener
	sem       chan struct{}
	log       *slog.Logger
	what      string
	closed    chan struct{}
	closeOnce sync.Once
	caps      Caps

	mu      sync.Mutex
	byAddr  map[string]int
	open    int
	refused uint64
}

// Open returns how many of the listener's connections are open.
func (g *Guarded) Open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

// Refused returns how many connections were closed at once for being over
// the per-address cap.
func (g *Guarded) Refused() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}

// Accept implements net.Listener.
func (g *Guarded) Accept() (net.Conn, error) {
	for {
		if g.sem != nil {
			select {
			case g.sem <- struct{}{}:
			case <-g.closed:
				return nil, net.ErrClosed
			}
		}
		c, err := g.accept()
		if err != nil {
			if g.sem != nil {
				<-g.sem
			}
			return nil, err
		}
		key, ok := g.admit(c)
		if !ok {
			c.Close()
			if g.sem != nil {
				<-g.sem
			}
			continue
		}
		return &released{Conn: c, g: g, key: key}, nil
	}
}

// admit counts c under its address, unless the address is at its cap.
func (g *Guarded) admit(c net.Conn) (string, bool) {
	key := ""
	if g.caps.PerAddr > 0 {
		host := hostOnly(c.RemoteAddr().String())
		if a, err := netip.ParseAddr(host); err != nil || !g.caps.Exempt.Trusted(a) {
			key = AddrKey(host)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if key != "" {
		if g.byAddr[key] >= g.caps.PerAddr {
			g.refused++
			return "", false
		}
		g.byAddr[key]++
	}
	g.open++
	return key, true
}

func (g *Guarded) release(key string) {
	g.mu.Lock()
	g.open--
	if key != "" {
		if g.byAddr[key]--; g.byAddr[key] <= 0 {
			delete(g.byAddr, key)
		}
	}
	g.mu.Unlock()
	if g.sem != nil {
		<-g.sem
	}
}

// accept is the listener's Accept, retrying errors that are not its
// closing.
func (g *Guarded) accept() (net.Conn, error) {
	var pause time.Duration
	for {
		c, err := g.Listener.Accept()
		if err == nil {
			return c, nil
		}
		if errors.Is(err, net.ErrClosed) {
			return nil, err
		}
		pause = min(max(2*pause, 5*time.Millisecond), time.Second)
		g.log.Warn("accept failed; retrying", "what", g.what, "err", err, "in", pause)
		select {
		case <-time.After(pause):
		case <-g.closed:
			return nil, net.ErrClosed
		}
	}
}

// Close implements net.Listener.
func (g *Guarded) Close() error {
	g.closeOnce.Do(func() { close(g.closed) })
	return g.Listener.Close()
}

// released frees its place under the caps when closed.
type released struct {
	net.Conn
	g    *Guarded
	key  string
	once sync.Once
}

// SyscallConn gives the socket underneath (syscall.Conn), so that what
// serves the connection can write to it without waiting (line.TryWriter):
// without it, every line to a bot waited in a goroutine of its own.
func (c *released) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}

func (c *released) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.g.release(c.key) })
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

// ErrCrossSite refuses a request that changes something sent from
// another site's page (403).
var ErrCrossSite = errors.New("requests from another site's page are refused")

// CheckWrite checks a request that changes something, as a browser could
// be made to send it from another site: its body must be JSON (a form or
// text/plain, which need no permission across sites, is refused:
// httpapi.ErrNotJSON, 415) and its Origin, if it has one, must be this
// server's own (ErrCrossSite, 403). Clients that are not browsers send no
// Origin and are not affected. The caller answers the refusal, as every
// error of the API (httpapi.WriteError).
func CheckWrite(r *http.Request) error {
	if o := r.Header.Get("Origin"); o != "" && !sameHost(o, r.Host) {
		return fmt.Errorf("%w (Origin %s)", ErrCrossSite, o)
	}
	if r.Method == http.MethodDelete {
		// No form sends a DELETE, nor another site's page without asking
		// (CORS); a body it has is read as JSON (httpapi.ReadJSON).
		return nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/json" {
		return httpapi.ErrNotJSON
	}
	return nil
}

// WritesChecked serves h, refusing a request that changes something
// unless its body is JSON and it comes from no page of another site
// (CheckWrite).
func WritesChecked(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			if err := CheckWrite(r); err != nil {
				httpapi.WriteError(w, err)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// sameHost reports whether origin (scheme://host[:port]) names host.
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

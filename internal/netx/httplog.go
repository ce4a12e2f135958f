package netx

import (
	"log"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// HTTPErrors takes what an http.Server logs (its ErrorLog) into a
// structured log, and keeps one kind of line from being a stranger's
// lever on the log's volume: a failed TLS handshake (a scanner, plain
// HTTP on the TLS port, a client that hangs up) is counted every time
// (HandshakeFailed) but logged at most once every Every per client
// address (an IPv6 client: its /64), the next line saying how many were
// not logged meanwhile. Every other line is logged as it comes.
type HTTPErrors struct {
	// Log is where the lines go (nil: slog.Default()).
	Log *slog.Logger
	// HandshakeFailed, if set, is called for every failed TLS handshake
	// (a metric's counter).
	HandshakeFailed func()
	// Every is the least time between two lines about one address's
	// handshakes (0: a minute).
	Every time.Duration
	// Addresses is the most addresses remembered at once (0: 4096): past
	// it, a handshake failing from an address not remembered is counted,
	// not logged, until a remembered one's minute is over, so addresses
	// made up by the thousand cannot buy a line each either.
	Addresses int

	mu    sync.Mutex
	addrs map[string]*handshakeLog
	now   func() time.Time // for tests
}

type handshakeLog struct {
	logged   time.Time // the last line about this address
	unlogged int       // failures since then not logged
}

// tlsHandshakePrefix starts the line net/http logs for a failed TLS
// handshake: "http: TLS handshake error from ADDR: REASON".
const tlsHandshakePrefix = "http: TLS handshake error from "

// Logger returns the *log.Logger for http.Server's ErrorLog.
func (h *HTTPErrors) Logger() *log.Logger { return log.New(h, "", 0) }

// Write takes one line of an http.Server's log.
func (h *HTTPErrors) Write(p []byte) (int, error) {
	line := strings.TrimRight(string(p), "\n")
	rest, ok := strings.CutPrefix(line, tlsHandshakePrefix)
	if !ok {
		h.logger().Info(line)
		return len(p), nil
	}
	addr, reason, _ := strings.Cut(rest, ": ")
	if h.HandshakeFailed != nil {
		h.HandshakeFailed()
	}
	key := AddrKey(addr)
	if unlogged, log := h.allow(key); log {
		h.logger().Info("TLS handshake failed", "client", addr, "reason", reason, "unlogged", unlogged)
	}
	return len(p), nil
}

// allow reports whether a handshake failure from key is logged now, and
// how many from it were not since the last line about it.
func (h *HTTPErrors) allow(key string) (int, bool) {
	every, most := h.Every, h.Addresses
	if every <= 0 {
		every = time.Minute
	}
	if most <= 0 {
		most = 4096
	}
	now := time.Now()
	if h.now != nil {
		now = h.now()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.addrs == nil {
		h.addrs = map[string]*handshakeLog{}
	}
	if a := h.addrs[key]; a != nil {
		if now.Sub(a.logged) < every {
			a.unlogged++
			return 0, false
		}
		n := a.unlogged
		a.logged, a.unlogged = now, 0
		return n, true
	}
	if len(h.addrs) >= most {
		for k, a := range h.addrs {
			if now.Sub(a.logged) >= every {
				delete(h.addrs, k)
			}
		}
		if len(h.addrs) >= most {
			return 0, false
		}
	}
	h.addrs[key] = &handshakeLog{logged: now}
	return 0, true
}

func (h *HTTPErrors) logger() *slog.Logger {
	if h.Log == nil {
		return slog.Default()
	}
	return h.Log
}

package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"kalah/internal/httpapi"
	"kalah/internal/netx"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/server/limits"
)

// The limits that need none of the server's state live in server/limits;
// this file is what of them needs the server (who makes a request, the
// refusals counted in its metrics) and the names the rest of package
// server, web and cmd/kalah know them by.

// Kinds of long-lived request, as counted in the metrics (limits.Stream*).
const (
	StreamEvents = limits.StreamEvents
	StreamBoard  = limits.StreamBoard
	StreamWSBot  = limits.StreamWSBot
	StreamKGPWS  = limits.StreamKGPWS
	streamOther  = limits.StreamOther
)

// ErrTooManyStreams refuses a long-lived request over a limit.
var ErrTooManyStreams = limits.ErrTooManyStreams

type (
	streams        = limits.Streams
	deadlineWriter = limits.DeadlineWriter
	releasing      = limits.Releasing
)

func newStreams(cfg *Config) *streams {
	return limits.NewStreams(cfg.MaxStreamsPerAddr, cfg.MaxStreamsPerIdentity, cfg.MaxStreams)
}

// identity names who makes r, for the limits kept per identity: the key of
// a signed-in person, a bot by its token or a guest by its cookie ("" for
// none: the address's limit holds).
func (s *Server) identity(r *http.Request) string {
	return s.actor(nil, r, "", false).ID.Key()
}

// openStream counts a long-lived request of kind, or answers 429 and
// reports false when it is over a limit.
func (s *Server) openStream(w http.ResponseWriter, r *http.Request, kind string) (func(), bool) {
	release, reason := s.streams.Open(kind, hostOf(r), s.identity(r))
	if release == nil {
		s.refused(reason)
		w.Header().Set("Retry-After", "10")
		what := map[string]string{
			"streams":              "the server has as many open streams as it allows",
			"streams-per-address":  fmt.Sprintf("your address has %d open streams, the most this server allows; close some (other tabs or bots)", s.cfg.MaxStreamsPerAddr),
			"streams-per-identity": fmt.Sprintf("your account has %d open streams, the most this server allows; close some (other tabs or bots)", s.cfg.MaxStreamsPerIdentity),
		}[reason]
		httpapi.WriteError(w, fmt.Errorf("%w: %s", ErrTooManyStreams, what))
		return nil, false
	}
	return release, true
}

// LimitStreams serves h, a handler that holds its request open (an event
// stream, a WebSocket that lives as long as the call), under the limits on
// long-lived requests: per client address, per identity, in all. kalah
// serve puts KGP's WebSocket behind it.
func (s *Server) LimitStreams(kind string, h http.Handler) http.Handler {
	return s.cfg.TrustedProxies.RealClients(httpapi.Requests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, ok := s.openStream(w, r, kind)
		if !ok {
			return
		}
		defer release()
		h.ServeHTTP(w, r)
	}), s.log, s.errs))
}

// streamed serves an event stream under the limits on long-lived requests,
// for at most Config.StreamLifetime (a browser's EventSource reconnects by
// itself), and drops a client that does not take a write within
// Config.WriteTimeout, which the stream's lifted deadlines would otherwise
// let hold it for ever.
func (s *Server) streamed(kind string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		release, ok := s.openStream(w, r, kind)
		if !ok {
			return
		}
		defer release()
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.StreamLifetime)
		defer cancel()
		h(&deadlineWriter{ResponseWriter: w, RC: http.NewResponseController(w), Timeout: s.cfg.WriteTimeout, Fail: cancel}, r.WithContext(ctx))
	}
}

// serveWSLimited accepts a bot on our protocol over WebSocket, counted
// under the limits on long-lived requests until its connection closes.
func (s *Server) serveWSLimited(w http.ResponseWriter, r *http.Request) {
	release, ok := s.openStream(w, r, StreamWSBot)
	if !ok {
		return
	}
	netx.LongLived(w)
	c, err := websocket.Accept(w, r, nil) // a foreign Origin is refused; none is fine
	if err != nil {
		release()
		return
	}
	s.startConn(&releasing{Transport: line.NewWebSocket(c, s.cfg.MaxLine, r.RemoteAddr), Release: release})
}

// thinkLimit wraps p in the server's thinking limit, if there is one.
func (s *Server) thinkLimit(p player.Player) player.Player {
	return limits.ThinkLimit(p, s.limits().Time)
}

// RealClients serves h with each request's RemoteAddr the real client's
// behind the server's trusted proxies (Config.TrustedProxies), so the
// page's own limits count clients as the server's do.
func (s *Server) RealClients(h http.Handler) http.Handler { return s.cfg.TrustedProxies.RealClients(h) }

// checkLimits refuses a player spec over the server's limits, counting the
// refusal.
func (s *Server) checkLimits(spec string) error {
	err := player.CheckLimits(spec, s.limits())
	if errors.Is(err, player.ErrOverLimit) {
		s.refused("over-limits")
	}
	return err
}

// The metrics and the referee's move times live in server/limits (Metrics,
// Stats); these are the server's names for them, reading its state.
type (
	metrics = limits.Metrics
	// Stats counts the moves the referee timed and how long it took each
	// (limits.Stats).
	Stats = limits.Stats
)

func (s *Server) newMetrics() *metrics {
	return limits.NewMetrics(limits.Sources{
		Live:    func() float64 { return float64(s.live.Len()) },
		Conns:   func() float64 { return float64(s.bots.Conns()) },
		Commits: func() float64 { return float64(s.st.Commits()) },
		Writes:  func() float64 { return float64(s.st.Writes()) },
		WALSize: func() float64 { return float64(s.st.WALSize()) },
		Streams: s.streams.Count,
	})
}

// Metrics returns the server's Prometheus registry, for an operator's
// /metrics (kalah serve --metrics-addr); the caller may add its own
// collectors (listeners, the Go runtime) to it.
func (s *Server) Metrics() *prometheus.Registry { return s.metrics.Reg }

// refused counts a refusal by reason.
func (s *Server) refused(reason string) {
	s.metrics.Refused(reason)
}

// Refused counts a refusal by a limit of the page's own (analysis-rate,
// analysis-busy) in kalah_refusals_total, beside the server's.
func (s *Server) Refused(reason string) { s.refused(reason) }

// TLSHandshakeFailed counts a failed TLS handshake on the HTTP listener
// in kalah_tls_handshake_failures_total (kalah serve's netx.HTTPErrors
// calls it for each).
func (s *Server) TLSHandshakeFailed() { s.metrics.TLSHandshakeFailed() }

// Healthy reports whether the server can serve: not stopped, and its store
// answers a read.
func (s *Server) Healthy(ctx context.Context) error {
	if s.ctx.Err() != nil {
		return ErrClosed
	}
	return s.st.Ping(ctx)
}

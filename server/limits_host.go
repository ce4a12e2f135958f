package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"kalah/internal/httpapi"
	"kalah/player"
	"kalah/server/limits"
)

// The limits that need none of the server's state live in server/limits;
// this file is what of them needs the server (who makes a request, the
// refusals counted in its metrics, the challenges under s.mu) and the
// names the rest of package server, web and cmd/kalah know them by.

// Kinds of long-lived request, as counted in the metrics (limits.Stream*).
const (
	StreamEvents = limits.StreamEvents
	StreamBoard  = limits.StreamBoard
	StreamWSBot  = limits.StreamWSBot
	StreamKGPWS  = limits.StreamKGPWS
)

// ErrTooManyStreams refuses a long-lived request over a limit.
var ErrTooManyStreams = limits.ErrTooManyStreams

type (
	streams = limits.Streams
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

// streamer serves the long-lived requests under the server's limits
// (limits.Streamer): who asks is the server's, and its refusals counted.
func (s *Server) streamer() limits.Streamer {
	return limits.Streamer{Streams: s.streams, Identity: s.identity, Refused: s.refused,
		Lifetime: s.cfg.StreamLifetime, WriteTimeout: s.cfg.WriteTimeout}
}

// LimitStreams serves h, a handler that holds its request open (an event
// stream, a WebSocket that lives as long as the call), under the limits on
// long-lived requests: per client address, per identity, in all. kalah
// serve puts KGP's WebSocket behind it.
func (s *Server) LimitStreams(kind string, h http.Handler) http.Handler {
	return s.cfg.TrustedProxies.RealClients(httpapi.Requests(s.streamer().Limit(kind, h), s.log, s.errs))
}

// streamed serves an event stream under the limits (limits.Streamer).
func (s *Server) streamed(kind string, h http.HandlerFunc) http.HandlerFunc {
	return s.streamer().Streamed(kind, h)
}

// serveWSLimited accepts a bot on our protocol over WebSocket, counted
// under the limits on long-lived requests until its connection closes.
func (s *Server) serveWSLimited(w http.ResponseWriter, r *http.Request) {
	s.streamer().ServeWS(w, r, s.cfg.MaxLine, s.startConn)
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
		Live:       func() float64 { return float64(s.live.Len()) },
		Conns:      func() float64 { return float64(s.bots.Conns()) },
		Commits:    func() float64 { return float64(s.st.Commits()) },
		Writes:     func() float64 { return float64(s.st.Writes()) },
		WALSize:    func() float64 { return float64(s.st.WALSize()) },
		WriteWaits: func() float64 { return float64(s.bots.WriteWaits()) },
		Streams:    s.streams.Count,
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

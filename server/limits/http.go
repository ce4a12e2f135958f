package limits

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"kalah/internal/httpapi"
	"kalah/internal/netx"
	"kalah/protocol/line"
	"kalah/server/core"
)

// Streamer serves long-lived requests (event streams, WebSockets) under
// the limits its Streams keeps; who asks and the refusals counted are the
// server's, given as plain funcs. It is a value the server builds when it
// needs one: it keeps nothing but what it is given.
type Streamer struct {
	*Streams
	// Identity names who makes r, for the limits by identity ("" for
	// none: the address's limit holds).
	Identity func(r *http.Request) string
	// Refused counts a refusal by reason.
	Refused func(reason string)
	// Lifetime bounds an event stream (a browser's EventSource reconnects
	// by itself); WriteTimeout each of its writes.
	Lifetime, WriteTimeout time.Duration
}

// Open counts a long-lived request of kind, or answers 429 and reports
// false when it is over a limit.
func (s Streamer) Open(w http.ResponseWriter, r *http.Request, kind string) (func(), bool) {
	release, reason := s.Streams.Open(kind, core.HostOf(r), s.Identity(r))
	if release == nil {
		s.Refused(reason)
		w.Header().Set("Retry-After", "10")
		what := map[string]string{
			"streams":              "the server has as many open streams as it allows",
			"streams-per-address":  fmt.Sprintf("your address has %d open streams, the most this server allows; close some (other tabs or bots)", s.perAddr),
			"streams-per-identity": fmt.Sprintf("your account has %d open streams, the most this server allows; close some (other tabs or bots)", s.perWho),
		}[reason]
		httpapi.WriteError(w, fmt.Errorf("%w: %s", ErrTooManyStreams, what))
		return nil, false
	}
	return release, true
}

// Limit serves h, a handler that holds its request open, counted as a
// long-lived request of kind while it runs.
func (s Streamer) Limit(kind string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, ok := s.Open(w, r, kind)
		if !ok {
			return
		}
		defer release()
		h.ServeHTTP(w, r)
	})
}

// Streamed serves an event stream of kind under the limits, for at most
// Lifetime, and drops a client that does not take a write within
// WriteTimeout, which the stream's lifted deadlines would otherwise let
// hold it for ever.
func (s Streamer) Streamed(kind string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		release, ok := s.Open(w, r, kind)
		if !ok {
			return
		}
		defer release()
		ctx, cancel := context.WithTimeout(r.Context(), s.Lifetime)
		defer cancel()
		h(&DeadlineWriter{ResponseWriter: w, RC: http.NewResponseController(w), Timeout: s.WriteTimeout, Fail: cancel}, r.WithContext(ctx))
	}
}

// ServeWS accepts a bot on the line protocol over WebSocket (lines of at
// most maxLine bytes) and hands its connection to serve, counted under the
// limits until the connection closes.
func (s Streamer) ServeWS(w http.ResponseWriter, r *http.Request, maxLine int, serve func(line.Transport)) {
	release, ok := s.Open(w, r, StreamWSBot)
	if !ok {
		return
	}
	netx.LongLived(w)
	c, err := websocket.Accept(w, r, nil) // a foreign Origin is refused; none is fine
	if err != nil {
		release()
		return
	}
	serve(&Releasing{Transport: line.NewWebSocket(c, maxLine, r.RemoteAddr), Release: release})
}

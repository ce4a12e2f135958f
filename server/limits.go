package server

import (
	"context"
	"errors"
	"fmt"
	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"kalah"
	"kalah/internal/netx"
	"kalah/player"
	"kalah/protocol/line"
)

// Every resource a stranger can reach has an owner and a limit. This file
// holds the limits that are the server's own: long-lived requests (event
// streams and WebSockets) by client address and by identity, open
// challenges by identity, and the thinking time of computer players the
// network starts. The rest are where their resource is: logins
// (Config.LoginRate), unfinished games (Config.MaxOpenGames), password
// hashing (store.SetHashers), listeners (netx.Caps), analysis (package
// web).

// Kinds of long-lived request, as counted in the metrics.
const (
	StreamEvents = "events" // GET /api/games/{id}/events
	StreamBoard  = "board"  // GET /api/games/{id}/board/events
	StreamWSBot  = "ws-bot" // /ws/bot: our protocol over WebSocket
	StreamKGPWS  = "kgp-ws" // /kgp: KGP over WebSocket (kalah serve)
	streamOther  = "other"  // anything else LimitStreams is given
)

var streamKinds = []string{StreamEvents, StreamBoard, StreamWSBot, StreamKGPWS, StreamSeek, streamOther}

// ErrTooManyStreams refuses a long-lived request over a limit.
var ErrTooManyStreams = fmt.Errorf("%w: too many open streams", ErrTooMany)

// streams counts the long-lived requests open, by client address (an IPv6
// client by its /64), by identity (a signed-in account) and in all.
type streams struct {
	mu      sync.Mutex
	byAddr  map[string]int
	byWho   map[string]int
	byKind  map[string]int
	total   int
	perAddr int
	perWho  int
	max     int
}

func newStreams(cfg *Config) *streams {
	return &streams{byAddr: map[string]int{}, byWho: map[string]int{}, byKind: map[string]int{},
		perAddr: cfg.MaxStreamsPerAddr, perWho: cfg.MaxStreamsPerIdentity, max: cfg.MaxStreams}
}

// open counts one more stream of kind for addr and who ("" for a guest),
// or says which limit refuses it.
func (l *streams) open(kind, addr, who string) (release func(), reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.max > 0 && l.total >= l.max:
		return nil, "streams"
	case l.perAddr > 0 && l.byAddr[addr] >= l.perAddr:
		return nil, "streams-per-address"
	case who != "" && l.perWho > 0 && l.byWho[who] >= l.perWho:
		return nil, "streams-per-identity"
	}
	l.total++
	l.byAddr[addr]++
	l.byKind[kind]++
	if who != "" {
		l.byWho[who]++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.total--
			l.byKind[kind]--
			if l.byAddr[addr]--; l.byAddr[addr] <= 0 {
				delete(l.byAddr, addr)
			}
			if who != "" {
				if l.byWho[who]--; l.byWho[who] <= 0 {
					delete(l.byWho, who)
				}
			}
		})
	}, ""
}

// count returns the streams of kind open now.
func (l *streams) count(kind string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byKind[kind]
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
	release, reason := s.streams.open(kind, hostOf(r), s.identity(r))
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
		h(&deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: s.cfg.WriteTimeout, fail: cancel}, r.WithContext(ctx))
	}
}

// deadlineWriter gives each write of a stream a deadline of its own.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	fail    context.CancelFunc // ends the stream's request after a failed write
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	n, err := w.ResponseWriter.Write(b)
	if err != nil {
		w.fail()
	}
	return n, err
}

// FlushError is what http.ResponseController.Flush calls.
func (w *deadlineWriter) FlushError() error {
	w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	err := w.rc.Flush()
	if err != nil {
		w.fail()
	}
	return err
}

// Flush makes the writer an http.Flusher.
func (w *deadlineWriter) Flush() { w.FlushError() }

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

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
	s.startConn(&releasing{Transport: line.NewWebSocket(c, s.cfg.MaxLine, r.RemoteAddr), release: release})
}

// releasing frees a connection's place under the stream limits when the
// connection closes.
type releasing struct {
	line.Transport
	release func()
}

func (t *releasing) Close() error {
	err := t.Transport.Close()
	t.release()
	return err
}

// challengesLocked counts the open challenges from a bot's connection or
// from a person's account (s.mu held). A bot's challenge left unanswered
// longer than a person's may wait (challengeTimeout) lapses here, so a bot
// whose challenges were ignored can challenge again.
func (s *Server) challengesLocked(from *conn, person string) int {
	n := 0
	for id, ch := range s.chals {
		switch {
		case from != nil && ch.from == from:
			if time.Since(ch.at) > challengeTimeout {
				delete(s.chals, id)
				continue
			}
			n++
		case person != "" && ch.person != nil && ch.person.who.Is(identity.Of(identity.Person, person)):
			n++
		}
	}
	return n
}

// challengeRefusal says why a new challenge is refused, or "" if it is
// not (s.mu held).
func (s *Server) challengeRefusalLocked(from *conn, person string) string {
	if s.challengesLocked(from, person) < s.cfg.MaxChallenges {
		return ""
	}
	s.refused("challenges")
	return strconv.Itoa(s.cfg.MaxChallenges) + " open challenges already, the most this server allows at once; wait for an answer or withdraw one"
}

// thinkLimited holds a computer player the network started to the
// server's thinking time a move (Limits.Time), whatever its spec or the
// game's clock say: a search to a fixed depth in a game without a clock is
// stopped there, with the best move of its last complete iteration, rather
// than pinning a core for minutes.
type thinkLimited struct {
	player.Player
	limit time.Duration
}

// thinkLimit wraps p in the server's thinking limit, if there is one.
func (s *Server) thinkLimit(p player.Player) player.Player {
	if p == nil || s.limits().Time <= 0 {
		return p
	}
	return &thinkLimited{Player: p, limit: s.limits().Time}
}

func (p *thinkLimited) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	if l := c.Limit(); l == 0 || l > p.limit {
		c.PerMove = p.limit
	}
	ctx, cancel := context.WithTimeout(ctx, p.limit)
	defer cancel()
	return p.Player.Move(ctx, g, c)
}

// Observe passes the game on to a player that follows it.
func (p *thinkLimited) Observe(ctx context.Context, g *kalah.Game) error {
	if o, ok := p.Player.(player.Observer); ok {
		return o.Observe(ctx, g)
	}
	return nil
}

// LastReport passes on the player's report, if it makes one.
func (p *thinkLimited) LastReport() player.Report {
	if r, ok := p.Player.(player.Reporter); ok {
		return r.LastReport()
	}
	return player.Report{}
}

// Close closes the player, if it holds anything.
func (p *thinkLimited) Close() error {
	if c, ok := p.Player.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
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

// everyMinute logs a line at most once a minute, saying how many it left
// out meanwhile: for what a crowd can cause a line each of (a burst of
// first logins refused as busy), which would otherwise be a stranger's
// lever on the log's volume.
type everyMinute struct {
	mu      sync.Mutex
	last    time.Time
	skipped int
}

// Log logs msg with args as a warning, unless it logged within the last
// minute.
func (e *everyMinute) Log(l *slog.Logger, msg string, args ...any) {
	e.mu.Lock()
	now := time.Now()
	if !e.last.IsZero() && now.Sub(e.last) < time.Minute {
		e.skipped++
		e.mu.Unlock()
		return
	}
	skipped := e.skipped
	e.last, e.skipped = now, 0
	e.mu.Unlock()
	l.Warn(msg, append(args, "unlogged_since_last", skipped)...)
}

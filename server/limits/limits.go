// Package limits holds the limits that are the server's own and need none
// of its other state: long-lived requests (event streams and WebSockets) by
// client address, by identity and in all, counted by Streams under a lock
// guarding nothing else; the deadline each write of a stream gets; the
// thinking time of computer players the network starts; and a log line at
// most once a minute. What needs the server (who makes a request, the
// refusals counted in its metrics, a bot's open challenges) stays in
// package server, in limits_host.go.
package limits

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"kalah"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/server/core"
)

// Every resource a stranger can reach has an owner and a limit. This
// package holds the limits that are the server's own: long-lived requests
// (event streams and WebSockets) by client address and by identity, and
// the thinking time of computer players the network starts. Open
// challenges by identity are counted in package server, which holds them.
// The rest are where their resource is: logins (Config.LoginRate),
// unfinished games (Config.MaxOpenGames), password hashing
// (store.SetHashers), listeners (netx.Caps), analysis (package web).

// Kinds of long-lived request, as counted in the metrics.
const (
	StreamEvents = "events" // GET /api/games/{id}/events
	StreamBoard  = "board"  // GET /api/games/{id}/board/events
	StreamWSBot  = "ws-bot" // /ws/bot: our protocol over WebSocket
	StreamKGPWS  = "kgp-ws" // /kgp: KGP over WebSocket (kalah serve)
	StreamSeek   = "seek"   // the lobby's seek stream
	StreamOther  = "other"  // anything else LimitStreams is given
)

// Kinds lists every kind of long-lived request, for the metrics.
var Kinds = []string{StreamEvents, StreamBoard, StreamWSBot, StreamKGPWS, StreamSeek, StreamOther}

// ErrTooManyStreams refuses a long-lived request over a limit.
var ErrTooManyStreams = fmt.Errorf("%w: too many open streams", core.ErrTooMany)

// Streams counts the long-lived requests open, by client address (an IPv6
// client by its /64), by identity (a signed-in account) and in all. Its
// lock guards nothing else.
type Streams struct {
	mu      sync.Mutex
	byAddr  map[string]int
	byWho   map[string]int
	byKind  map[string]int
	total   int
	perAddr int
	perWho  int
	max     int
}

// NewStreams makes a Streams that allows perAddr streams an address, perWho
// an identity and max in all (0: no limit).
func NewStreams(perAddr, perWho, max int) *Streams {
	return &Streams{byAddr: map[string]int{}, byWho: map[string]int{}, byKind: map[string]int{},
		perAddr: perAddr, perWho: perWho, max: max}
}

// Open counts one more stream of kind for addr and who ("" for a guest),
// or says which limit refuses it.
func (l *Streams) Open(kind, addr, who string) (release func(), reason string) {
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

// Count returns the streams of kind open now.
func (l *Streams) Count(kind string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byKind[kind]
}

// DeadlineWriter gives each write of a stream a deadline of its own.
type DeadlineWriter struct {
	http.ResponseWriter
	RC      *http.ResponseController
	Timeout time.Duration
	Fail    context.CancelFunc // ends the stream's request after a failed write
}

func (w *DeadlineWriter) Write(b []byte) (int, error) {
	w.RC.SetWriteDeadline(time.Now().Add(w.Timeout))
	n, err := w.ResponseWriter.Write(b)
	if err != nil {
		w.Fail()
	}
	return n, err
}

// FlushError is what http.ResponseController.Flush calls.
func (w *DeadlineWriter) FlushError() error {
	w.RC.SetWriteDeadline(time.Now().Add(w.Timeout))
	err := w.RC.Flush()
	if err != nil {
		w.Fail()
	}
	return err
}

// Flush makes the writer an http.Flusher.
func (w *DeadlineWriter) Flush() { w.FlushError() }

// Unwrap lets http.ResponseController reach the connection.
func (w *DeadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Releasing frees a connection's place under the stream limits when the
// connection closes.
type Releasing struct {
	line.Transport
	Release func()
}

// Close closes the connection and frees its place.
func (t *Releasing) Close() error {
	err := t.Transport.Close()
	t.Release()
	return err
}

// ThinkLimited holds a computer player the network started to the
// server's thinking time a move (Limits.Time), whatever its spec or the
// game's clock say: a search to a fixed depth in a game without a clock is
// stopped there, with the best move of its last complete iteration, rather
// than pinning a core for minutes.
type ThinkLimited struct {
	player.Player
	limit time.Duration
}

// ThinkLimit wraps p in the thinking limit, if there is one (limit > 0).
func ThinkLimit(p player.Player, limit time.Duration) player.Player {
	if p == nil || limit <= 0 {
		return p
	}
	return &ThinkLimited{Player: p, limit: limit}
}

// Move asks the player for a move within the thinking limit.
func (p *ThinkLimited) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	if l := c.Limit(); l == 0 || l > p.limit {
		c.PerMove = p.limit
	}
	ctx, cancel := context.WithTimeout(ctx, p.limit)
	defer cancel()
	return p.Player.Move(ctx, g, c)
}

// Observe passes the game on to a player that follows it.
func (p *ThinkLimited) Observe(ctx context.Context, g *kalah.Game) error {
	if o, ok := p.Player.(player.Observer); ok {
		return o.Observe(ctx, g)
	}
	return nil
}

// LastReport passes on the player's report, if it makes one.
func (p *ThinkLimited) LastReport() player.Report {
	if r, ok := p.Player.(player.Reporter); ok {
		return r.LastReport()
	}
	return player.Report{}
}

// Close closes the player, if it holds anything.
func (p *ThinkLimited) Close() error {
	if c, ok := p.Player.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// EveryMinute logs a line at most once a minute, saying how many it left
// out meanwhile: for what a crowd can cause a line each of (a burst of
// first logins refused as busy), which would otherwise be a stranger's
// lever on the log's volume.
type EveryMinute struct {
	mu      sync.Mutex
	last    time.Time
	skipped int
}

// Log logs msg with args as a warning, unless it logged within the last
// minute.
func (e *EveryMinute) Log(l *slog.Logger, msg string, args ...any) {
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

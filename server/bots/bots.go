package bots

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/server/core"
	"kalah/server/gate"
	"kalah/server/limits"
	"kalah/server/round"
	"kalah/server/views"
)

// Host is the rest of the server as the bots' side needs it. Bots never
// calls it while it holds a lock of its own.
type Host interface {
	// Context ends when the server stops.
	Context() context.Context
	// Seated returns the live game bot key has a seat in, or nil; Game
	// returns live game id, or nil (the server's round.Registry).
	Seated(key string) *round.Round
	Game(id int64) *round.Round
	// Wake tells the arranged games waiting for their bots that one may
	// be free now.
	Wake()
	// Start begins a game by the rules between two entries, the first as
	// South (seat 0), asked for by path; each entry hears its seat
	// (Entry.Begin) or why there is no game (Entry.Fail). StartHouse
	// begins g, a house game, so.
	Start(r kalah.Rules, es [2]*Entry, path gate.Path) error
	StartHouse(g *kalah.Game, es [2]*Entry) error
	// PersonGame begins the game of a person's challenge that bot
	// accepted; answer is what the person is answered (as JSON).
	PersonGame(p PersonChallenge, r kalah.Rules, bot identity.ID) (answer any, err error)
	// LiveGames lists the live games, for a bot's games command.
	LiveGames() []views.GameInfo
	// SignedIn returns the person signed in on r, or answers r and
	// reports false; AccountErr answers an account's failure.
	SignedIn(w http.ResponseWriter, r *http.Request, what string) (string, bool)
	AccountErr(w http.ResponseWriter, err error)
	// ThinkLimit wraps a house player in the server's thinking limit.
	ThinkLimit(p player.Player) player.Player
	// Refused counts a refusal by reason, in the server's metrics.
	Refused(reason string)
}

// Config configures the bots' side of a server.
type Config struct {
	// Wire is what each connection needs to know.
	Wire WireConfig
	// Store keeps the bots and their tokens.
	Store *store.Store
	// Rules are those of a queue entry or a challenge that names none.
	Rules kalah.Rules
	// MaxConns limits simultaneous connections; MaxChallenges the open
	// challenges of one bot or one person.
	MaxConns, MaxChallenges int
	// HouseBotAfter, if positive, gives a bot that waited alone in the
	// queue this long a game against HouseBot (house.go).
	HouseBotAfter time.Duration
	HouseBot      string
	// Logins is the token bucket for login attempts by address, shared
	// with the people's sign-ins.
	Logins *netx.Limiter
	Log    *slog.Logger
}

// Bots is the bots' side of a server: their connections, sessions, queue
// and challenges. Each part has a lock of its own that guards nothing
// else: the hub's the connections and listeners, the queue's the queue,
// the challenges' the challenges, the sessions' the sessions.
type Bots struct {
	cfg  Config
	host Host

	hub   hub
	queue queue
	chals challenges
	// sessions are the logged-in bots' connections, by identity key.
	sessions Sessions[*Conn]
	// kgp are the KGP connections of bots known by a token (tokens.go);
	// anonKGP the names of anonymous KGP clients (kgpjoin.go).
	kgp     KGPBots
	anonKGP Labels

	// returning bounds the logins of bots with a game in progress, by
	// name, once their address has used up its own (conn.go).
	returning *netx.Limiter
	// busyLogins are logins refused as busy, logged once a minute.
	busyLogins limits.EveryMinute
	// houseGames counts the house games started (house.go).
	houseGames atomic.Uint64
	// writeWaits counts the writes to connections that had to wait for
	// the client (WireConfig.Waits).
	writeWaits atomic.Uint64
}

// New returns the bots' side of a server on host.
func New(cfg Config, host Host) *Bots {
	if cfg.Logins == nil {
		cfg.Logins = netx.NewLimiter(2, 20)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	b := &Bots{cfg: cfg, host: host, returning: netx.NewLimiter(1, 3),
		hub:   hub{conns: map[*Conn]struct{}{}, listeners: map[net.Listener]struct{}{}},
		chals: challenges{by: map[string]*challenge{}}}
	if b.cfg.Wire.Waits == nil {
		b.cfg.Wire.Waits = &b.writeWaits
	}
	return b
}

// WriteWaits returns how many writes to the connections had to wait for
// their client: clients that fell behind, and WebSockets.
func (b *Bots) WriteWaits() uint64 { return b.cfg.Wire.Waits.Load() }

// Logins is the token bucket for logins by address.
func (b *Bots) Logins() *netx.Limiter { return b.cfg.Logins }

// hub holds the connections and the listeners; its lock guards nothing
// else.
type hub struct {
	mu        sync.Mutex
	conns     map[*Conn]struct{}
	listeners map[net.Listener]struct{}
	closed    bool
	wg        sync.WaitGroup // the connections' goroutines
}

// Serve accepts bot connections speaking the line protocol on l until
// Close; it returns nil after Close.
func (b *Bots) Serve(l net.Listener) error {
	h := &b.hub
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return core.ErrClosed
	}
	h.listeners[l] = struct{}{}
	h.mu.Unlock()
	var delay time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			h.mu.Lock()
			closed := h.closed
			h.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		b.StartConn(line.NewTCP(c, b.cfg.Wire.MaxLine))
	}
}

// Conns returns how many connections are open.
func (b *Bots) Conns() int {
	b.hub.mu.Lock()
	defer b.hub.mu.Unlock()
	return len(b.hub.conns)
}

// Close stops accepting connections and entries in the queue, and fails
// those waiting in it; Drop then tells every connection the server stops
// and closes it, and Wait waits for their goroutines.
func (b *Bots) Close() {
	h := &b.hub
	h.mu.Lock()
	h.closed = true
	for l := range h.listeners {
		l.Close()
	}
	h.mu.Unlock()
	for _, e := range b.queue.close() {
		e.Fail(core.ErrClosed)
	}
}

// Drop closes every connection, telling each the server is stopping.
func (b *Bots) Drop() {
	h := &b.hub
	h.mu.Lock()
	conns := make([]*Conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.SendMsg(line.Errorf(line.CodeShutdown, "the server is stopping"))
		c.Close()
	}
}

// Wait waits for the connections' goroutines.
func (b *Bots) Wait() { b.hub.wg.Wait() }

// Link returns the connection of bot key logged in, as a round sees it,
// or nil.
func (b *Bots) Link(key string) round.Link {
	if c := b.sessions.Get(key); c != nil {
		return c
	}
	return nil
}

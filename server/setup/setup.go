// Package setup is how the server's games are set up, started and
// resumed (lila's modules/setup): a game against the computer or between
// people asked for over the API or the page (StartGame), a rematch, an
// invitation's open seat, a game imported from elsewhere, and the
// unfinished games a restarted server finds in its store. Every game,
// however it was asked for, starts through Begin, after the gate.
//
// The module's only state is the rematches being made, under a lock of
// its own (one rematch at a time). It reaches the rest of the server
// through Host: the gate, the ratings, the rounds it starts.
package setup

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/referee"
	"kalah/server/gate"
	"kalah/server/round"
)

// Host is the rest of the server as the module sees it.
type Host interface {
	// Admit passes a game between seats through the gate, asked for by
	// path (addrs: each person's address, where known).
	Admit(path gate.Path, r kalah.Rules, seats [2]*round.Seat, addrs [2]string) (*gate.Ticket, error)
	// Ratable reports whether ids may be rated against each other.
	Ratable(ctx context.Context, ids [2]identity.ID) bool
	// ReserveRated takes one of the rated games ids may play with each
	// other today, if any is left (else n, the games they played).
	ReserveRated(ctx context.Context, ids [2]identity.ID) (ok bool, n int, release func())
	// StartRound registers a new round and starts its loop; nil if the
	// server is stopping.
	StartRound(su round.Setup) *round.Round
	// ServerPlayer builds a server-side player from spec, refusing
	// programs and settings the server does not allow.
	ServerPlayer(spec string, r kalah.Rules, seed uint64) (player.Player, error)
	// ThinkLimit wraps p in the server's thinking limit, if any.
	ThinkLimit(p player.Player) player.Player
	// AbandonArranged ends an arranged or tournament game found
	// unfinished after a restart: its tournament plays it again.
	AbandonArranged(sg store.Game) error
}

// Config is what the module needs of the server's configuration.
type Config struct {
	// Context is the server's: done when it stops.
	Context context.Context
	Store   *store.Store
	// Live are the live games (round.Registry).
	Live *round.Registry
	Log  *slog.Logger
	// Rules are the rules of a game that asks for none.
	Rules kalah.Rules
	// PerMove is the time a move of a game between computers with no
	// clock of its own.
	PerMove time.Duration
	// Referee is the server's clock, of games without one of their own.
	Referee referee.Referee
	// Hint, if set, suggests a move to a person in a casual game.
	Hint func(ctx context.Context, g *kalah.Game) (kalah.Move, error)
}

// Service sets up, starts and resumes games.
type Service struct {
	cfg  Config
	host Host
	ctx  context.Context
	st   *store.Store
	log  *slog.Logger

	rematchMu sync.Mutex // one rematch at a time; guards nothing else
}

// New returns the module for cfg and host.
func New(cfg Config, host Host) *Service {
	return &Service{cfg: cfg, host: host, ctx: cfg.Context, st: cfg.Store, log: cfg.Log}
}

// Package player defines what every kind of player is (built-in engines,
// humans, remote bots, external processes), the clock a player is given,
// and the registry that builds players from specs such as "pekar-tree:3"
// or "alphabeta:knowledge:time=2s".
package player

import (
	"context"
	"errors"
	"time"

	"kalah"
)

// Player chooses moves.
//
// Move is given the game (which it must not change) and its clock, and
// returns a legal move for the side to move: a house 1..n from the mover's
// left, or kalah.Swap. It must return promptly once ctx is done: an anytime
// player with its best move so far, any other with ctx.Err(). Players keep
// to the clock themselves; the referee forfeits a move that comes late.
type Player interface {
	Move(ctx context.Context, g *kalah.Game, c Clock) (kalah.Move, error)
}

// Clock is the time a player has for one move.
type Clock struct {
	// PerMove is the limit for this move alone (GameLink, the thesis); zero
	// means none.
	PerMove time.Duration
	// Remaining is what is left of a cumulative budget for the game
	// (Manchester); zero means there is no budget.
	Remaining time.Duration
	// Increment is added to the budget after each move.
	Increment time.Duration
}

// Limit returns the longest this move may take: the smaller of PerMove and
// Remaining, or zero if neither is set.
func (c Clock) Limit() time.Duration {
	switch {
	case c.PerMove == 0:
		return c.Remaining
	case c.Remaining == 0:
		return c.PerMove
	}
	return min(c.PerMove, c.Remaining)
}

// Budget returns how long a player that manages its own time should think:
// all of a per-move limit less a safety margin, or a share of a cumulative
// budget. Zero means no limit.
func (c Clock) Budget() time.Duration {
	var t time.Duration
	if c.Remaining > 0 {
		// Spread the budget over the moves likely left, and use the increment.
		t = c.Remaining/20 + c.Increment*3/4
	}
	if c.PerMove > 0 && (t == 0 || c.PerMove < t) {
		t = c.PerMove
	}
	if t == 0 {
		return 0
	}
	margin := t / 20
	margin = max(margin, time.Millisecond)
	margin = min(margin, 50*time.Millisecond)
	if t <= margin {
		return t / 2
	}
	return t - margin
}

// Report describes how a player chose its last move, for match tables and
// analysis.
type Report struct {
	Nodes uint64        // positions searched
	Depth int           // deepest completed iteration
	Score int           // the evaluation of the move from the mover's view, in the player's own units
	Exact bool          // Score is the proven final store difference
	PV    []kalah.Move  // the expected line
	Time  time.Duration // time spent
	Book  bool          // the move came from an opening book, without a search
}

// Reporter is implemented by players that can say how they chose their last
// move.
type Reporter interface {
	LastReport() Report
}

// Observer is implemented by players that want to see the game after every
// move, theirs and the opponent's, and once more when it ends (remote bots
// and processes whose protocols report every move).
type Observer interface {
	Observe(ctx context.Context, g *kalah.Game) error
}

// Errors a player returns to say why it could not move; the referee turns
// them into the matching forfeit.
var (
	ErrCrashed      = errors.New("player crashed")
	ErrDisconnected = errors.New("player disconnected")
	ErrProtocol     = errors.New("protocol error")
	ErrResigned     = errors.New("player resigned")
)

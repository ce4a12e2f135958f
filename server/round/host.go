package round

import (
	"context"
	"log/slog"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/protocol/line"
	"kalah/referee"
)

// Host is what a round needs of the server: its store, its ratings, its
// registry of live games and bots, its metrics and its settings. The
// round calls it from its loop, never holding a lock of its own.
type Host interface {
	// Context ends when the server stops: the round's loop ends then,
	// leaving the game live in the store for the next server.
	Context() context.Context
	Log() *slog.Logger
	Config() Config

	// AddMoveAsync stores move ply of game id, answering on the channel;
	// AddMove stores it and waits.
	AddMoveAsync(ctx context.Context, id int64, ply int, rm kalah.RecordMove) <-chan error
	AddMove(ctx context.Context, id int64, ply int, rm kalah.RecordMove) error
	// FinishGame stores the game's end and, if it counts, its rating, in
	// one write: a game never ends without the rating it earned. That the
	// rating alone could not be written is the Host's to log, not an
	// error.
	FinishGame(ctx context.Context, rec kalah.Record, g Rated) error
	// TakeBack stores the moves from ply on (what) as taken back.
	TakeBack(ctx context.Context, id int64, ply int, what string) error
	SetTag(ctx context.Context, id int64, tag, value string) error
	SetSeats(ctx context.Context, id int64, seats [2]store.Seat) error

	// UnratedWhy says why a finished game asked to be rated is not ("": it
	// counts, or was never rated).
	UnratedWhy(g *kalah.Game, opening int, tags map[string]string) string
	// Ratable reports whether ids may be rated against each other;
	// ReserveRated counts a rated game of the pair, if they have not
	// played too many today (else ok is false and n is how many).
	Ratable(ctx context.Context, ids [2]identity.ID) bool
	ReserveRated(ctx context.Context, ids [2]identity.ID) (ok bool, n int, release func())

	// Register makes r live, under the server's lock: its bots are
	// kept for it, and those logged in are given to attach. It reports
	// false if the server is stopping (and keeps nothing).
	Register(r *Round, seats [2]*Seat, attach func(seat int, c Link)) bool
	// Unregister forgets r as live (its loop has ended); Release frees its
	// bots for other games; Exited is told last, once the loop is gone.
	Unregister(r *Round)
	Release(r *Round, seats [2]*Seat)
	Exited()

	// CountMove counts a move and how long it waited, for the metrics.
	CountMove(d time.Duration)
	// MoveConfirmed counts a bot's move confirmed d after its line was
	// read, for the metrics.
	MoveConfirmed(d time.Duration)
}

// Rated is a finished game as its Host stores and rates it.
type Rated struct {
	ID    int64
	G     *kalah.Game
	Tags  map[string]string
	Ref   referee.Referee // the clocks, which name its ladder
	Seats [2]identity.ID  // the seat that started South first
	// BothMoved: each side has made a move of its own.
	BothMoved bool
}

// Config is the server's settings a round follows.
type Config struct {
	// AbortAfter is the time each side of a game with a person has for
	// its first move before the game is aborted.
	AbortAfter time.Duration
	// ClaimAfter is how long a person must not have moved, in a game
	// without a clock, before the opponent may claim the win.
	ClaimAfter time.Duration
	// AbandonAfter ends a game without a clock whose person, to move, has
	// been gone that long (0: never).
	AbandonAfter time.Duration
	// Reconnect is how long a bot may be away on its turn.
	Reconnect time.Duration
	// ResumeGrace is how long, after a restart, each player has to come
	// back before their clock runs.
	ResumeGrace time.Duration
	// AsyncMoves stores moves without waiting, before the game's end.
	AsyncMoves bool
	// Hints: the server has an analyser for hints.
	Hints bool
}

// Link is a bot's connection over our line protocol, as a round sees it:
// it is sent lines and told which game it plays.
type Link interface {
	// SendMsg sends the bot a line, without waiting.
	SendMsg(m line.Msg)
	// Queue queues a line to go with the next Flush (or SendMsg), so
	// that the lines of one change go out in one write; Flush sends
	// them, without waiting.
	Queue(m line.Msg)
	// QueueLine is Queue of a message formatted already (Msg.String).
	QueueLine(s string)
	Flush()
	// SetGame notes the round the bot now plays in; ClearGame forgets r,
	// which has ended.
	SetGame(r *Round)
	ClearGame(r *Round)
}

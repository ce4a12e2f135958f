package web

import (
	"context"
	"errors"
	"time"

	"kalah"
)

// Errors of the page's requests, matched with errors.Is; the handlers map
// them to HTTP status codes.
var (
	ErrNotFound  = errors.New("not found")
	ErrForbidden = errors.New("not your seat")
	ErrNotYours  = errors.New("not your turn")
	ErrNoSeat    = errors.New("no free seat")
	ErrNotCasual = errors.New("only in casual games")
	ErrBadInput  = errors.New("bad input")
	ErrBusy      = errors.New("too many games in progress; try again later")
	ErrTooMany   = errors.New("too many unfinished games of yours")
)

// Human is the spec of a seat played from a browser.
const Human = "human"

// NewGame asks for a game: the rules, a start position (empty for the
// rules' start), the two seats by the side they start on (a player spec,
// a level name, or "human"), and the clock.
type NewGame struct {
	Rules kalah.Rules `json:"rules"`
	Start string      `json:"start,omitempty"`
	South string      `json:"south"`
	North string      `json:"north"`
	Names [2]string   `json:"names,omitempty"`
	// PerMoveMillis limits each move; zero means no limit.
	PerMoveMillis int `json:"per_move_ms,omitempty"`
	// DelayMillis pauses before each move so people can follow.
	DelayMillis int `json:"delay_ms,omitempty"`
	// Casual games allow undo and hints.
	Casual bool `json:"casual"`
	// Seed feeds the computer players that draw at random.
	Seed uint64 `json:"seed,omitempty"`
	// Tournament, if set, names the tournament the game belongs to.
	Tournament string `json:"tournament,omitempty"`
	// Opening holds moves made before the players take over.
	Opening []kalah.Move `json:"opening,omitempty"`
	// PlayerSeeds, if not zero, seed each seat's player instead of Seed.
	PlayerSeeds [2]uint64 `json:"player_seeds,omitzero"`
}

// Created is a new game and the seat tokens of its creator.
type Created struct {
	ID string `json:"id"`
	// Tokens holds, for each human seat, the token that moves it; empty for
	// a computer seat and for a human seat left open for someone to join.
	Tokens [2]string `json:"tokens"`
}

// Seat describes one seat of a game.
type Seat struct {
	Name   string `json:"name"`
	Human  bool   `json:"human"`
	Joined bool   `json:"joined"`
	Spec   string `json:"spec,omitempty"`
}

// PlayedMove is one move of a game state, with the board after it.
type PlayedMove struct {
	Side    kalah.Side `json:"side"`
	Move    string     `json:"move"`
	Extra   bool       `json:"extra"`
	Capture bool       `json:"capture"`
	End     bool       `json:"end"`
	Pits    []int      `json:"pits"` // the board after the move, in sowing order
	Millis  int64      `json:"ms"`
}

// State is everything a page needs to draw a game.
type State struct {
	ID          string       `json:"id"`
	Version     int          `json:"version"`
	Rules       kalah.Rules  `json:"rules"`
	RulesText   string       `json:"rules_text"`
	Seats       [2]Seat      `json:"seats"`
	Start       []int        `json:"start"`
	StartText   string       `json:"start_text"`
	StartToMove kalah.Side   `json:"start_to_move"`
	Moves       []PlayedMove `json:"moves"`
	MoveText    string       `json:"move_text"`
	Position    string       `json:"position"`
	Pits        []int        `json:"pits"`
	ToMove      kalah.Side   `json:"to_move"`
	ToMoveSeat  int          `json:"to_move_seat"`
	Swapped     bool         `json:"swapped"`
	Legal       []string     `json:"legal"`
	Over        bool         `json:"over"`
	Result      kalah.Result `json:"result"`
	Termination string       `json:"termination,omitempty"`
	Reason      string       `json:"reason,omitempty"`
	Score       [2]int       `json:"score"`
	Casual      bool         `json:"casual"`
	PerMove     int          `json:"per_move_ms,omitempty"`
	Live        bool         `json:"live"`
	Tournament  string       `json:"tournament,omitempty"`
	Record      string       `json:"record"`
	// Rematch is the game after this one, once someone asked for it.
	Rematch string    `json:"rematch,omitempty"`
	Created time.Time `json:"created"`
}

// Summary is a line of the list of games.
type Summary struct {
	ID         string       `json:"id"`
	Players    [2]string    `json:"players"`
	Rules      string       `json:"rules"`
	Moves      int          `json:"moves"`
	Over       bool         `json:"over"`
	Live       bool         `json:"live"`
	Result     kalah.Result `json:"result"`
	Score      [2]int       `json:"score"`
	Tournament string       `json:"tournament,omitempty"`
	Created    time.Time    `json:"created"`
}

// Games is what the page needs of the games on the server: start them, list
// them, follow them and move their human seats. ServerGames is the one
// implementation; tests may give another.
type Games interface {
	Create(ctx context.Context, req NewGame) (Created, error)
	List() []Summary
	State(id string) (State, error)
	// Watch returns the state now and a channel closed at the next change.
	Watch(id string) (State, <-chan struct{}, error)
	Join(id string) (seat int, token string, err error)
	Move(ctx context.Context, id, token string, m kalah.Move) (State, error)
	Undo(id, token string) (State, error)
	Hint(ctx context.Context, id, token string) (kalah.Move, error)
	Resign(id, token string) (State, error)
	// Rematch starts the game after a finished one, sides exchanged, or
	// takes its open seat when the other player asked first.
	Rematch(id, token string) (Created, error)
}

// gameState describes g for the page; millis holds each move's time.
func gameState(g *kalah.Game, millis []int64) State {
	r := g.Rules()
	pos, start := g.Position(), g.Start()
	st := State{
		Rules: r, RulesText: r.String(),
		Start: pits(start), StartText: start.String(), StartToMove: start.ToMove(),
		MoveText: g.MoveText(), Position: pos.String(), Pits: pits(pos), ToMove: pos.ToMove(),
		ToMoveSeat: g.Seat(pos.ToMove()), Swapped: g.Swapped(), Over: g.Over(), Result: g.Result(),
		Score: [2]int{pos.Store(kalah.South), pos.Store(kalah.North)}, Record: g.String(),
		Moves: []PlayedMove{}, Legal: []string{},
	}
	if g.Over() {
		st.Termination = g.Termination().String()
	}
	for _, m := range g.Legal() {
		st.Legal = append(st.Legal, m.String())
	}
	for i, m := range g.Moves() {
		pm := PlayedMove{Side: m.Side, Move: m.Move.String(), Extra: m.Effect&kalah.Extra != 0,
			Capture: m.Effect&kalah.Capture != 0, End: m.Effect&kalah.End != 0, Pits: pits(g.PositionAt(i + 1))}
		if i < len(millis) {
			pm.Millis = millis[i]
		}
		st.Moves = append(st.Moves, pm)
	}
	if g.Over() && len(st.Moves) > 0 {
		// A forfeit changes the board after the last move.
		st.Moves[len(st.Moves)-1].Pits = pits(pos)
	}
	return st
}

func pits(p kalah.Position) []int {
	n := p.Houses()
	out := make([]int, 2*n+2)
	for i := range out {
		out[i] = p.Pit(i)
	}
	return out
}

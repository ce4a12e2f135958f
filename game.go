package kalah

import (
	"fmt"
	"maps"
	"slices"
)

// Played is one move of a game: who made it, which, and what it did.
type Played struct {
	Side   Side
	Move   Move
	Effect Effect
}

// Game is a game in progress or finished: the rules, the start, every move,
// and how it ended. It is the friendly counterpart of Position, for
// referees, interfaces and records; engines use Position directly.
//
// The players are named by the side they started on; after a pie-rule swap
// the player who started as North plays South (see Swapped and Player).
type Game struct {
	rules         Rules
	start         Position
	pos           Position
	history       []Position // history[i] is the position before moves[i]
	moves         []Played
	swapped       bool
	term          Termination
	result        Result
	beforeForfeit Position
	// shared is set once a Snapshot shares history and moves: the next
	// change that is not an append copies them first.
	shared bool

	// Players names the players who started as South and North.
	Players [2]string
	// Tags holds extra metadata kept in records (event, date, round...).
	Tags map[string]string
}

// NewGame starts a game under r.
func NewGame(r Rules) (*Game, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return NewGameFrom(r, r.Start())
}

// NewGameFrom starts a game under r from position p. A position that is
// already over ends the game at once.
func NewGameFrom(r Rules, p Position) (*Game, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if err := p.CheckRules(&r); err != nil {
		return nil, err
	}
	g := &Game{rules: r, start: p, pos: p}
	if g.pos.Settle(&g.rules) {
		g.term = Normal
		g.result = g.pos.Outcome()
	}
	return g, nil
}

// Rules returns the game's rules.
func (g *Game) Rules() Rules { return g.rules }

// RulesPtr returns the game's rules by reference, for Position methods; the
// caller must not change them.
func (g *Game) RulesPtr() *Rules { return &g.rules }

// Start returns the position the game started from.
func (g *Game) Start() Position { return g.start }

// Position returns the current position.
func (g *Game) Position() Position { return g.pos }

// ToMove returns the side to move.
func (g *Game) ToMove() Side { return g.pos.toMove }

// Moves returns every move played, in order.
func (g *Game) Moves() []Played { return slices.Clone(g.moves) }

// Len returns the number of moves played.
func (g *Game) Len() int { return len(g.moves) }

// Last returns the last move played, if any.
func (g *Game) Last() (Played, bool) {
	if len(g.moves) == 0 {
		return Played{}, false
	}
	return g.moves[len(g.moves)-1], true
}

// PositionAt returns the position before move i (0 <= i <= Len()); at
// Len() it is the current position.
func (g *Game) PositionAt(i int) Position {
	if i >= len(g.history) {
		return g.pos
	}
	return g.history[i]
}

// Played returns the position as the moves left it: before a forfeit gave
// the board to the winner (the stores as they stood), else Position.
func (g *Game) Played() Position {
	if g.term.IsForfeit() {
		return g.beforeForfeit
	}
	return g.pos
}

// Over reports whether the game has ended.
func (g *Game) Over() bool { return g.term != NotOver }

// Result returns the result, Ongoing until the game ends.
func (g *Game) Result() Result { return g.result }

// Termination says why the game ended, NotOver until it does.
func (g *Game) Termination() Termination { return g.term }

// Score returns the seeds in the South and North stores.
func (g *Game) Score() (south, north int) { return g.pos.Store(South), g.pos.Store(North) }

// Swapped reports whether the players swapped sides under the pie rule.
func (g *Game) Swapped() bool { return g.swapped }

// Seat returns the index in Players (0 for the player who started as South,
// 1 for North) of the player now playing side s.
func (g *Game) Seat(s Side) int {
	if g.swapped {
		return int(s.Other())
	}
	return int(s)
}

// PlayerSide returns the side that seat (0 for the player who started as
// South, 1 for North) now plays.
func (g *Game) PlayerSide(seat int) Side {
	s := Side(seat & 1)
	if g.swapped {
		return s.Other()
	}
	return s
}

// Player returns the name of the player now playing side s.
func (g *Game) Player(s Side) string { return g.Players[g.Seat(s)] }

// Legal returns the legal moves, none once the game is over.
func (g *Game) Legal() []Move {
	if g.Over() {
		return nil
	}
	return g.pos.Moves()
}

// IsLegal reports whether m may be played now.
func (g *Game) IsLegal(m Move) bool { return !g.Over() && g.pos.Legal(m) }

// Play makes move m for the side to move.
func (g *Game) Play(m Move) (Effect, error) {
	if g.Over() {
		return 0, ErrGameOver
	}
	before := g.pos
	eff, err := g.pos.Apply(&g.rules, m)
	if err != nil {
		return 0, err
	}
	g.history = append(g.history, before)
	g.moves = append(g.moves, Played{Side: before.toMove, Move: m, Effect: eff})
	if m == Swap {
		g.swapped = !g.swapped
	}
	if eff&End != 0 {
		g.term = Normal
		g.result = g.pos.Outcome()
	}
	return eff, nil
}

// Forfeit ends the game with loser losing for reason t: every seed left on
// the board goes to the winner's store.
func (g *Game) Forfeit(loser Side, t Termination) error {
	if g.Over() {
		return ErrGameOver
	}
	if !t.IsForfeit() {
		return fmt.Errorf("%s is not a forfeit", t)
	}
	if loser > North {
		return fmt.Errorf("forfeit by side %d: no such side", loser)
	}
	g.beforeForfeit = g.pos
	g.pos.Forfeit(loser.Other())
	g.term = t
	g.result = WinFor(loser.Other())
	return nil
}

// Adjudicate ends an unfinished game with result r decided by the referee;
// the board stays as it is.
func (g *Game) Adjudicate(r Result) error {
	if g.Over() {
		return ErrGameOver
	}
	if r == Ongoing {
		return fmt.Errorf("adjudication needs a result")
	}
	g.beforeForfeit = g.pos
	g.term = Adjudicated
	g.result = r
	return nil
}

// Abort calls an unfinished game off: it ends with no result (NoResult)
// and the board as it is.
func (g *Game) Abort() error {
	if g.Over() {
		return ErrGameOver
	}
	g.beforeForfeit = g.pos
	g.term = Aborted
	g.result = NoResult
	return nil
}

// AgreeDraw ends an unfinished game as a draw its players agreed; the
// board stays as it is.
func (g *Game) AgreeDraw() error {
	if g.Over() {
		return ErrGameOver
	}
	g.beforeForfeit = g.pos
	g.term = Agreement
	g.result = Draw
	return nil
}

// Undo takes back the last move, or the forfeit, adjudication or abort
// that ended the game.
func (g *Game) Undo() error {
	if g.term.IsForfeit() || g.term == Adjudicated || g.term == Aborted || g.term == Agreement {
		g.pos = g.beforeForfeit
		g.term, g.result = NotOver, Ongoing
		return nil
	}
	if len(g.moves) == 0 {
		return ErrNoUndo
	}
	last := g.moves[len(g.moves)-1]
	if last.Move == Swap {
		g.swapped = !g.swapped
	}
	g.pos = g.history[len(g.history)-1]
	g.history = g.history[:len(g.history)-1]
	g.moves = g.moves[:len(g.moves)-1]
	if g.shared {
		// A snapshot holds the move undone: the next move must not be
		// written over it.
		g.history, g.moves, g.shared = slices.Clone(g.history), slices.Clone(g.moves), false
	}
	g.term, g.result = NotOver, Ongoing
	return nil
}

// Snapshot returns a copy of g for readers, made in time independent of
// the game's length: it shares g's history and moves, which g only ever
// appends to (Undo copies them first once a snapshot shares them), so
// later moves of g never show in it. Playing on the snapshot itself copies
// them too (their capacity ends at their length). A server publishes one
// after every move for its readers, where Clone would copy the whole game
// a move.
func (g *Game) Snapshot() *Game {
	c := *g
	c.history = g.history[:len(g.history):len(g.history)]
	c.moves = g.moves[:len(g.moves):len(g.moves)]
	c.Tags = maps.Clone(g.Tags)
	c.shared = false
	g.shared = true
	return &c
}

// Clone returns an independent copy of the game.
func (g *Game) Clone() *Game {
	c := *g
	c.history = slices.Clone(g.history)
	c.moves = slices.Clone(g.moves)
	c.Tags = maps.Clone(g.Tags)
	c.shared = false
	return &c
}

// Turns groups the moves into turns: each turn is one side's chain of
// sowings (extra turns continue it); a swap is a turn of its own.
func (g *Game) Turns() [][]Played {
	var turns [][]Played
	var cur []Played
	for _, p := range g.moves {
		cur = append(cur, p)
		if p.Move == Swap || p.Effect&Extra == 0 || p.Effect&End != 0 {
			turns = append(turns, cur)
			cur = nil
		}
	}
	if cur != nil {
		turns = append(turns, cur)
	}
	return turns
}

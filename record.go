package kalah

import (
	"encoding/json"
	"fmt"
	"maps"
)

// Record is a game as JSON: one object a line in match and tournament
// files. It carries everything needed to replay and check the game.
type Record struct {
	Rules       Rules             `json:"rules"`
	Players     Players           `json:"players"`
	Swapped     bool              `json:"swapped,omitempty"` // a pie-rule swap: Players are as seated after it
	Start       string            `json:"start,omitempty"`   // set-up position, if not the rules' start
	Moves       []RecordMove      `json:"moves"`
	Final       Score             `json:"final"`
	Result      Result            `json:"result"`
	Termination Termination       `json:"termination"`
	Tags        map[string]string `json:"tags,omitempty"`
}

// Players names the players by the side each played at the end, the sides
// Final and Result speak of: after a pie-rule swap (Record.Swapped) the
// player named South started as North. A record written before Swapped
// existed names them by the side each started on; it has no Swapped flag
// and reads as before.
type Players struct {
	South string `json:"south"`
	North string `json:"north"`
}

// Score is the seeds in each store.
type Score struct {
	South int `json:"south"`
	North int `json:"north"`
}

// RecordMove is one move of a record. House counts 1..n from the mover's
// left; a swap has Swap set and no house. Millis is the time the mover
// took, where a referee measured it.
type RecordMove struct {
	Side   Side  `json:"side"`
	House  int   `json:"house,omitempty"`
	Swap   bool  `json:"swap,omitempty"`
	Millis int64 `json:"ms,omitempty"`
}

// Record returns the game as a record.
func (g *Game) Record() Record {
	rec := Record{
		Rules:       g.rules.Canonical(),
		Players:     Players{South: g.Player(South), North: g.Player(North)},
		Swapped:     g.Swapped(),
		Moves:       make([]RecordMove, len(g.moves)),
		Result:      g.result,
		Termination: g.term,
		Tags:        maps.Clone(g.Tags),
	}
	if g.start != g.rules.Start() {
		rec.Start = g.start.String()
	}
	for i, p := range g.moves {
		if p.Move == Swap {
			rec.Moves[i] = RecordMove{Side: p.Side, Swap: true}
		} else {
			rec.Moves[i] = RecordMove{Side: p.Side, House: int(p.Move)}
		}
	}
	rec.Final.South, rec.Final.North = g.Score()
	return rec
}

// SetPlayers names the players by the side each started on, South's
// first, storing them as the record keeps them: as seated at the end, so
// exchanged when the record has Swapped.
func (rec *Record) SetPlayers(startedSouth, startedNorth string) {
	rec.Players = Players{South: startedSouth, North: startedNorth}
	if rec.Swapped {
		rec.Players = Players{South: startedNorth, North: startedSouth}
	}
}

// Starters returns the players by the side each started on, South's
// first: Game.Players of the replayed game.
func (rec *Record) Starters() (south, north string) {
	if rec.Swapped {
		return rec.Players.North, rec.Players.South
	}
	return rec.Players.South, rec.Players.North
}

// Game replays the record, checking every move, the sides, the ending and
// the final score.
func (rec *Record) Game() (*Game, error) {
	r := rec.Rules
	if err := r.Validate(); err != nil {
		return nil, err
	}
	start := r.Start()
	if rec.Start != "" {
		var err error
		if start, err = ParsePosition(rec.Start); err != nil {
			return nil, err
		}
	}
	g, err := NewGameFrom(r, start)
	if err != nil {
		return nil, err
	}
	g.Players[0], g.Players[1] = rec.Starters()
	g.Tags = maps.Clone(rec.Tags)
	for i, m := range rec.Moves {
		if m.Side != g.ToMove() {
			return nil, fmt.Errorf("%w: move %d is by %s but %s is to move", ErrIllegalMove, i+1, m.Side, g.ToMove())
		}
		mv := Move(m.House)
		if m.Swap {
			if m.House != 0 {
				return nil, fmt.Errorf("%w: move %d is a swap with a house", ErrSyntax, i+1)
			}
			mv = Swap
		}
		if _, err := g.Play(mv); err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	if rec.Swapped && !g.Swapped() {
		return nil, fmt.Errorf("%w: the record says the players swapped, but its moves have no swap", ErrSyntax)
	}
	term := rec.Termination.String()
	if rec.Termination == NotOver && g.Over() {
		term = ""
	}
	final := fmt.Sprintf("%d-%d", rec.Final.South, rec.Final.North)
	if err := g.finish(rec.Result.Token(), term, final); err != nil {
		return nil, err
	}
	return g, nil
}

// MarshalJSON writes the game as its Record.
func (g *Game) MarshalJSON() ([]byte, error) { return json.Marshal(g.Record()) }

// UnmarshalJSON reads a Record and replays it.
func (g *Game) UnmarshalJSON(b []byte) error {
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return err
	}
	ng, err := rec.Game()
	if err != nil {
		return err
	}
	*g = *ng
	return nil
}

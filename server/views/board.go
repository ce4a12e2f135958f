package views

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
	"kalah/server/ratings"
	"kalah/server/round"
)

// Board is a game as a page draws it (GET /api/games/{id}/board): every
// move with the board after it, the seats, what may be played now, the
// record as text. It is the same game as GameView, shaped for people.
type Board struct {
	ID          string       `json:"id"`
	Version     int          `json:"version"` // grows with every change, across restarts too
	Rules       kalah.Rules  `json:"rules"`
	RulesText   string       `json:"rules_text"`
	Seats       [2]Seat      `json:"seats"`
	Start       []int        `json:"start"`
	StartText   string       `json:"start_text"`
	StartToMove kalah.Side   `json:"start_to_move"`
	Moves       []BoardMove  `json:"moves"`
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
	// Reason says in words why the game was forfeited, aborted or
	// adjudicated, if it was; Trouble why a live game waits.
	Reason     string    `json:"reason,omitempty"`
	Trouble    string    `json:"trouble,omitempty"`
	Score      [2]int    `json:"score"`
	Casual     bool      `json:"casual"`
	PerMove    int       `json:"per_move_ms,omitempty"`
	Live       bool      `json:"live"`
	Tournament string    `json:"tournament,omitempty"`
	Record     string    `json:"record"`
	Created    time.Time `json:"created"`
	// Rematch is the game after this one, once someone asked for it.
	Rematch string `json:"rematch,omitempty"`
	// A game on a clock: each player's time for the game and increment,
	// and each seat's time left as this answer was made (the clock of
	// Running, the seat to move, goes on from there; -1: none runs).
	ClockMS     int64    `json:"clock_ms,omitempty"`
	IncrementMS int64    `json:"increment_ms,omitempty"`
	RemainingMS [2]int64 `json:"remaining_ms"`
	Running     int      `json:"running"`
	// Watchers counts who follows the game.
	Watchers int `json:"watchers"`
	// TakebackAsk is the seat asking the other person to take back a move
	// (-1: none).
	TakebackAsk int `json:"takeback_ask"`
	// Takebacks: a takeback may be asked in this game (between people
	// unless it was started with takebacks refused; against the computer
	// in a casual game).
	Takebacks bool `json:"takebacks"`
	// DrawOffer is the seat offering the other a draw (-1: none); Draws:
	// a draw may be offered now (both sides have moved, and each seat is
	// a person or a bot of our line protocol, which can answer).
	DrawOffer int  `json:"draw_offer"`
	Draws     bool `json:"draws"`
	// Spectators counts who watches the game and plays no seat in it.
	Spectators int `json:"spectators"`
	// Stores are the stores as the moves left them: a forfeit (a
	// resignation, a timeout) then gives the seeds on the board to the
	// winner, which Score counts.
	Stores [2]int `json:"stores"`
	// Rated games: each seat's rating (after the game, with its change,
	// once it is over). RatedAsked: rated if the seat still open is taken
	// by someone who may be rated against the other.
	Rated      bool                   `json:"rated"`
	RatedAsked bool                   `json:"rated_asked,omitempty"`
	Ratings    [2]*ratings.SeatRating `json:"ratings"`
	// RatedLimit, for a game asked to be rated and played unrated because
	// its players had played that many rated games with each other today,
	// is that number; CasualNote says so in words.
	RatedLimit int    `json:"rated_limit,omitempty"`
	CasualNote string `json:"casual_note,omitempty"`
	// Unrated says why a game asked to be rated was not: it ended too early
	// to count.
	Unrated string `json:"unrated,omitempty"`
	// Abortable: a side has not moved yet, so either player may abort.
	Abortable bool `json:"abortable"`
	// GiveTimeMS is what a player adds to their opponent's clock
	// (moretime); zero where it is not offered.
	GiveTimeMS int64 `json:"give_time_ms,omitempty"`
	// ThinkingMS is how long the side to move had been thinking as this
	// answer was made (a live game whose turn has started): a page shows
	// a computer's thinking by it, honestly, whatever the clock.
	ThinkingMS int64 `json:"thinking_ms,omitempty"`
}

// Seat is one seat of a Board.
type Seat struct {
	Name string `json:"name"`
	// ID is who plays it ("user:alice", "guest:guest-...",
	// "program:expert", "bot:deep"; empty for nobody known): a page says
	// "you" where it is the viewer's own.
	ID     identity.ID `json:"id"`
	Human  bool        `json:"human"`
	Joined bool        `json:"joined"` // false: a person's seat waiting for someone (Join)
	Spec   string      `json:"spec,omitempty"`
	Away   bool        `json:"away,omitempty"` // a bot whose connection dropped
}

// BoardMove is one move of a Board, with the board after it.
type BoardMove struct {
	Side    kalah.Side `json:"side"`
	Move    string     `json:"move"`
	Extra   bool       `json:"extra"`
	Capture bool       `json:"capture"`
	End     bool       `json:"end"`
	Pits    []int      `json:"pits"` // in sowing order
	Millis  int64      `json:"ms"`
}

func pitsOf(p kalah.Position) []int {
	out := make([]int, 2*p.Houses()+2)
	for i := range out {
		out[i] = p.Pit(i)
	}
	return out
}

// BoardOf returns game id as a page draws it.
func (vs *Views) BoardOf(ctx context.Context, id int64) (Board, error) {
	v, err := vs.Game(ctx, id)
	if err != nil {
		return Board{}, err
	}
	g := v.game
	switch {
	case g != nil:
	case v.Status == store.Finished:
		g, err = v.Record.Game()
	default:
		g, err = store.Replay(v.Record)
	}
	if err != nil {
		return Board{}, fmt.Errorf("game %d: %w", id, err)
	}
	r := g.Rules()
	pos, start := g.Position(), g.Start()
	b := Board{ID: strconv.FormatInt(id, 10), Rules: r, RulesText: r.String(),
		Start: pitsOf(start), StartText: start.String(), StartToMove: start.ToMove(),
		MoveText: g.MoveText(), Position: pos.String(), Pits: pitsOf(pos), ToMove: pos.ToMove(),
		ToMoveSeat: g.Seat(pos.ToMove()), Swapped: g.Swapped(), Over: g.Over(), Result: g.Result(),
		Score: [2]int{pos.Store(kalah.South), pos.Store(kalah.North)}, Record: g.String(),
		Moves: []BoardMove{}, Legal: []string{},
		Live: v.Status == store.Live, PerMove: int(v.PerMoveMS), Casual: v.Casual, Created: v.Created,
		Tournament: cmp.Or(v.Record.Tags[core.TournamentTag], v.Record.Tags[core.PeopleTournamentTag]), Reason: v.Reason}
	if g.Over() {
		b.Termination = g.Termination().String()
	}
	for _, m := range g.Legal() {
		b.Legal = append(b.Legal, m.String())
	}
	for i, m := range g.Moves() {
		bm := BoardMove{Side: m.Side, Move: m.Move.String(), Extra: m.Effect&kalah.Extra != 0,
			Capture: m.Effect&kalah.Capture != 0, End: m.Effect&kalah.End != 0, Pits: pitsOf(g.PositionAt(i + 1))}
		if i < len(v.Record.Moves) {
			bm.Millis = v.Record.Moves[i].Millis
		}
		b.Moves = append(b.Moves, bm)
	}
	if g.Over() && len(b.Moves) > 0 {
		// A forfeit changes the board after the last move.
		b.Moves[len(b.Moves)-1].Pits = pitsOf(pos)
	}
	joined := 0
	for i, name := range [2]string{v.South, v.North} {
		b.Seats[i] = Seat{Name: name, ID: v.IDs[i], Human: v.Human[i], Joined: !v.Open[i], Spec: v.Specs[i], Away: v.Away[i]}
		if !v.Open[i] {
			joined++
		}
	}
	if next := v.Record.Tags[core.RematchTag]; next != "" {
		b.Rematch = next
	}
	// An aborted game counts for no one: it is not rated, whatever it was
	// asked to be.
	b.Rated = v.Record.Tags[core.TagRated] == "yes" && g.Termination() != kalah.Aborted
	b.RatedLimit, _ = strconv.Atoi(v.Record.Tags[core.TagRatedLimit])
	b.CasualNote = ratings.CasualNote(v.Record.Tags, identity.ID{}, v.IDs, [2]string{v.South, v.North})
	b.Unrated = v.Record.Tags[core.TagUnrated]
	b.RatedAsked = v.Record.Tags[core.TagRatedAsked] == "yes" && !b.Rated && !g.Over() && b.RatedLimit == 0
	b.TakebackAsk = v.TakebackAsk
	b.DrawOffer = v.DrawOffer
	b.Spectators = v.Spectators
	played := g.Played()
	b.Stores = [2]int{played.Store(kalah.South), played.Store(kalah.North)}
	if v.Human[0] && v.Human[1] {
		b.Takebacks = v.Record.Tags[core.TagNoTakebacks] != "yes"
	} else {
		b.Takebacks = v.Casual && (v.Specs[0] != "" || v.Specs[1] != "")
	}
	b.Watchers = v.Watchers
	b.Trouble = v.Trouble
	b.Ratings = vs.h.SeatRatings(ctx, v, [2]store.Seat{{ID: v.IDs[0]}, {ID: v.IDs[1]}})
	opening, _ := strconv.Atoi(v.Record.Tags[core.TagOpening])
	b.Abortable = !g.Over() && (v.Human[0] || v.Human[1]) && !(round.MovedBy(g, opening, 0) && round.MovedBy(g, opening, 1))
	b.Draws = v.draws && !g.Over() && round.MovedBy(g, opening, 0) && round.MovedBy(g, opening, 1)
	b.Running = -1
	if v.live && v.running >= 0 && !v.TurnStarted.IsZero() {
		b.ThinkingMS = max(time.Since(v.TurnStarted).Milliseconds(), 0)
	}
	given := round.Given(v.Record.Tags)
	if cl, inc := v.ClockMS, v.IncrementMS; cl > 0 {
		b.ClockMS, b.IncrementMS = cl, inc
		if v.Human[0] && v.Human[1] && !g.Over() {
			b.GiveTimeMS = round.GiveTime.Milliseconds()
		}
		if v.live {
			b.RemainingMS = v.RemainingMS
			if v.running >= 0 {
				b.Running = v.running
				b.RemainingMS[b.Running] -= time.Since(v.TurnStarted).Milliseconds()
			}
		} else {
			b.RemainingMS = [2]int64{cl + given[0].Milliseconds(), cl + given[1].Milliseconds()}
			seats := round.MoveSeats(g)
			for i, m := range v.Record.Moves {
				b.RemainingMS[seats[i]] += inc - m.Millis
			}
		}
		if g.Termination() == kalah.Timeout {
			// The last turn's time, spent to the end, is in no move.
			loser := kalah.South
			if g.Result() == kalah.SouthWins {
				loser = kalah.North
			}
			b.RemainingMS[g.Seat(loser)] = 0
		}
		for i := range b.RemainingMS {
			b.RemainingMS[i] = max(b.RemainingMS[i], 0)
		}
	}
	takebacks := 0
	if tb := v.Record.Tags[store.TakebackTag]; tb != "" {
		takebacks = strings.Count(tb, ";") + 1
	}
	// Over counts twice: when the last move ends the game, and when the
	// game is stored finished (with its ratings and reason).
	over := 0
	if g.Over() {
		over = 1
	}
	// ... stored with its ratings, if rated: the rating follows the
	// finish by a moment, and the page must see it.
	if v.Status == store.Finished && (!b.Rated || b.Ratings[0] != nil && b.Ratings[0].Change != nil) {
		over = 2
	}
	gifts := int((given[0] + given[1]) / round.GiveTime)
	b.Version = (((takebacks*10_000+g.Len())*3+joined)*3+over)*64 + gifts%64
	return b, nil
}

// Package views is what the API and the page show of games: the JSON
// views of a game (GameInfo, GameView, Board) and their building, from a
// live round's view or from the store, the routes that answer and stream
// them (http.go), and a player's page (profile.go). It keeps no state of
// its own: what it needs of the server (the live rounds, the store, the
// seats' ratings, a game's settings, who asks) it asks its Host.
package views

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/ratings"
	"kalah/server/round"
	"kalah/server/social"
)

// Host is what the views need of the server.
type Host interface {
	// Rounds returns the rounds being played, in no order.
	Rounds() []*round.Round
	// Round returns live game id's round, nil if it is not being played.
	Round(id int64) *round.Round
	// Stored returns game id as the store keeps it (store.ErrNotFound if
	// there is none).
	Stored(ctx context.Context, id int64) (store.Game, error)
	// Games returns the stored games f selects.
	Games(ctx context.Context, f store.Filter) ([]store.Game, error)
	// Settings returns a stored game's casualness and referee, from its
	// tags (the server's referee where the tags name none).
	Settings(tags map[string]string) (casual bool, ref referee.Referee)
	// SeatRatings returns the ratings of a game's seats (nil for seats
	// that hold none, or a game that is not rated).
	SeatRatings(ctx context.Context, v GameView, seats [2]store.Seat) [2]*ratings.SeatRating
	// ImportedGame returns the id of the game imported with an older
	// release's page id webID; ImportGame imports one.
	ImportedGame(ctx context.Context, webID string) (int64, error)
	ImportGame(ctx context.Context, im Imported) (int64, error)
	// Context ends when the server stops, and with it every stream.
	Context() context.Context
	// Identity returns the identity of the player named name
	// (store.ErrNotFound if there is none).
	Identity(ctx context.Context, name string) (identity.ID, error)
	// Actor returns who makes r, making no guest.
	Actor(w http.ResponseWriter, r *http.Request) core.Actor
	// ActorErr returns who makes r, a bot or a seat by token if given,
	// making no guest; an error if the store cannot tell a session.
	ActorErr(w http.ResponseWriter, r *http.Request, token string) (core.Actor, error)
	// Archive returns games as who's archive, a row for each in order;
	// Relation how many follow player, and whether r's reader does
	// (package social).
	Archive(ctx context.Context, games []social.Game, who identity.ID) []social.ArchiveRow
	Relation(r *http.Request, player identity.ID) (followers int, following bool)
	// ChatFeed returns the chat lines of game id that a may read, as they
	// are written, and a function to stop.
	ChatFeed(ctx context.Context, id int64, a core.Actor) (<-chan store.ChatLine, func())
}

// Views builds the views of games; it keeps no state.
type Views struct {
	h Host
}

// New returns the views of h's games.
func New(h Host) *Views { return &Views{h: h} }

// GameInfo sums up a game for lists.
type GameInfo struct {
	ID     int64        `json:"id"`
	Status store.Status `json:"status"`
	Rules  kalah.Rules  `json:"rules"`
	// South and North name the players (the one who started as South
	// first); SouthID and NorthID are who they are ("user:alice",
	// "guest:guest-...", "program:expert"; empty for a player of an older
	// release known by no identity), for a page to say "you".
	South       string            `json:"south"`
	North       string            `json:"north"`
	SouthID     identity.ID       `json:"south_id"`
	NorthID     identity.ID       `json:"north_id"`
	Plies       int               `json:"plies"`
	Position    string            `json:"position"` // kalah notation; live games only
	Result      kalah.Result      `json:"result"`
	Termination kalah.Termination `json:"termination"`
	Score       kalah.Score       `json:"score"`
	Created     time.Time         `json:"created,omitzero"`
	Finished    time.Time         `json:"finished,omitzero"`
	// Tags are the game's stored tags: its settings, its tournament, why
	// it was forfeited (Reason), its takebacks.
	Tags map[string]string `json:"tags,omitempty"`
	// Watchers counts who follows a live game: its event streams and the
	// spectators on our protocol (players' pages included).
	Watchers int `json:"watchers,omitempty"`
	// Spectators counts those of Watchers who play no seat: the people
	// watching, as a page says ("3 watching").
	Spectators int `json:"spectators,omitempty"`
}

// GameView is one game in full: its record and, while it is played, its
// live state.
type GameView struct {
	GameInfo
	Record kalah.Record `json:"record"`
	// Live state, for games being played:
	ToMove    kalah.Side `json:"to_move"`
	Swapped   bool       `json:"swapped"`
	Legal     []int      `json:"legal"` // houses the side to move may sow; -1 for swap
	Away      [2]bool    `json:"away"`  // by seat: a bot whose connection dropped, a person gone
	Human     [2]bool    `json:"human"` // by seat: a person's seat
	Open      [2]bool    `json:"open"`  // by seat: a person's seat nobody has taken yet (Join)
	Casual    bool       `json:"casual"`
	DelayMS   int64      `json:"delay_ms"`
	PerMoveMS int64      `json:"per_move_ms"`
	// ClockMS and IncrementMS are each player's time for the game and
	// what a move adds to it, when the game has a clock for the game.
	ClockMS     int64 `json:"clock_ms,omitempty"`
	IncrementMS int64 `json:"increment_ms,omitempty"`
	// RemainingMS is each seat's budget left when the game has one, as of
	// TurnStarted for the seat to move.
	RemainingMS [2]int64  `json:"remaining_ms"`
	TurnStarted time.Time `json:"turn_started,omitzero"`
	// Reason says in words why the game ended, if it was forfeited,
	// aborted or adjudicated.
	Reason string `json:"reason,omitempty"`
	// Trouble says in words why a live game waits (the server cannot
	// store it now and keeps trying).
	Trouble string `json:"trouble,omitempty"`
	// Specs are the computer players' specs, by seat ("" for others).
	Specs [2]string `json:"specs"`
	// IDs are who plays each seat (as SouthID and NorthID).
	IDs [2]identity.ID `json:"ids"`
	// TakebackAsk is the seat asking the other person to take back a move
	// (-1: none); DrawOffer the seat offering a draw (-1: none).
	TakebackAsk int `json:"takeback_ask"`
	DrawOffer   int `json:"draw_offer"`
	// live: the view is a round's, not the store's; game is its game.
	live bool
	game *kalah.Game
	// running is the seat whose clock runs (-1: none).
	running int
	// draws: both seats can answer a draw offer (a live game's).
	draws bool
}

// LiveGame returns a live view's game, as its round plays it (nil for a
// view of the store).
func (v GameView) LiveGame() *kalah.Game { return v.game }

// LiveGames returns the games being played, oldest first.
func (vs *Views) LiveGames() []GameInfo {
	rounds := vs.h.Rounds()
	out := make([]GameInfo, 0, len(rounds))
	for _, r := range rounds {
		if v := r.View(); v != nil {
			out = append(out, viewInfo(v, r.ID()))
		}
	}
	slices.SortFunc(out, func(a, b GameInfo) int { return int(a.ID - b.ID) })
	return out
}

// PlayedBy returns the live games any of players plays, oldest first.
func (vs *Views) PlayedBy(players []identity.ID) []GameInfo {
	var out []GameInfo
	for _, g := range vs.LiveGames() {
		if slices.ContainsFunc(players, func(id identity.ID) bool { return id.Is(g.SouthID) || id.Is(g.NorthID) }) {
			out = append(out, g)
		}
	}
	return out
}

func viewInfo(v *round.View, id int64) GameInfo {
	g := v.G
	s, n := g.Score()
	st := store.Live
	if v.Over {
		st = store.Finished
	}
	return GameInfo{ID: id, Status: st, Rules: g.Rules(), South: v.Seats[0].Name, North: v.Seats[1].Name,
		SouthID: v.Seats[0].ID, NorthID: v.Seats[1].ID,
		Plies: g.Len(), Position: g.Position().String(), Result: g.Result(), Termination: g.Termination(),
		Score: kalah.Score{South: s, North: n}, Tags: v.Tags, Created: v.Created, Watchers: v.Watchers, Spectators: v.Spectators}
}

// InfoOf sums up a stored game.
func InfoOf(sg store.Game) GameInfo {
	return GameInfo{ID: sg.ID, Status: sg.Status, Rules: sg.Record.Rules, South: sg.Seats[0].Name, North: sg.Seats[1].Name,
		SouthID: sg.Seats[0].ID, NorthID: sg.Seats[1].ID, Plies: sg.Plies, Result: sg.Record.Result, Termination: sg.Record.Termination,
		Score: sg.Record.Final, Created: sg.Created, Finished: sg.Finished, Tags: sg.Record.Tags}
}

// FinishedGames returns up to limit finished games from the store, newest
// first, with ids below before (0: from the newest); who, if set, keeps
// only that identity's games.
func (vs *Views) FinishedGames(ctx context.Context, limit int, before int64, who identity.ID) ([]GameInfo, error) {
	games, err := vs.h.Games(ctx, store.Filter{Status: store.Finished, Limit: limit, Before: before, Player: who})
	if err != nil {
		return nil, err
	}
	out := make([]GameInfo, len(games))
	for i, g := range games {
		out[i] = InfoOf(g)
	}
	return out, nil
}

// Game returns game id: its stored record and, if it is being played, its
// live state.
func (vs *Views) Game(ctx context.Context, id int64) (GameView, error) {
	var lv *round.View
	if rd := vs.h.Round(id); rd != nil {
		lv = rd.View()
	}
	if lv != nil && !lv.Ended {
		return liveView(id, lv), nil
	}
	sg, err := vs.h.Stored(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return GameView{}, fmt.Errorf("game %d: %w", id, core.ErrNotFound)
	}
	if err != nil {
		return GameView{}, err
	}
	v := GameView{GameInfo: InfoOf(sg), Record: sg.Record, Reason: sg.Record.Tags[core.ReasonTag], TakebackAsk: -1, DrawOffer: -1, running: -1}
	for i, seat := range sg.Seats {
		if seat.Kind == "spec" {
			v.Specs[i] = seat.Spec
		}
		v.IDs[i] = seat.ID
		v.Human[i] = seat.Kind == "human"
		v.Open[i] = seat.Open
	}
	casual, ref := vs.h.Settings(sg.Record.Tags)
	v.Casual = casual
	v.PerMoveMS, v.DelayMS = ref.PerMove.Milliseconds(), ref.Delay.Milliseconds()
	v.ClockMS, v.IncrementMS = ref.Budget.Milliseconds(), ref.Increment.Milliseconds()
	return v, nil
}

// liveView returns a live game as GameView shows it, from its round's view.
func liveView(id int64, lv *round.View) GameView {
	g := lv.G
	rec := g.Record()
	rec.Tags = maps.Clone(lv.Tags)
	for i := range rec.Moves {
		if i < len(lv.Millis) {
			rec.Moves[i].Millis = lv.Millis[i]
		}
	}
	v := GameView{GameInfo: viewInfo(lv, id), Record: rec, Reason: lv.Reason, Trouble: lv.Trouble, TakebackAsk: lv.TakebackAsk,
		DrawOffer: lv.DrawOffer, live: true, draws: lv.Draws, running: lv.Running, game: g}
	v.Score = rec.Final
	v.ToMove = g.ToMove()
	v.Swapped = g.Swapped()
	for _, m := range g.Legal() {
		v.Legal = append(v.Legal, int(m))
	}
	for i, st := range lv.Seats {
		if st.Kind == "spec" {
			v.Specs[i] = st.Spec
		}
		v.IDs[i] = st.ID
		v.Human[i] = st.Kind == "human"
		v.Open[i] = st.Open
		v.Away[i] = lv.Away[i]
		if lv.Ref.Budget > 0 {
			v.RemainingMS[i] = lv.Left[i].Milliseconds()
		}
	}
	v.Casual = lv.Casual
	v.ClockMS, v.IncrementMS = lv.Ref.Budget.Milliseconds(), lv.Ref.Increment.Milliseconds()
	v.PerMoveMS = lv.Ref.PerMove.Milliseconds()
	v.DelayMS = lv.Ref.Delay.Milliseconds()
	v.TurnStarted = lv.TurnAt
	return v
}

package social

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/rating"
	"kalah/referee"
	"kalah/server/core"
)

// A profile tells the truth: each game of the archive from the player's
// side (whom they played, at what rating, under which clock, rated or
// casual, won or lost), and the ladders one by one.

// Game is what a player's archive needs of a finished game.
type Game struct {
	ID int64
	// South and North name the players (the one who started as South
	// first), SouthID and NorthID are who they are.
	South, North     string
	SouthID, NorthID identity.ID
	Rules            kalah.Rules
	Result           kalah.Result
	Termination      kalah.Termination
	Tags             map[string]string
}

// ArchiveRow is a finished game in a player's archive, seen from their
// side: what the server's summary of the game is given beside it.
type ArchiveRow struct {
	// Seat is the player's seat (0: the one that started South).
	Seat int `json:"seat"`
	// Opponent is whom they played, by name and identity.
	Opponent   string      `json:"opponent"`
	OpponentID identity.ID `json:"opponent_id"`
	// Outcome is the game for the player: "won", "lost", "draw" or
	// "aborted".
	Outcome string `json:"outcome"`
	// Side is the side the player played ("S" or "N", after a pie rule's
	// swap): their store in Score, for a page to give their score first.
	Side kalah.Side `json:"side"`
	// TimeControl is the clock in words: "3+2" (minutes and seconds a
	// move), "10 s a move", or "no clock".
	TimeControl string `json:"time_control"`
	Rated       bool   `json:"rated"`
	Casual      bool   `json:"casual"`
	// Rating and OpponentRating are the players' ratings after a rated
	// game, Change what it changed for the player.
	Rating         *int `json:"rating,omitempty"`
	Change         *int `json:"change,omitempty"`
	OpponentRating *int `json:"opponent_rating,omitempty"`
}

// Archive returns games as who's archive: a row for each, in order.
func (m *Social[G]) Archive(ctx context.Context, games []Game, who identity.ID) []ArchiveRow {
	out := make([]ArchiveRow, 0, len(games))
	ids := make([]int64, len(games))
	for i, g := range games {
		ids[i] = g.ID
	}
	ratings, err := m.st.GamesRatings(ctx, ids)
	if err != nil {
		ratings = nil // the rows without their ratings, rather than none
	}
	for _, g := range games {
		a := ArchiveRow{Opponent: g.North, OpponentID: g.NorthID}
		if !who.Is(g.SouthID) && who.Is(g.NorthID) {
			a.Seat, a.Opponent, a.OpponentID = 1, g.South, g.SouthID
		}
		ref, casual := m.host.Setup(g.Tags)
		a.TimeControl, a.Casual, a.Rated = timeControl(ref), casual, g.Tags[core.TagRated] == "yes" && g.Termination != kalah.Aborted
		a.Outcome = m.outcome(ctx, g, a.Seat)
		a.Side = kalah.South
		if (a.Seat == 1) != m.swapped(ctx, g) {
			a.Side = kalah.North
		}
		for _, c := range ratings[g.ID] {
			after := int(c.After.Rating + 0.5)
			switch {
			case c.ID.Is(who):
				d := after - int(c.Before+0.5)
				a.Rating, a.Change = &after, &d
			case c.ID.Is(a.OpponentID):
				a.OpponentRating = &after
			}
		}
		out = append(out, a)
	}
	return out
}

// outcome says how finished game g went for seat.
func (m *Social[G]) outcome(ctx context.Context, g Game, seat int) string {
	switch {
	case g.Termination == kalah.Aborted:
		return "aborted"
	case g.Result == kalah.Draw:
		return "draw"
	case g.Result != kalah.SouthWins && g.Result != kalah.NorthWins:
		return g.Result.String()
	}
	winner := 0 // the seat that started South, unless the sides were swapped
	if g.Result == kalah.NorthWins {
		winner = 1
	}
	if m.swapped(ctx, g) {
		winner = 1 - winner
	}
	if winner == seat {
		return "won"
	}
	return "lost"
}

// swapped reports whether finished game g's players exchanged sides by
// the pie rule.
func (m *Social[G]) swapped(ctx context.Context, g Game) bool {
	if !g.Rules.Pie {
		return false
	}
	if sg, err := m.st.Game(ctx, g.ID); err == nil {
		if kg, err := sg.Record.Game(); err == nil && kg.Swapped() {
			return true
		}
	}
	return false
}

// timeControl says a game's clock in words, as lichess writes it.
func timeControl(ref referee.Referee) string {
	switch {
	case ref.Budget > 0:
		min := ref.Budget.Minutes()
		m := strconv.FormatFloat(min, 'f', -1, 64)
		if min < 1 && min*4 == float64(int(min*4)) {
			m = map[float64]string{0.25: "¼", 0.5: "½", 0.75: "¾"}[min]
		}
		return fmt.Sprintf("%s+%s", m, strconv.FormatFloat(ref.Increment.Seconds(), 'f', -1, 64))
	case ref.PerMove > 0:
		return fmt.Sprintf("%v a move", ref.PerMove.Round(time.Millisecond))
	}
	return "no clock"
}

// Relation says what a profile says of its reader's relation to player:
// how many follow them, and whether the reader does.
func (m *Social[G]) Relation(r *http.Request, player identity.ID) (followers int, following bool) {
	followers, _ = m.st.Followers(r.Context(), player)
	if me, err := m.follower(r); err == nil {
		if ids, err := m.st.Following(r.Context(), me); err == nil {
			for _, id := range ids {
				following = following || id.Is(player)
			}
		}
	}
	return followers, following
}

// Pools answers the rating ladders, the busiest first, each with its
// players, established and provisional (GET /api/ratings/pools).
func (m *Social[G]) Pools(w http.ResponseWriter, r *http.Request) {
	pools, err := m.st.Pools(r.Context(), rating.ProvisionalRD)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if pools == nil {
		pools = []store.Pool{}
	}
	httpapi.WriteJSON(w, http.StatusOK, pools)
}

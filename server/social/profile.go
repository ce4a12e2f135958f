package server

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
)

// A profile tells the truth: each game of the archive from the player's
// side (whom they played, at what rating, under which clock, rated or
// casual, won or lost), and the ladders one by one.

// ArchiveGame is a finished game in a player's archive, seen from their
// side.
type ArchiveGame struct {
	GameInfo
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

// archive returns games as who's archive.
func (s *Server) archive(ctx context.Context, games []GameInfo, who identity.ID) []ArchiveGame {
	out := make([]ArchiveGame, 0, len(games))
	ids := make([]int64, len(games))
	for i, g := range games {
		ids[i] = g.ID
	}
	ratings, err := s.st.GamesRatings(ctx, ids)
	if err != nil {
		ratings = nil // the rows without their ratings, rather than none
	}
	for _, g := range games {
		a := ArchiveGame{GameInfo: g, Opponent: g.North, OpponentID: g.NorthID}
		if !who.Is(g.SouthID) && who.Is(g.NorthID) {
			a.Seat, a.Opponent, a.OpponentID = 1, g.South, g.SouthID
		}
		su := s.setupOf(g.Tags)
		ref := s.referee()
		if su.ref != nil {
			ref = *su.ref
		}
		a.TimeControl, a.Casual, a.Rated = timeControl(ref), su.casual, g.Tags[tagRated] == "yes" && g.Termination != kalah.Aborted
		a.Outcome = s.outcome(ctx, g, a.Seat)
		a.Side = kalah.South
		if (a.Seat == 1) != s.swapped(ctx, g) {
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
func (s *Server) outcome(ctx context.Context, g GameInfo, seat int) string {
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
	if s.swapped(ctx, g) {
		winner = 1 - winner
	}
	if winner == seat {
		return "won"
	}
	return "lost"
}

// swapped reports whether finished game g's players exchanged sides by
// the pie rule.
func (s *Server) swapped(ctx context.Context, g GameInfo) bool {
	if !g.Rules.Pie {
		return false
	}
	if sg, err := s.st.Game(ctx, g.ID); err == nil {
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

// profileExtras fills what a profile says of its reader's relation to the
// player: whether they follow them, and how many do.
func (s *Server) profileExtras(r *http.Request, p *Profile) {
	p.Followers, _ = s.st.Followers(r.Context(), p.ID)
	if me, err := s.follower(r); err == nil {
		if ids, err := s.st.Following(r.Context(), me); err == nil {
			for _, id := range ids {
				p.Following = p.Following || id.Is(p.ID)
			}
		}
	}
}

// apiPools answers the rating ladders, the busiest first, each with its
// players, established and provisional.
func (s *Server) apiPools(w http.ResponseWriter, r *http.Request) {
	pools, err := s.st.Pools(r.Context(), rating.ProvisionalRD)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if pools == nil {
		pools = []store.Pool{}
	}
	httpapi.WriteJSON(w, http.StatusOK, pools)
}

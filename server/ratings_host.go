package server

import (
	"context"
	"net/http"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/ratings"
	"kalah/server/views"
)

// The ratings between identities and the limits on farming them live in
// server/ratings; this file is what the ratings ask of the server
// (ratingsHost), the round's game told to them as plain values, and the
// names the rest of package server, web and the tests know them by.

const (
	// tagRated marks a game that counts on the rating ladders.
	tagRated = core.TagRated
	// tagUnrated says why a game asked to be rated was not: it ended too
	// early to count.
	tagUnrated = core.TagUnrated
	// minMovesRated is how many moves each side makes before a forfeit
	// counts on the ladders (ratings.MinMoves).
	minMovesRated = ratings.MinMoves
)

// SeatRating is a seat's rating as a board shows it (ratings.SeatRating).
type SeatRating = ratings.SeatRating

// LopsidedPair is a pair of players one of whom took most of the points of
// their rated series (ratings.LopsidedPair).
type LopsidedPair = ratings.LopsidedPair

// Profile is a player's page (views.Profile).
type Profile = views.Profile

// ratingsHost is the server as the ratings see it. The ratings never call
// it with their lock held, and hold no lock of the server's.
type ratingsHost struct{ s *Server }

// newRatings returns the server's ratings.
func (s *Server) newRatings() *ratings.Ratings {
	return ratings.New(ratingsHost{s}, ratings.Config{Store: s.st, Log: s.log})
}

func (h ratingsHost) Admitted(w http.ResponseWriter, r *http.Request, what string) bool {
	return h.s.admitted(w, r, what)
}

// Profile adds to p the player's latest finished games, each from their
// side, and their followers (views.Profile).
func (h ratingsHost) Profile(ctx context.Context, r *http.Request, p ratings.Player) (any, error) {
	return h.s.views.Profile(ctx, r, p)
}

// poolOf names the ladder of a game (ratings.Pool).
func poolOf(r kalah.Rules, ref referee.Referee) string { return ratings.Pool(r, ref) }

// ratable reports whether ids may play a rated game against each other
// (ratings.Ratable).
func (s *Server) ratable(ctx context.Context, ids [2]identity.ID) bool {
	return s.ratings.Ratable(ctx, ids)
}

// reserveRated reports whether a new game between ids may be rated under
// the daily limit (ratings.Reserve).
func (s *Server) reserveRated(ctx context.Context, ids [2]identity.ID) (ok bool, n int, release func()) {
	return s.ratings.Reserve(ctx, ids)
}

// casualNote says, to viewer, why a game asked to be rated is played
// unrated (ratings.CasualNote).
func casualNote(tags map[string]string, viewer identity.ID, seats [2]identity.ID, names [2]string) string {
	return ratings.CasualNote(tags, viewer, seats, names)
}

// limitNote is casualNote for n rated games (ratings.LimitNote).
func limitNote(n string, viewer identity.ID, seats [2]identity.ID, names [2]string) string {
	return ratings.LimitNote(n, viewer, seats, names)
}

// seatRatings returns the ratings of a game's seats (nil for seats that
// hold none, or a game that is not rated).
func (s *Server) seatRatings(ctx context.Context, v GameView, seats [2]store.Seat) [2]*SeatRating {
	g := ratings.Game{ID: v.ID, Tags: v.Record.Tags, Seats: [2]identity.ID{seats[0].ID, seats[1].ID}, Rules: v.Record.Rules,
		Finished: v.Status == store.Finished, Termination: v.Record.Termination}
	if !g.Finished && g.Tags[tagRated] == "yes" {
		// A live rated game's ladder is named by its clocks.
		_, g.Referee = s.settings(v.Record.Tags)
	}
	return s.ratings.SeatRatings(ctx, g)
}

// ratingIn returns who's rating on a ladder (a new player's if none).
func (s *Server) ratingIn(ctx context.Context, who identity.ID, pool string) *SeatRating {
	return s.ratings.In(ctx, who, pool)
}

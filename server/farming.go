package server

import (
	"cmp"
	"context"
	"fmt"
	"kalah"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
)

// Rating farming (two accounts of one person feeding one of them) is made
// slow and visible: a rated game that ends by a forfeit (resignation, time,
// leaving) before both sides have made minMovesRated moves is not rated, as
// an abort is not; two identities' rated games count at most maxRatedPerDay
// in any 24 hours, later ones are played unrated and the players are told
// so before they start; the admin lists pairs whose rated series are
// lopsided (GET /api/admin/pairs), for a person to judge.
const (
	minMovesRated  = 3
	maxRatedPerDay = 5
	ratedDay       = 24 * time.Hour
	// tagUnrated says why a game asked to be rated was not: it ended too
	// early to count.
	tagUnrated = core.TagUnrated
	// tagRatedLimit, on a game asked to be rated and played unrated for
	// the daily limit, holds how many rated games its players had played
	// with each other in the day before it.
	tagRatedLimit = core.TagRatedLimit
)

// ratedPending counts, by pair, the rated games being created now, which
// the store does not list yet.
type ratedPending struct {
	mu sync.Mutex
	n  map[[2]string]int
}

func pairOf(ids [2]identity.ID) [2]string {
	k := [2]string{ids[0].Key(), ids[1].Key()}
	if k[1] < k[0] {
		k[0], k[1] = k[1], k[0]
	}
	return k
}

// reserveRated reports whether a new game between ids may be rated under
// the daily limit, and how many rated games they have played (or play)
// with each other in the last 24 hours. If ok, release must be called
// once the game is stored (or not started), so that games started at once
// do not all pass the limit.
func (s *Server) reserveRated(ctx context.Context, ids [2]identity.ID) (ok bool, n int, release func()) {
	key := pairOf(ids)
	s.ratedPending.mu.Lock()
	defer s.ratedPending.mu.Unlock()
	n, err := s.st.RatedGamesBetween(ctx, ids[0], ids[1], time.Now().Add(-ratedDay))
	if err != nil {
		// Not known now: rated, as before the limit; the admin's list
		// shows what passed.
		s.log.Warn("cannot count a pair's rated games", "err", err)
		return true, 0, func() {}
	}
	n += s.ratedPending.n[key]
	if n >= maxRatedPerDay {
		return false, n, func() {}
	}
	if s.ratedPending.n == nil {
		s.ratedPending.n = map[[2]string]int{}
	}
	s.ratedPending.n[key]++
	return true, n, func() {
		s.ratedPending.mu.Lock()
		defer s.ratedPending.mu.Unlock()
		if s.ratedPending.n[key]--; s.ratedPending.n[key] <= 0 {
			delete(s.ratedPending.n, key)
		}
	}
}

// casualNote says, to viewer, why a game asked to be rated is played
// unrated: "casual: you have played 5 rated games with bob today" for one
// of its players, the same of both for anyone else; "" for any other game.
func casualNote(tags map[string]string, viewer identity.ID, seats [2]identity.ID, names [2]string) string {
	n := tags[tagRatedLimit]
	if n == "" {
		return ""
	}
	return limitNote(n, viewer, seats, names)
}

// limitNote is casualNote for n rated games.
func limitNote(n string, viewer identity.ID, seats [2]identity.ID, names [2]string) string {
	for i, id := range seats {
		if id.Is(viewer) {
			return fmt.Sprintf("casual: you have played %s rated games with %s today", n, names[1-i])
		}
	}
	return fmt.Sprintf("casual: %s and %s have played %s rated games with each other today", names[0], names[1], n)
}

// movedEnough reports whether each side of g has made minMovesRated moves
// of its own (after the opening's).
func movedEnough(g *kalah.Game, opening int) bool {
	seats := moveSeats(g)
	seats = seats[min(opening, len(seats)):]
	for seat := range 2 {
		n := 0
		for _, s := range seats {
			if s == seat {
				n++
			}
		}
		if n < minMovesRated {
			return false
		}
	}
	return true
}

// unratedWhy says why a finished game asked to be rated is not, when it
// ended by a forfeit before both sides had made their moves; "" if it
// counts (or was never rated).
func unratedWhy(g *kalah.Game, opening int, tags map[string]string) string {
	t := g.Termination()
	if tags[tagRated] != "yes" || !t.IsForfeit() || movedEnough(g, opening) {
		return ""
	}
	return fmt.Sprintf("not rated: it ended (%s) before both sides had made %d moves", t, minMovesRated)
}

// GET /api/admin/pairs?days=N&games=N&share=F (the admin token): pairs of
// players whose rated series in the last days (default 7) has at least
// games games (default 6) and of which one side took at least share of the
// points (default 0.8), most games first: for a person to judge whether
// one farms the other.
func (s *Server) apiAdminPairs(w http.ResponseWriter, r *http.Request) {
	if !s.admitted(w, r, "the list of lopsided pairs") {
		return
	}
	q := r.URL.Query()
	days, err := strconv.Atoi(cmp.Or(q.Get("days"), "7"))
	if err != nil || days < 1 || days > 3650 {
		httpapi.WriteError(w, fmt.Errorf("%w: days %q: want 1 to 3650", ErrBadRequest, q.Get("days")))
		return
	}
	games, err := strconv.Atoi(cmp.Or(q.Get("games"), "6"))
	if err != nil || games < 1 {
		httpapi.WriteError(w, fmt.Errorf("%w: games %q: want at least 1", ErrBadRequest, q.Get("games")))
		return
	}
	share, err := strconv.ParseFloat(cmp.Or(q.Get("share"), "0.8"), 64)
	if err != nil || share < 0.5 || share > 1 {
		httpapi.WriteError(w, fmt.Errorf("%w: share %q: want 0.5 to 1", ErrBadRequest, q.Get("share")))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	all, err := s.st.RatedPairs(ctx, time.Now().Add(-time.Duration(days)*24*time.Hour))
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	out := []LopsidedPair{}
	for _, p := range all {
		if p.Games < games {
			continue
		}
		a := (float64(p.WinsA) + float64(p.Draws)/2) / float64(p.Games)
		if a >= share || 1-a >= share {
			out = append(out, LopsidedPair{RatedPair: p, ShareA: a})
		}
	}
	slices.SortStableFunc(out, func(x, y LopsidedPair) int { return y.Games - x.Games })
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// LopsidedPair is a pair of players one of whom took most of the points of
// their rated series.
type LopsidedPair struct {
	store.RatedPair
	// ShareA is A's share of the points (a win 1, a draw 1/2).
	ShareA float64 `json:"share_a"`
}

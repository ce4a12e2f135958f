package ratings

import (
	"cmp"
	"context"
	"fmt"
	"hash/maphash"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
)

// Rating farming (two accounts of one person feeding one of them) is made
// slow and visible: a rated game that ends by a forfeit (resignation, time,
// leaving) before both sides have made MinMoves moves is not rated, as
// an abort is not; two identities' rated games count at most MaxPerDay
// in any 24 hours, later ones are played unrated and the players are told
// so before they start; the admin lists pairs whose rated series are
// lopsided (GET /api/admin/pairs), for a person to judge.
const (
	MinMoves  = 3
	MaxPerDay = 5
	Day       = 24 * time.Hour
)

func pairOf(ids [2]identity.ID) [2]string {
	k := [2]string{ids[0].Key(), ids[1].Key()}
	if k[1] < k[0] {
		k[0], k[1] = k[1], k[0]
	}
	return k
}

// Reserve reports whether a new game between ids may be rated under the
// daily limit, and how many rated games they have played (or play) with
// each other in the last 24 hours. If ok, release must be called once the
// game is stored (or not started), so that games started at once do not
// all pass the limit. The count and the reservation are one step for a
// pair (its stripe's lock is held across the store's count), and games
// of other pairs start meanwhile: a lock held by every game start across
// a query of the store made the starts of a busy moment wait in one line.
func (m *Ratings) Reserve(ctx context.Context, ids [2]identity.ID) (ok bool, n int, release func()) {
	key := pairOf(ids)
	st := m.stripe(key)
	st.mu.Lock()
	defer st.mu.Unlock()
	n, err := m.st.RatedGamesBetween(ctx, ids[0], ids[1], time.Now().Add(-Day))
	if err != nil {
		// Not known now: rated, as before the limit; the admin's list
		// shows what passed.
		m.log.Warn("cannot count a pair's rated games", "err", err)
		return true, 0, func() {}
	}
	n += st.pending[key]
	if n >= MaxPerDay {
		return false, n, func() {}
	}
	if st.pending == nil {
		st.pending = map[[2]string]int{}
	}
	st.pending[key]++
	return true, n, func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.pending[key]--; st.pending[key] <= 0 {
			delete(st.pending, key)
		}
	}
}

// pairStripes is how many locks the pairs are spread over.
const pairStripes = 64

// pairStripe holds, for the pairs whose key hashes to it, the rated games
// being created now, which the store does not list yet.
type pairStripe struct {
	mu      sync.Mutex // guards pending, and nothing else
	pending map[[2]string]int
}

// stripe returns the stripe of a pair's key.
func (m *Ratings) stripe(key [2]string) *pairStripe {
	var h maphash.Hash
	h.SetSeed(m.seed)
	h.WriteString(key[0])
	h.WriteByte(0)
	h.WriteString(key[1])
	return &m.stripes[h.Sum64()%pairStripes]
}

// CasualNote says, to viewer, why a game asked to be rated is played
// unrated: "casual: you have played 5 rated games with bob today" for one
// of its players, the same of both for anyone else; "" for any other game.
func CasualNote(tags map[string]string, viewer identity.ID, seats [2]identity.ID, names [2]string) string {
	n := tags[core.TagRatedLimit]
	if n == "" {
		return ""
	}
	return LimitNote(n, viewer, seats, names)
}

// LimitNote is CasualNote for n rated games.
func LimitNote(n string, viewer identity.ID, seats [2]identity.ID, names [2]string) string {
	for i, id := range seats {
		if id.Is(viewer) {
			return fmt.Sprintf("casual: you have played %s rated games with %s today", n, names[1-i])
		}
	}
	return fmt.Sprintf("casual: %s and %s have played %s rated games with each other today", names[0], names[1], n)
}

// MovedEnough reports whether each side has made MinMoves moves of its
// own; movers are the seats that made a game's moves after its opening's.
func MovedEnough(movers []int) bool {
	for seat := range 2 {
		n := 0
		for _, s := range movers {
			if s == seat {
				n++
			}
		}
		if n < MinMoves {
			return false
		}
	}
	return true
}

// UnratedWhy says why a finished game asked to be rated (tags) is not,
// when it ended (t) by a forfeit before both sides had made their moves
// (movers, as MovedEnough); "" if it counts (or was never rated).
func UnratedWhy(tags map[string]string, t kalah.Termination, movers []int) string {
	if tags[core.TagRated] != "yes" || !t.IsForfeit() || MovedEnough(movers) {
		return ""
	}
	return fmt.Sprintf("not rated: it ended (%s) before both sides had made %d moves", t, MinMoves)
}

// Pairs answers GET /api/admin/pairs?days=N&games=N&share=F (the admin
// token): pairs of players whose rated series in the last days (default 7)
// has at least games games (default 6) and of which one side took at
// least share of the points (default 0.8), most games first: for a person
// to judge whether one farms the other.
func (m *Ratings) Pairs(w http.ResponseWriter, r *http.Request) {
	if !m.host.Admitted(w, r, "the list of lopsided pairs") {
		return
	}
	q := r.URL.Query()
	days, err := strconv.Atoi(cmp.Or(q.Get("days"), "7"))
	if err != nil || days < 1 || days > 3650 {
		httpapi.WriteError(w, fmt.Errorf("%w: days %q: want 1 to 3650", core.ErrBadRequest, q.Get("days")))
		return
	}
	games, err := strconv.Atoi(cmp.Or(q.Get("games"), "6"))
	if err != nil || games < 1 {
		httpapi.WriteError(w, fmt.Errorf("%w: games %q: want at least 1", core.ErrBadRequest, q.Get("games")))
		return
	}
	share, err := strconv.ParseFloat(cmp.Or(q.Get("share"), "0.8"), 64)
	if err != nil || share < 0.5 || share > 1 {
		httpapi.WriteError(w, fmt.Errorf("%w: share %q: want 0.5 to 1", core.ErrBadRequest, q.Get("share")))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	all, err := m.st.RatedPairs(ctx, time.Now().Add(-time.Duration(days)*24*time.Hour))
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, Lopsided(all, games, share))
}

// Lopsided returns the pairs of all with at least games games of which
// one side took at least share of the points, most games first.
func Lopsided(all []store.RatedPair, games int, share float64) []LopsidedPair {
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
	return out
}

// LopsidedPair is a pair of players one of whom took most of the points of
// their rated series.
type LopsidedPair struct {
	store.RatedPair
	// ShareA is A's share of the points (a win 1, a draw 1/2).
	ShareA float64 `json:"share_a"`
}

// Tag marks tags as those of a rated game between ids if they may be rated
// against each other (Ratable) and the daily limit lets them (Reserve),
// or, over the limit, with how many rated games they played in the day
// (core.TagRatedLimit); release gives the reservation back once the game
// is created.
func (m *Ratings) Tag(ctx context.Context, ids [2]identity.ID, tags map[string]string) (release func()) {
	if !m.Ratable(ctx, ids) {
		return func() {}
	}
	ok, n, release := m.Reserve(ctx, ids)
	if ok {
		tags[core.TagRated] = "yes"
	} else {
		tags[core.TagRatedLimit] = strconv.Itoa(n)
	}
	return release
}

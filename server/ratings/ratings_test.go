package ratings

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/referee"
	"kalah/server/core"
)

// testHost admits whoever the test says and adds nothing to a profile.
type testHost struct{ admit bool }

func (h testHost) Admitted(w http.ResponseWriter, r *http.Request, what string) bool { return h.admit }

func (h testHost) Profile(ctx context.Context, r *http.Request, p Player) (any, error) { return p, nil }

func newRatings(t *testing.T, admit bool) *Ratings {
	t.Helper()
	st, err := store.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(testHost{admit}, Config{Store: st})
}

// TestPool: a ladder is a rule preset (or "custom") and a time class.
func TestPool(t *testing.T) {
	for _, c := range []struct {
		rules kalah.Rules
		ref   referee.Referee
		want  string
	}{
		{kalah.Standard(), referee.Referee{Budget: 10 * time.Minute}, "kalah/rapid"},
		{kalah.Standard(), referee.Referee{Budget: 3 * time.Minute, Increment: 2 * time.Second}, "kalah/blitz"},
		{kalah.Standard(), referee.Referee{}, "kalah/untimed"},
		{kalah.Rules{Houses: 5, Seeds: 4}, referee.Referee{PerMove: time.Second}, "custom/bullet"},
	} {
		if got := Pool(c.rules, c.ref); got != c.want {
			t.Errorf("Pool(%v, %+v) = %q, want %q", c.rules, c.ref, got, c.want)
		}
	}
}

// TestUnratedWhy: a rated game forfeited before both sides made MinMoves
// moves is not rated, and says why; an end by the rules, a game not rated
// and one both sides played enough count as they are.
func TestUnratedWhy(t *testing.T) {
	rated := map[string]string{core.TagRated: "yes"}
	short := []int{0, 1, 0, 1, 0} // North made two moves
	long := []int{0, 1, 0, 1, 0, 0, 1}
	if why := UnratedWhy(rated, kalah.Resign, short); why != "not rated: it ended (resign) before both sides had made 3 moves" {
		t.Errorf("resigned early: %q", why)
	}
	if why := UnratedWhy(rated, kalah.Timeout, nil); why == "" {
		t.Error("a timeout before any move is rated")
	}
	for _, c := range []struct {
		tags   map[string]string
		t      kalah.Termination
		movers []int
	}{
		{rated, kalah.Resign, long},
		{rated, kalah.Normal, short},
		{map[string]string{}, kalah.Resign, short},
	} {
		if why := UnratedWhy(c.tags, c.t, c.movers); why != "" {
			t.Errorf("%v, %s after %v: %q", c.tags, c.t, c.movers, why)
		}
	}
	if MovedEnough(short) || !MovedEnough(long) {
		t.Errorf("MovedEnough: %v, %v", MovedEnough(short), MovedEnough(long))
	}
}

// TestNotes: a player is told with whom they have played their rated
// games; anyone else, both names.
func TestNotes(t *testing.T) {
	ann, bob := identity.Of(identity.Person, "ann"), identity.Of(identity.Person, "bob")
	seats, names := [2]identity.ID{ann, bob}, [2]string{"ann", "bob"}
	tags := map[string]string{core.TagRatedLimit: "5"}
	for _, c := range []struct {
		viewer identity.ID
		want   string
	}{
		{ann, "casual: you have played 5 rated games with bob today"},
		{bob, "casual: you have played 5 rated games with ann today"},
		{identity.ID{}, "casual: ann and bob have played 5 rated games with each other today"},
	} {
		if got := CasualNote(tags, c.viewer, seats, names); got != c.want {
			t.Errorf("to %v: %q, want %q", c.viewer, got, c.want)
		}
	}
	if got := CasualNote(map[string]string{core.TagRated: "yes"}, ann, seats, names); got != "" {
		t.Errorf("a rated game's note: %q", got)
	}
}

// TestReserve: games reserved at once count against the pair's daily
// limit, in either order of the pair, until released; another pair has a
// limit of its own.
func TestReserve(t *testing.T) {
	m := newRatings(t, true)
	ctx := context.Background()
	ann, bob, cy := identity.Of(identity.Person, "ann"), identity.Of(identity.Person, "bob"), identity.Of(identity.Person, "cy")
	var (
		mu       sync.Mutex
		releases []func()
		wg       sync.WaitGroup
	)
	for i := range MaxPerDay {
		wg.Go(func() {
			ids := [2]identity.ID{ann, bob}
			if i%2 == 1 {
				ids = [2]identity.ID{bob, ann}
			}
			ok, _, release := m.Reserve(ctx, ids)
			if !ok {
				t.Errorf("reservation %d refused", i+1)
			}
			mu.Lock()
			releases = append(releases, release)
			mu.Unlock()
		})
	}
	wg.Wait()
	if ok, n, _ := m.Reserve(ctx, [2]identity.ID{bob, ann}); ok || n != MaxPerDay {
		t.Fatalf("over the limit: %v, %d", ok, n)
	}
	if ok, n, release := m.Reserve(ctx, [2]identity.ID{ann, cy}); !ok || n != 0 {
		t.Errorf("another pair: %v, %d", ok, n)
	} else {
		release()
	}
	releases[0]()
	ok, n, release := m.Reserve(ctx, [2]identity.ID{ann, bob})
	if !ok || n != MaxPerDay-1 {
		t.Fatalf("after a release: %v, %d", ok, n)
	}
	release()
	for _, release := range releases[1:] {
		release()
	}
	for i := range m.stripes {
		st := &m.stripes[i]
		st.mu.Lock()
		if len(st.pending) != 0 {
			t.Errorf("released, still pending: %v", st.pending)
		}
		st.mu.Unlock()
	}
}

// TestLopsided: a pair is listed when it played enough games and one side
// took at least the share of the points, most games first.
func TestLopsided(t *testing.T) {
	ann, bob, cy := identity.Of(identity.Person, "ann"), identity.Of(identity.Person, "bob"), identity.Of(identity.Person, "cy")
	all := []store.RatedPair{
		{A: ann, B: bob, Games: 6, WinsA: 5, Draws: 1}, // 11/12 to ann
		{A: ann, B: cy, Games: 10, WinsB: 8, Draws: 2}, // 9/10 to cy
		{A: bob, B: cy, Games: 10, WinsA: 5, WinsB: 5}, // even
		{A: cy, B: bob, Games: 4, WinsA: 4},            // too few
		{A: bob, B: ann, Games: 8, WinsA: 6, WinsB: 2}, // 3/4: under 0.8
	}
	got := Lopsided(all, 6, 0.8)
	if len(got) != 2 || !got[0].B.Is(cy) || got[0].ShareA != 0.1 || !got[1].B.Is(bob) || got[1].ShareA != 11.0/12 {
		t.Errorf("lopsided pairs: %+v", got)
	}
	if got := Lopsided(nil, 1, 0.5); got == nil || len(got) != 0 {
		t.Errorf("none: %#v", got)
	}
}

// TestPairsNeedsTheAdmin: the list of lopsided pairs is the admin's, and
// its bounds are checked.
func TestPairsNeedsTheAdmin(t *testing.T) {
	w := httptest.NewRecorder()
	newRatings(t, false).Pairs(w, httptest.NewRequest("GET", "/api/admin/pairs", nil))
	if w.Code != http.StatusOK || w.Body.Len() != 0 {
		t.Errorf("not admitted: %d %q", w.Code, w.Body)
	}
	m := newRatings(t, true)
	for q, want := range map[string]int{"": http.StatusOK, "?days=0": http.StatusBadRequest, "?games=x": http.StatusBadRequest, "?share=0.4": http.StatusBadRequest} {
		w := httptest.NewRecorder()
		m.Pairs(w, httptest.NewRequest("GET", "/api/admin/pairs"+q, nil))
		if w.Code != want {
			t.Errorf("%q: %d, want %d", q, w.Code, want)
		}
	}
}

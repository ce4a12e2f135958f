package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
)

var pairBots = []identity.ID{
	identity.Of(identity.Bot, "p0"), identity.Of(identity.Bot, "p1"),
	identity.Of(identity.Bot, "p2"), identity.Of(identity.Person, "p3"),
}

func seatsOf(a, b identity.ID) [2]Seat {
	return [2]Seat{{Name: a.Name, Kind: "bot", ID: a}, {Name: b.Name, Kind: "bot", ID: b}}
}

// gameOf creates a live game of a (South) and b on st, its Rated tag rated.
func gameOf(t *testing.T, st *Store, a, b identity.ID, rated string) int64 {
	t.Helper()
	id, err := st.CreateGame(context.Background(), NewGame{Rules: kalah.Standard(), Seats: seatsOf(a, b), Tags: map[string]string{ratedTag: rated}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// checkPairs compares RatedGamesBetween, which may answer from memory,
// with the database's own count, for every pair and each moment of since.
func checkPairs(t *testing.T, s *Store, sinces []time.Time, step string) {
	t.Helper()
	ctx := context.Background()
	for i, a := range pairBots {
		for _, b := range pairBots[i+1:] {
			for _, since := range sinces {
				got, err := s.RatedGamesBetween(ctx, a, b, since)
				if err != nil {
					t.Fatal(err)
				}
				want, err := s.ratedGamesBetween(ctx, a, b, since)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("after %s: %v and %v since %d: %d games, the database counts %d", step, a, b, since.UnixMilli(), got, want)
				}
			}
		}
	}
}

// TestRatedGamesBetweenAgreesWithTheDatabase plays random writes of every
// kind that changes what counts (games created rated or not, finished with
// tags that make them rated or not, rated, tagged, reseated) and checks
// after each that the answers from memory are the database's.
func TestRatedGamesBetweenAgreesWithTheDatabase(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "k.db"))
	rng := rand.New(rand.NewPCG(1, 2))
	yesNo := func() string { return []string{"yes", "no"}[rng.IntN(2)] }
	pair := func() (identity.ID, identity.ID) {
		i := rng.IntN(len(pairBots))
		j := (i + 1 + rng.IntN(len(pairBots)-1)) % len(pairBots)
		return pairBots[i], pairBots[j]
	}
	var live, finished []int64
	start := time.Now()
	sinces := []time.Time{start.Add(-time.Hour), start}
	answered := 0
	for step := range 300 {
		var what string
		switch op := rng.IntN(6); {
		case op <= 1 || len(live) == 0:
			a, b := pair()
			rated := yesNo()
			id := gameOf(t, s, a, b, rated)
			live = append(live, id)
			what = fmt.Sprintf("create %d %v-%v rated %s", id, a, b, rated)
		case op == 2:
			k := rng.IntN(len(live))
			id := live[k]
			live = append(live[:k], live[k+1:]...)
			rec := kalah.Record{Result: kalah.SouthWins, Termination: kalah.Normal}
			if rng.IntN(3) == 0 {
				rec.Tags = map[string]string{ratedTag: yesNo()}
			}
			if err := s.FinishGame(ctx, id, rec); err != nil {
				t.Fatal(err)
			}
			finished = append(finished, id)
			what = fmt.Sprintf("finish %d %v", id, rec.Tags)
		case op == 3 && len(finished) > 0:
			id := finished[rng.IntN(len(finished))]
			g, err := s.Game(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			a, b := g.Seats[0].ID, g.Seats[1].ID
			if _, err := s.RateGame(ctx, id, "kalah/blitz", [2]identity.ID{a, b}, 1); err != nil {
				t.Fatal(err)
			}
			what = fmt.Sprintf("rate %d", id)
		case op == 4:
			all := append(append([]int64{}, live...), finished...)
			id := all[rng.IntN(len(all))]
			v := yesNo()
			if err := s.SetTag(ctx, id, ratedTag, v); err != nil {
				t.Fatal(err)
			}
			what = fmt.Sprintf("tag %d rated %s", id, v)
		default:
			id := live[rng.IntN(len(live))]
			a, b := pair()
			if err := s.SetSeats(ctx, id, seatsOf(a, b)); err != nil {
				t.Fatal(err)
			}
			what = fmt.Sprintf("seats %d %v-%v", id, a, b)
		}
		if step%50 == 49 {
			sinces = append(sinces, time.Now())
		}
		checkPairs(t, s, sinces, what)
	}
	// Some answers came from memory, or the test proves nothing of it.
	for i, a := range pairBots {
		for _, b := range pairBots[i+1:] {
			if s.pairs.none(a.Key(), b.Key(), time.Now().Add(time.Hour).UnixMilli()) {
				answered++
			}
		}
	}
	if answered == 0 {
		t.Fatal("no pair is answered from memory")
	}
}

// TestRecentPairsAfterReopen: a store that opens reads the pairs of the
// last day's rated games; a pair with none is answered from memory at
// once, and one with some is asked of the database.
func TestRecentPairsAfterReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "k.db")
	s := openAt(t, path)
	a, b, c := pairBots[0], pairBots[1], pairBots[2]
	gameOf(t, s, a, b, "yes")
	gameOf(t, s, a, c, "no")
	s.Close()
	s = openAt(t, path)
	day := time.Now().Add(-24 * time.Hour)
	if s.pairs.none(a.Key(), b.Key(), day.UnixMilli()) {
		t.Error("a and b's rated game is forgotten after a restart")
	}
	if !s.pairs.none(a.Key(), c.Key(), day.UnixMilli()) {
		t.Error("a and c, with no rated game, are asked of the database")
	}
	if n, err := s.RatedGamesBetween(ctx, a, b, day); err != nil || n != 1 {
		t.Errorf("a and b: %d rated games (%v), want 1", n, err)
	}
}

// TestRecentPairsSeeAnotherProcess: games another process (here another
// store on the same file) writes are counted from this store's first
// commit a tenth of a second later, or once its last look at the
// database is a second old.
func TestRecentPairsSeeAnotherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "k.db")
	s := openAt(t, path)
	other := openAt(t, path)
	a, b, c, d := pairBots[0], pairBots[1], pairBots[2], pairBots[3]
	day := time.Now().Add(-24 * time.Hour)
	for _, p := range [][2]identity.ID{{a, b}, {c, d}} {
		if n, _ := s.RatedGamesBetween(ctx, p[0], p[1], day); n != 0 {
			t.Fatalf("%v: %d games before any", p, n)
		}
		gameOf(t, other, p[0], p[1], "yes")
	}
	time.Sleep(recentLookEvery)
	newGame(t, s) // a commit of its own, its look at the database due
	if n, err := s.RatedGamesBetween(ctx, a, b, day); err != nil || n != 1 {
		t.Errorf("after a commit: %d of another process's rated games (%v), want 1", n, err)
	}
	gameOf(t, other, b, c, "yes")
	time.Sleep(recentCheckEvery + 100*time.Millisecond)
	if n, err := s.RatedGamesBetween(ctx, b, c, day); err != nil || n != 1 {
		t.Errorf("a second later: %d of another process's rated games (%v), want 1", n, err)
	}
}

// TestRecentPairsBound: past its bound the oldest notes go, and a pair it
// no longer holds is asked of the database for the times they covered.
func TestRecentPairsBound(t *testing.T) {
	p := recentPairs{limit: 4}
	p.seen()
	now := time.Now().UnixMilli()
	for i := range 10 {
		p.note("bot:a", fmt.Sprintf("bot:%d", i), now+int64(i))
	}
	if len(p.last) != 4 {
		t.Fatalf("%d pairs kept, want 4", len(p.last))
	}
	if p.none("bot:a", "bot:0", now) {
		t.Error("a dropped pair is said to have no games since its last")
	}
	if !p.none("bot:a", "bot:0", now+6) {
		t.Error("a dropped pair is asked of the database after the times dropped")
	}
	if p.none("bot:a", "bot:9", now+9) || !p.none("bot:a", "bot:9", now+10) {
		t.Error("a kept pair's last game is not known")
	}
	p.foreign()
	if p.none("bot:x", "bot:y", now+10) {
		t.Error("after another process wrote, an unknown pair is answered from memory")
	}
}

// TestCorruptTagsDoNotStopTheStore: a game whose tags are not JSON (a
// database edited by hand, a disk's fault) does not stop the store from
// opening, nor the game from being reseated and finished (its tags then
// the record's), nor a pair's count.
func TestCorruptTagsDoNotStopTheStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "k.db")
	s := openAt(t, path)
	a, b, c := pairBots[0], pairBots[1], pairBots[2]
	id := gameOf(t, s, a, b, "yes")
	if _, err := s.wdb.Exec(`UPDATE games SET tags='{"Rated": yes' WHERE id=?`, id); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openAt(t, path)
	if _, err := s.RatedGamesBetween(ctx, a, b, time.Now().Add(-time.Hour)); err != nil {
		t.Errorf("count: %v", err)
	}
	if err := s.SetSeats(ctx, id, seatsOf(a, c)); err != nil {
		t.Errorf("reseat: %v", err)
	}
	if err := s.FinishGame(ctx, id, kalah.Record{Result: kalah.Draw, Termination: kalah.Normal, Tags: map[string]string{"Event": "x"}}); err != nil {
		t.Fatalf("finish: %v", err)
	}
	g, err := s.Game(ctx, id)
	if err != nil || g.Status != Finished || g.Record.Tags["Event"] != "x" {
		t.Errorf("game after its end: %+v %v", g, err)
	}
	if _, err := s.GameByTag(ctx, "Event", "x"); err != nil {
		t.Errorf("by tag: %v", err)
	}
}

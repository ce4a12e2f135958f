package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"kalah"
	"kalah/internal/identity"
)

// finishedWith finishes game id on s with a win for South, rated r.
func finishedWith(s *Store, id int64, r Rate) error {
	rec := kalah.Record{Result: kalah.SouthWins, Termination: kalah.Normal}
	return s.FinishRated(context.Background(), id, rec, r)
}

// TestFinishRated: a game's end and its rating are one commit; a game is
// rated once; a rating that cannot be written leaves the game finished,
// unrated, and says so.
func TestFinishRated(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, b := pairBots[0], pairBots[1]
	ratingsOf := func() map[string]int {
		out := map[string]int{}
		for _, who := range []identity.ID{a, b} {
			rs, err := s.PlayerRatings(ctx, who)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				out[who.Name+" "+r.Pool] = r.Games
			}
		}
		return out
	}
	status := func(id int64) Status {
		g, err := s.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return g.Status
	}

	t.Run("one commit", func(t *testing.T) {
		id := gameOf(t, s, a, b, "yes")
		before := s.commits.Load()
		if err := finishedWith(s, id, Rate{Pool: "kalah/blitz", IDs: [2]identity.ID{a, b}, Score: 1}); err != nil {
			t.Fatal(err)
		}
		if n := s.commits.Load() - before; n != 1 {
			t.Errorf("the end and the rating took %d commits, want 1", n)
		}
		if got := status(id); got != Finished {
			t.Errorf("status %q, want finished", got)
		}
		if got := ratingsOf(); got["p0 kalah/blitz"] != 1 || got["p1 kalah/blitz"] != 1 {
			t.Errorf("games rated %v, want one each", got)
		}
		changes, err := s.GameRatings(ctx, id)
		if err != nil || len(changes) != 2 || changes[0].After.Rating <= changes[0].Before && changes[1].After.Rating <= changes[1].Before {
			t.Errorf("the game's rating changes: %+v, %v", changes, err)
		}
		// Rated once: RateGame after it changes nothing.
		if _, err := s.RateGame(ctx, id, "kalah/blitz", [2]identity.ID{a, b}, 1); err != nil {
			t.Fatal(err)
		}
		if got := ratingsOf(); got["p0 kalah/blitz"] != 1 {
			t.Errorf("rated again: %v", got)
		}
	})

	t.Run("rated before", func(t *testing.T) {
		id := gameOf(t, s, a, b, "yes")
		if _, err := s.RateGame(ctx, id, "kalah/bullet", [2]identity.ID{a, b}, 0); err != nil {
			t.Fatal(err)
		}
		if err := finishedWith(s, id, Rate{Pool: "kalah/bullet", IDs: [2]identity.ID{a, b}, Score: 0}); err != nil {
			t.Fatalf("finishing a game rated before: %v", err)
		}
		if got := ratingsOf(); got["p0 kalah/bullet"] != 1 || status(id) != Finished {
			t.Errorf("games rated %v, status %q: want one, finished", got, status(id))
		}
	})

	t.Run("seats that cannot be rated", func(t *testing.T) {
		id := gameOf(t, s, a, a, "yes")
		err := finishedWith(s, id, Rate{Pool: "kalah/rapid", IDs: [2]identity.ID{a, a}, Score: 1})
		if !errors.Is(err, ErrNotRated) || !errors.Is(err, ErrBadAccount) {
			t.Errorf("err %v, want ErrNotRated for ErrBadAccount", err)
		}
		if got := status(id); got != Finished {
			t.Errorf("status %q, want finished", got)
		}
	})

	t.Run("a rating that fails", func(t *testing.T) {
		if _, err := s.wdb.Exec(`CREATE TRIGGER refuse_rapid BEFORE INSERT ON rating_history WHEN NEW.pool = 'kalah/rapid'
			BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`); err != nil {
			t.Fatal(err)
		}
		id := gameOf(t, s, a, b, "yes")
		err := finishedWith(s, id, Rate{Pool: "kalah/rapid", IDs: [2]identity.ID{a, b}, Score: 1})
		if !errors.Is(err, ErrNotRated) {
			t.Errorf("err %v, want ErrNotRated", err)
		}
		if got := status(id); got != Finished {
			t.Errorf("status %q, want finished", got)
		}
		if got := ratingsOf(); got["p0 kalah/rapid"] != 0 {
			t.Errorf("half a rating written: %v", got)
		}
	})

	t.Run("store away", func(t *testing.T) {
		id := gameOf(t, s, a, b, "yes")
		away := ErrUnavailable
		s.failing.Store(&away)
		err := finishedWith(s, id, Rate{Pool: "kalah/classical", IDs: [2]identity.ID{a, b}, Score: 1})
		s.failing.Store(nil)
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("err %v, want ErrUnavailable", err)
		}
		if got := status(id); got != Live {
			t.Errorf("status %q, want live", got)
		}
		if err := finishedWith(s, id, Rate{Pool: "kalah/classical", IDs: [2]identity.ID{a, b}, Score: 1}); err != nil {
			t.Fatal(err)
		}
		if got := ratingsOf(); got["p0 kalah/classical"] != 1 || status(id) != Finished {
			t.Errorf("once the store is back: rated %v, status %q", got, status(id))
		}
	})
}

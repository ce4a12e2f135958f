package store

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"kalah"
	"kalah/internal/identity"
)

func TestGameLifecycle(t *testing.T) {
	for _, path := range []string{":memory:", filepath.Join(t.TempDir(), "k.db")} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			seats := [2]Seat{{Name: "alice", Kind: "bot", ID: identity.Of(identity.Bot, "alice")}, {Name: "greedy", Kind: "spec", Spec: "greedy", ID: identity.Of(identity.Program, "greedy")}}
			id, err := s.CreateGame(ctx, NewGame{Rules: kalah.Standard(), Seats: seats})
			if err != nil {
				t.Fatal(err)
			}
			g, _ := kalah.NewGame(kalah.Standard())
			for i, m := range []kalah.Move{3, 1, 2} {
				side := g.ToMove()
				if _, err := g.Play(m); err != nil {
					t.Fatal(err)
				}
				if err := s.AddMove(ctx, id, i, kalah.RecordMove{Side: side, House: int(m), Millis: int64(10 * i)}); err != nil {
					t.Fatal(err)
				}
			}
			// The same ply twice is refused.
			if err := s.AddMove(ctx, id, 2, kalah.RecordMove{Side: kalah.South, House: 1}); err == nil {
				t.Error("duplicate ply accepted")
			}
			un, err := s.Unfinished(ctx)
			if err != nil || len(un) != 1 || len(un[0].Record.Moves) != 3 || un[0].Seats != seats {
				t.Fatalf("Unfinished = %+v, %v", un, err)
			}
			rg, err := Replay(un[0].Record)
			if err != nil || rg.Position() != g.Position() {
				t.Fatalf("Replay = %v, %v", rg.Position(), err)
			}
			g.Forfeit(g.ToMove(), kalah.Timeout)
			if err := s.FinishGame(ctx, id, g.Record()); err != nil {
				t.Fatal(err)
			}
			if err := s.FinishGame(ctx, id, g.Record()); !errors.Is(err, ErrNotFound) {
				t.Errorf("finishing twice: %v", err)
			}
			got, err := s.Game(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			kg, err := got.Record.Game()
			if err != nil {
				t.Fatalf("stored record does not replay: %v", err)
			}
			if kg.Termination() != kalah.Timeout || kg.Result() != g.Result() || got.Status != Finished {
				t.Errorf("stored game %+v", got)
			}
			if got.Record.Moves[2].Millis != 20 {
				t.Errorf("move time %d", got.Record.Moves[2].Millis)
			}
			list, err := s.Games(ctx, Filter{Status: Finished, Player: identity.Of(identity.Bot, "ALICE")})
			if err != nil || len(list) != 1 || list[0].ID != id {
				t.Errorf("Games = %+v, %v", list, err)
			}
			if list, _ := s.Games(ctx, Filter{Player: identity.Of(identity.Bot, "bob")}); len(list) != 0 {
				t.Errorf("Games for bob = %+v", list)
			}
			if _, err := s.Game(ctx, 999); !errors.Is(err, ErrNotFound) {
				t.Errorf("missing game: %v", err)
			}
		})
	}
}

func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	s, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if created, err := s.Authenticate(ctx, "bob", "s3cret"); err != nil || !created {
		t.Fatalf("first login: %v %v", created, err)
	}
	if created, err := s.Authenticate(ctx, "bob", "s3cret"); err != nil || created {
		t.Fatalf("second login: %v %v", created, err)
	}
	if _, err := s.Authenticate(ctx, "bob", "guess"); !errors.Is(err, ErrBadToken) {
		t.Fatalf("wrong token: %v", err)
	}
}

func TestConcurrentWritesPersist(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "k.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	const games, moves = 20, 30
	var wg sync.WaitGroup
	ids := make([]int64, games)
	for i := range games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := s.CreateGame(ctx, NewGame{Rules: kalah.Standard()})
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = id
			for p := range moves {
				if err := s.AddMove(ctx, id, p, kalah.RecordMove{Side: kalah.South, House: 1}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, id := range ids {
		g, err := s.Game(ctx, id)
		if err != nil || len(g.Record.Moves) != moves {
			t.Fatalf("game %d after reopening: %d moves, %v", id, len(g.Record.Moves), err)
		}
	}
	if err := s.AddMove(ctx, ids[0], moves, kalah.RecordMove{}); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentMovesCommitInOrder: moves of many games written at once
// (committed by their callers, or by the writer for those that find a
// commit in progress) are all stored, each game's finish after its moves.
func TestConcurrentMovesCommitInOrder(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const games, plies = 32, 40
	ids := make([]int64, games)
	for i := range ids {
		if ids[i], err = s.CreateGame(ctx, NewGame{Rules: kalah.Standard(), Seats: [2]Seat{{Name: "a", Kind: "bot"}, {Name: "b", Kind: "bot"}}}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ply := range plies {
				if err := s.AddMove(ctx, id, ply, kalah.RecordMove{Side: kalah.South, House: 1}); err != nil {
					t.Error(err)
					return
				}
			}
			done := s.AddMoveAsync(ctx, id, plies, kalah.RecordMove{Side: kalah.South, House: 2})
			if err := s.FinishGame(ctx, id, kalah.Record{Result: kalah.Draw, Termination: kalah.Normal}); err != nil {
				t.Error(err)
			}
			if err := <-done; err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		g, err := s.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != Finished || len(g.Record.Moves) != plies+1 {
			t.Fatalf("game %d: %s with %d moves, want finished with %d", id, g.Status, len(g.Record.Moves), plies+1)
		}
	}
	if s.QueuedWrites() != 0 {
		t.Errorf("%d writes still queued", s.QueuedWrites())
	}
}

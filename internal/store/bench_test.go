package store

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"kalah"
)

// BenchmarkAddMove stores moves one after another, each waiting for its
// commit.
func BenchmarkAddMove(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "k.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	id, _ := s.CreateGame(ctx, NewGame{Rules: kalah.Standard()})
	for i := 0; b.Loop(); i++ {
		if err := s.AddMove(ctx, id, i, kalah.RecordMove{Side: kalah.South, House: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAddMoveParallel stores moves from 256 games at once: group
// commit puts many in each transaction.
func BenchmarkAddMoveParallel(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "k.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const games = 256
	ids := make([]int64, games)
	for i := range ids {
		ids[i], _ = s.CreateGame(ctx, NewGame{Rules: kalah.Standard()})
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	for g := range games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < b.N/games+1; i++ {
				if err := s.AddMove(ctx, ids[g], i, kalah.RecordMove{Side: kalah.South, House: 1}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

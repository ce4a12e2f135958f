package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kalah/internal/identity"

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

// BenchmarkGameCycle is the store's share of one rated bot game of ten
// moves, as the server makes it: the pair's rated games counted, the
// game created, its moves journaled, its end and its rating committed.
// Parallel: 64 games go through it at once, so commits gather writes as
// they do under load.
func BenchmarkGameCycle(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "k.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var n atomic.Int64
	b.SetParallelism(32) // 64 goroutines on 2 cores
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			a := identity.Of(identity.Bot, fmt.Sprintf("b%d", i%1000))
			c := identity.Of(identity.Bot, fmt.Sprintf("b%d", (i+1+i/1000)%1000))
			if _, err := s.RatedGamesBetween(ctx, a, c, time.Now().Add(-24*time.Hour)); err != nil {
				b.Error(err)
				return
			}
			seats := [2]Seat{{Name: a.Name, Kind: "bot", ID: a}, {Name: c.Name, Kind: "bot", ID: c}}
			id, err := s.CreateGame(ctx, NewGame{Rules: kalah.Standard(), Seats: seats, Tags: map[string]string{"Rated": "yes"}})
			if err != nil {
				b.Error(err)
				return
			}
			for ply := range 10 {
				if err := s.AddMove(ctx, id, ply, kalah.RecordMove{Side: kalah.South, House: 1 + ply%6}); err != nil {
					b.Error(err)
					return
				}
			}
			// The game's end and its rating, one write, as a round stores them.
			rec := kalah.Record{Result: kalah.SouthWins, Termination: kalah.Normal}
			if err := s.FinishRated(ctx, id, rec, Rate{Pool: "kalah/blitz", IDs: [2]identity.ID{a, c}, Score: 1}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

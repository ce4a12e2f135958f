package store

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kalah"
)

// TestWALStaysBounded plays games from many writers for a few seconds
// while readers keep querying (which keeps a passive checkpoint from
// finishing), and checks that the write-ahead log never grows far past its
// limit and ends within it.
func TestWALStaysBounded(t *testing.T) {
	defer func(v int64) { walLimit = v }(walLimit)
	walLimit = 2 << 20
	path := filepath.Join(t.TempDir(), "k.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var moves atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				id, err := s.CreateGame(context.Background(), NewGame{Rules: kalah.Standard(), Seats: [2]Seat{{Name: "a", Kind: "bot"}, {Name: "b", Kind: "bot"}}})
				if err != nil {
					t.Error(err)
					return
				}
				for ply := range 40 {
					if err := s.AddMove(context.Background(), id, ply, kalah.RecordMove{Side: kalah.South, House: 1 + ply%6}); err != nil {
						t.Error(err)
						return
					}
					moves.Add(1)
				}
				// Its end puts its moves into the database.
				if err := s.FinishGame(context.Background(), id, kalah.Record{Result: kalah.SouthWins, Termination: kalah.Normal}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				s.Games(context.Background(), Filter{Limit: 50})
			}
		}()
	}
	var largest int64
	for ctx.Err() == nil {
		if fi, err := os.Stat(path + "-wal"); err == nil {
			largest = max(largest, fi.Size())
		}
		time.Sleep(10 * time.Millisecond)
	}
	wg.Wait()
	t.Logf("%d moves, largest WAL %d KiB (limit %d KiB)", moves.Load(), largest>>10, walLimit>>10)
	if moves.Load() < 1000 {
		t.Fatalf("only %d moves written: the test proves nothing", moves.Load())
	}
	// Between checkpoints the log grows by what the writes of that moment
	// add (several MiB a second here, more while a busy machine delays the
	// checkpoint); it must stay within a bound and come back under the
	// limit (without the truncating checkpoint it reaches about 100 MiB in
	// these three seconds, and stays there).
	if largest > 24*walLimit {
		t.Errorf("the WAL grew to %d KiB, limit %d KiB", largest>>10, walLimit>>10)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		fi, err := os.Stat(path + "-wal")
		if err != nil || fi.Size() <= walLimit {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the WAL stays at %d KiB after the writes, limit %d KiB", fi.Size()>>10, walLimit>>10)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

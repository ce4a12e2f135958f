package store

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"kalah"
	"kalah/internal/identity"
)

// TestUnfinishedReportsAReadErrorMidScan corrupts a leaf page in the middle
// of the index Unfinished scans (games_status): Unfinished must fail, not return the live games it
// read before the bad page as if they were all of them (a server would
// then start without resuming the rest).
func TestUnfinishedReportsAReadErrorMidScan(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "k.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	seats := [2]Seat{{Name: "alice", Kind: "bot", ID: identity.Of(identity.Bot, "alice")}, {Name: "greedy", Kind: "spec", Spec: "greedy", ID: identity.Of(identity.Program, "greedy")}}
	// Enough live games for the index to span several leaf pages, made by
	// a few writers at once so the store batches them.
	const games, writers = 3000, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Go(func() {
			for range games / writers {
				if _, err := s.CreateGame(ctx, NewGame{Rules: kalah.Standard(), Seats: seats}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var leaves []int64
	rows, err := s.ReadDB().QueryContext(ctx, `SELECT pageno FROM dbstat WHERE name = 'games_status' AND pagetype = 'leaf' ORDER BY pageno`)
	if err != nil {
		t.Skipf("no dbstat to find the games' pages: %v", err)
	}
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var pageSize int64
	if err := s.ReadDB().QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	if len(leaves) < 4 {
		t.Fatalf("the index games_status has %d leaf pages; the test needs a page in the middle", len(leaves))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// An invalid b-tree page type in the page's header.
	bad := leaves[len(leaves)/2]
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff, 0xff, 0xff, 0xff}, (bad-1)*pageSize); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	un, err := s.Unfinished(ctx)
	if err == nil {
		t.Fatalf("Unfinished returned %d of %d live games and no error, with page %d of games_status corrupt", len(un), games, bad)
	}
	t.Logf("Unfinished: %v", err)
}

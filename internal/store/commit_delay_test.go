package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"kalah"
)

func newGame(t *testing.T, s *Store) int64 {
	t.Helper()
	id, err := s.CreateGame(context.Background(), NewGame{Rules: kalah.Standard(), Seats: [2]Seat{{Name: "a", Kind: "bot"}, {Name: "b", Kind: "bot"}}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestCommitDelayGathersWrites: with a commit delay, writes that come
// while the last commit is recent go in one commit; a write after a quiet
// moment waits for nothing.
func TestCommitDelayGathersWrites(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetCommitDelay(time.Hour)
	id := newGame(t, s) // the first commit: nothing recent, no wait
	before := s.Commits()
	_ = id
	var wg sync.WaitGroup
	for range 512 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			newGame(t, s)
		}()
	}
	wg.Wait()
	if n := s.Commits() - before; n != 1 {
		t.Errorf("512 writes behind a recent commit took %d commits, want 1", n)
	}

	q, err := Open(filepath.Join(t.TempDir(), "q.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	q.SetCommitDelay(100 * time.Millisecond)
	newGame(t, q)
	time.Sleep(150 * time.Millisecond)
	start := time.Now()
	newGame(t, q)
	if d := time.Since(start); d >= 100*time.Millisecond {
		t.Errorf("a write after a quiet moment took %v: it waited for the commit delay", d)
	}
}

// TestTruncateWALDoesNotStallTheWriter: a reader that keeps reading the
// log keeps it from being truncated; the truncation gives up within
// milliseconds instead of holding the writer's connection in SQLite's busy
// handler (5 s here), writes go on meanwhile, and once the reader is done
// the log is emptied.
func TestTruncateWALDoesNotStallTheWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 50 {
		newGame(t, s)
	}
	// A reader in the middle of reading the log.
	tx, err := s.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow("SELECT count(*) FROM games").Scan(&n); err != nil {
		t.Fatal(err)
	}
	newGame(t, s)
	var slowest time.Duration
	stop := make(chan struct{})
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			if _, err := s.CreateGame(context.Background(), NewGame{Rules: kalah.Standard()}); err != nil {
				t.Error(err)
				return
			}
			slowest = max(slowest, time.Since(start))
		}
	}()
	start := time.Now()
	done := s.truncateWAL()
	took := time.Since(start)
	close(stop)
	<-wrote
	if done {
		t.Fatal("the log was truncated under a reader still reading it")
	}
	if took > time.Second {
		t.Errorf("the truncation took %v to give up", took)
	}
	if slowest > time.Second {
		t.Errorf("a write took %v while the truncation tried", slowest)
	}
	tx.Rollback()
	if !s.truncateWAL() {
		t.Fatal("the log was not truncated once its reader was done")
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() != 0 {
		t.Fatalf("the log after truncation: %v, %v", fi.Size(), err)
	}
	t.Logf("gave up after %v; slowest write meanwhile %v", took, slowest)
}

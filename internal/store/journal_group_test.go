package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
)

// holdWriter makes s's journal look busy writing, as a writer outside
// the lock does, until the function returned is called (or the test
// ends, before the store closes).
func holdWriter(t *testing.T, s *Store) (release func()) {
	s.j.mu.Lock()
	s.j.writing = true
	s.j.mu.Unlock()
	var once sync.Once
	release = func() {
		once.Do(func() {
			s.j.mu.Lock()
			s.j.writing = false
			s.j.wrote.Broadcast()
			s.j.mu.Unlock()
		})
	}
	t.Cleanup(release)
	return release
}

// pendingLines counts the lines waiting for the journal's next write.
func pendingLines(s *Store) int {
	s.j.mu.Lock()
	defer s.j.mu.Unlock()
	return strings.Count(string(s.j.pend), "\n")
}

// waitFor waits up to five seconds for ok.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5 s for %s", what)
		}
	}
}

// TestJournalGroupsMoves: moves that come while the journal is writing
// wait together and go out in one write; meanwhile the journal answers
// without waiting for the write (a game starting, a reader); each move is
// held only once written, and what a crash leaves replays them all.
func TestJournalGroupsMoves(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, filepath.Join(dir, "k.db"))
	const games = 12
	ids := make([]int64, games)
	for i := range ids {
		ids[i] = newGame(t, s)
	}
	release := holdWriter(t, s)
	before := s.j.writes
	var wg sync.WaitGroup
	errs := make(chan error, games)
	for _, id := range ids {
		wg.Go(func() {
			errs <- s.AddMove(context.Background(), id, 0, kalah.RecordMove{Side: kalah.South, House: 2})
		})
	}
	waitFor(t, "every move to wait for the write", func() bool { return pendingLines(s) == games })
	// Nothing waits on the write but the moves in it.
	if _, _, ok := s.j.held(ids[0]); !ok {
		t.Error("a game whose first move waits to be written is not held")
	}
	if moves, _, _ := s.j.held(ids[0]); len(moves) != 0 {
		t.Errorf("a move held before it is written: %v", moves)
	}
	started := make(chan error, 1)
	go func() {
		_, err := s.CreateGame(context.Background(), NewGame{Rules: kalah.Standard(), Seats: seatsOf(pairBots[0], pairBots[1])})
		started <- err
	}()
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a game could not start while the journal was writing")
	}
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := s.j.writes - before; n != 1 {
		t.Errorf("%d moves took %d writes, want 1", games, n)
	}
	r := openAt(t, crashImage(t, dir))
	for _, id := range ids {
		if got := plies(t, r, id); len(got) != 1 || got[0] != 2 {
			t.Errorf("game %d after the crash: %v", id, got)
		}
	}
}

// TestJournalGroupFails: a write that fails fails every move in it, none
// of them held, and the file keeps only whole lines: the moves before it
// and after it replay, in order.
func TestJournalGroupFails(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, filepath.Join(dir, "k.db"))
	a, b := newGame(t, s), newGame(t, s)
	addMoves(t, s, a, 0, 2)
	release := holdWriter(t, s)
	var wg sync.WaitGroup
	var errA, errB error
	wg.Go(func() { errA = s.AddMove(context.Background(), a, 2, kalah.RecordMove{Side: kalah.South, House: 3}) })
	wg.Go(func() { errB = s.AddMove(context.Background(), b, 0, kalah.RecordMove{Side: kalah.South, House: 4}) })
	waitFor(t, "both moves to wait", func() bool { return pendingLines(s) == 2 })
	good := s.j.f
	ro, err := os.Open(s.j.path) // a file that refuses writes, as a full disk
	if err != nil {
		t.Fatal(err)
	}
	s.j.mu.Lock()
	s.j.f = ro
	s.j.mu.Unlock()
	release()
	wg.Wait()
	s.j.mu.Lock()
	s.j.f = good
	s.j.mu.Unlock()
	ro.Close()
	if !errors.Is(errA, ErrUnavailable) || !errors.Is(errB, ErrUnavailable) {
		t.Fatalf("the moves of a failed write: %v, %v", errA, errB)
	}
	if moves, _, _ := s.j.held(a); len(moves) != 2 {
		t.Errorf("game a holds %d moves after a failed third, want 2", len(moves))
	}
	if moves, _, _ := s.j.held(b); len(moves) != 0 {
		t.Errorf("game b holds a move that was not written: %v", moves)
	}
	addMoves(t, s, a, 2, 4)
	addMoves(t, s, b, 0, 1)
	r := openAt(t, crashImage(t, dir))
	if got := plies(t, r, a); len(got) != 4 {
		t.Errorf("game a after the crash: %v", got)
	}
	if got := plies(t, r, b); len(got) != 1 {
		t.Errorf("game b after the crash: %v", got)
	}
	if _, torn := r.Replayed(); torn != nil {
		t.Errorf("replayed as torn: %v", torn)
	}
}

// TestJournalTakeBackWaitsForTheGroup: a take-back's line goes after the
// moves being written, never over them.
func TestJournalTakeBackWaitsForTheGroup(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, filepath.Join(dir, "k.db"))
	a, b := newGame(t, s), newGame(t, s)
	addMoves(t, s, a, 0, 3)
	release := holdWriter(t, s)
	var wg sync.WaitGroup
	var errB error
	wg.Go(func() { errB = s.AddMove(context.Background(), b, 0, kalah.RecordMove{Side: kalah.South, House: 5}) })
	waitFor(t, "b's move to wait", func() bool { return pendingLines(s) == 1 })
	done := make(chan error, 1)
	go func() { done <- s.j.takenBack(a, 1) }()
	select {
	case err := <-done:
		t.Fatalf("a take-back written while a group was being written: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	wg.Wait()
	if err := <-done; err != nil || errB != nil {
		t.Fatal(err, errB)
	}
	r := openAt(t, crashImage(t, dir))
	if got := plies(t, r, a); len(got) != 1 {
		t.Errorf("game a after its take-back and the crash: %v", got)
	}
	if got := plies(t, r, b); len(got) != 1 || got[0] != 5 {
		t.Errorf("game b after the crash: %v", got)
	}
}

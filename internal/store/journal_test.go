package store

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kalah"
)

// crashImage copies the files of the store at dir/k.db as a crash would
// leave them (the database, its log and the moves' journal, with no write
// in progress) into a new directory, and returns the copy's path.
func crashImage(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	for _, name := range []string{"k.db", "k.db-wal", "k.db-moves"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(to, "k.db")
}

// openAt opens the store at path, closed when the test ends.
func openAt(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func addMoves(t *testing.T, s *Store, id int64, from, to int) {
	t.Helper()
	for ply := from; ply < to; ply++ {
		if err := s.AddMove(context.Background(), id, ply, kalah.RecordMove{Side: kalah.South, House: 1 + ply%6, Millis: int64(ply)}); err != nil {
			t.Fatal(err)
		}
	}
}

func plies(t *testing.T, s *Store, id int64) []int {
	t.Helper()
	g, err := s.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var houses []int
	for _, m := range g.Record.Moves {
		houses = append(houses, m.House)
	}
	return houses
}

// TestJournalSurvivesACrash: a live game's confirmed moves are in the
// journal only; a store opened on what a crash left puts them into the
// database, in order, takebacks applied, a finished game's moves once,
// and a line cut short by the crash is where it stops.
func TestJournalSurvivesACrash(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, filepath.Join(dir, "k.db"))
	ctx := context.Background()
	live := newGame(t, s)
	addMoves(t, s, live, 0, 5)
	taken := newGame(t, s)
	addMoves(t, s, taken, 0, 5)
	if err := s.TakeBack(ctx, taken, 3, "two moves"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddMove(ctx, taken, 3, kalah.RecordMove{Side: kalah.North, House: 6}); err != nil {
		t.Fatal(err)
	}
	done := newGame(t, s)
	addMoves(t, s, done, 0, 4)
	if err := s.FinishGame(ctx, done, kalah.Record{Result: kalah.SouthWins, Termination: kalah.Normal}); err != nil {
		t.Fatal(err)
	}
	// Readers see the journal's moves of a live game as stored.
	if got := plies(t, s, live); len(got) != 5 {
		t.Fatalf("a live game's moves as read: %v", got)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM moves WHERE game=?`, live).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a live game's moves in the database before its end: %d, %v", n, err)
	}

	image := crashImage(t, dir)
	// The crash tore the last line the journal was writing.
	f, err := os.OpenFile(image+"-moves", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("m 1 5 S 2 0")
	f.Close()

	r := openAt(t, image)
	moves, torn := r.Replayed()
	if moves != 5+5+1 || torn == nil {
		t.Errorf("replayed %d moves (torn: %v), want 11 (the finished game's none) and the torn line", moves, torn)
	}
	if got := plies(t, r, live); len(got) != 5 || got[4] != 5 {
		t.Errorf("the live game after the crash: %v", got)
	}
	if got := plies(t, r, taken); len(got) != 4 || got[3] != 6 {
		t.Errorf("the game with a takeback after the crash: %v, want 3 moves and the new fourth", got)
	}
	if got := plies(t, r, done); len(got) != 4 {
		t.Errorf("the finished game after the crash: %v", got)
	}
	if err := r.db.QueryRow(`SELECT count(*) FROM moves WHERE game=?`, live).Scan(&n); err != nil || n != 5 {
		t.Errorf("the live game's moves in the database after replay: %d, %v", n, err)
	}
	if fi, err := os.Stat(image + "-moves"); err != nil || fi.Size() != 0 {
		t.Errorf("the journal after replay: %v, %v", fi.Size(), err)
	}
	// The game goes on from its next move; one stored already is refused.
	if err := r.AddMove(ctx, live, 4, kalah.RecordMove{Side: kalah.South, House: 1}); !errors.Is(err, ErrMoveOrder) {
		t.Errorf("a move stored before the crash, again: %v", err)
	}
	addMoves(t, r, live, 5, 7)
	if got := plies(t, r, live); len(got) != 7 {
		t.Errorf("the live game going on: %v", got)
	}
	un, err := r.Unfinished(ctx)
	if err != nil || len(un) != 2 {
		t.Fatalf("unfinished after the crash: %d, %v", len(un), err)
	}
}

// TestCloseFlushesTheJournal: a store closed with games live puts their
// moves into the database and empties the journal: the database alone
// holds everything.
func TestCloseFlushesTheJournal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id := newGame(t, s)
	addMoves(t, s, id, 0, 6)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-moves"); err != nil || fi.Size() != 0 {
		t.Fatalf("the journal after Close: %v, %v", fi.Size(), err)
	}
	os.Remove(path + "-moves")
	r := openAt(t, path)
	if got := plies(t, r, id); len(got) != 6 {
		t.Errorf("the moves after Close, from the database alone: %v", got)
	}
	if moves, torn := r.Replayed(); moves != 0 || torn != nil {
		t.Errorf("replayed %d (%v) from an empty journal", moves, torn)
	}
}

// TestJournalCompacts: a journal that outgrows what it holds is written
// again with only the live games' moves, and still replays them.
func TestJournalCompacts(t *testing.T) {
	defer func(v int64) { journalCompactAt = v }(journalCompactAt)
	journalCompactAt = 64 << 10
	dir := t.TempDir()
	s := openAt(t, filepath.Join(dir, "k.db"))
	ctx := context.Background()
	live := newGame(t, s)
	addMoves(t, s, live, 0, 3)
	for s.j.compactions == 0 {
		id := newGame(t, s)
		addMoves(t, s, id, 0, 200)
		if err := s.FinishGame(ctx, id, kalah.Record{Result: kalah.Draw, Termination: kalah.Normal}); err != nil {
			t.Fatal(err)
		}
	}
	if s.j.size >= journalCompactAt/4 {
		t.Fatalf("the journal holds %d bytes after compacting", s.j.size)
	}
	addMoves(t, s, live, 3, 4)
	r := openAt(t, crashImage(t, dir))
	if got := plies(t, r, live); len(got) != 4 {
		t.Errorf("the live game from a compacted journal: %v", got)
	}
}

// TestJournalWriteFailureLosesNothing: a move the journal cannot write is
// refused as the store being unavailable, and the file keeps only whole
// lines, so the moves before it, and after it once the disk has room,
// replay.
func TestJournalWriteFailureLosesNothing(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, filepath.Join(dir, "k.db"))
	id := newGame(t, s)
	addMoves(t, s, id, 0, 2)
	good := s.j.f
	ro, err := os.Open(s.j.path) // a file that refuses writes, as a full disk
	if err != nil {
		t.Fatal(err)
	}
	s.j.mu.Lock()
	s.j.f = ro
	s.j.mu.Unlock()
	if err := s.AddMove(context.Background(), id, 2, kalah.RecordMove{Side: kalah.South, House: 3}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a move the journal could not write: %v", err)
	}
	s.j.mu.Lock()
	s.j.f = good
	s.j.mu.Unlock()
	ro.Close()
	addMoves(t, s, id, 2, 4)
	r := openAt(t, crashImage(t, dir))
	if got := plies(t, r, id); len(got) != 4 {
		t.Errorf("moves after the failed write: %v", got)
	}
	if _, torn := r.Replayed(); torn != nil {
		t.Errorf("a journal with only whole lines replayed as torn: %v", torn)
	}
}

// FuzzJournalLine: a line read back is the line written, and no line,
// however mangled, is read as another or stops the reader with anything
// but an error.
func FuzzJournalLine(f *testing.F) {
	f.Add(int64(7), 3, "S", 4, 0, int64(1200), false)
	f.Add(int64(1), 0, "N", 0, 1, int64(0), true)
	f.Fuzz(func(t *testing.T, game int64, ply int, side string, house, swap int, ms int64, take bool) {
		if game < 0 || ply < 0 || house < 0 || ms < 0 || (side != "S" && side != "N") || (swap != 0 && swap != 1) {
			return
		}
		op := journalOp{take: take, m: moveRow{game: game, ply: ply}}
		if !take {
			op.m.side, op.m.house, op.m.swap, op.m.ms = side, house, swap, ms
		}
		line := string(appendLine(nil, op))
		got, err := parseLine(strings.TrimSuffix(line, "\n"))
		if err != nil || got != op {
			t.Fatalf("%q read back as %+v, %v; want %+v", line, got, err, op)
		}
		// Any byte changed is caught (or reads the same op).
		for i := range len(line) - 1 {
			b := []byte(line)
			b[i] ^= 0x01
			if g, err := parseLine(strings.TrimSuffix(string(b), "\n")); err == nil && g != op {
				t.Fatalf("%q, a byte changed, read as %+v", b, g)
			}
		}
		ops, good, _ := readJournal(io.MultiReader(strings.NewReader(line), strings.NewReader(line[:len(line)/2])))
		if len(ops) != 1 || good != int64(len(line)) {
			t.Fatalf("a whole line and half of one: %d ops, %d bytes", len(ops), good)
		}
	})
}

// TestJournalHasOneStore: a second store open on the same database (a
// command beside a running server) neither replays nor empties the first
// one's journal; its own moves wait in memory for their game's end.
func TestJournalHasOneStore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.db")
	s := openAt(t, path)
	id := newGame(t, s)
	addMoves(t, s, id, 0, 3)
	other := openAt(t, path)
	if moves, _ := other.Replayed(); moves != 0 {
		t.Errorf("the second store replayed %d moves of the first's live game", moves)
	}
	own := newGame(t, other)
	addMoves(t, other, own, 0, 2)
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	addMoves(t, s, id, 3, 4)
	r := openAt(t, crashImage(t, dir))
	if got := plies(t, r, id); len(got) != 4 {
		t.Errorf("the first store's live game after the second came and went: %v", got)
	}
	if got := plies(t, r, own); len(got) != 2 {
		t.Errorf("the second store's game, closed: %v", got)
	}
}

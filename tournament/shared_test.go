package tournament_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/tournament"
)

// TestOnePool: a tournament kept in a server's store writes through that
// store's one writer. While a write of the store holds the writer, a
// tournament's Create waits in the writer's queue (it opens no connection
// of its own to go around it), and it is committed as soon as the writer
// is free. Closing the tournaments leaves the shared store open.
func TestOnePool(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "kalah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ts := tournament.New(st)

	// Hold the writer: a game is written but not committed yet.
	holding, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // a failing test frees the writer, so the store closes
	held := make(chan error, 1)
	go func() {
		held <- st.Write(ctx, func(tx *sql.Tx) error {
			if _, err := tx.Exec(`INSERT INTO games(rules, seats, south, north, status, created) VALUES ('{}', '[]', 'a', 'b', 'live', 0)`); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	type created struct {
		id  int64
		err error
	}
	done := make(chan created, 1)
	go func() {
		id, err := ts.Create(ctx, tournament.Config{Name: "queued", Players: []string{"first", "greedy"}, Rules: kalah.Rules{Houses: 4, Seeds: 3}})
		done <- created{id, err}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for st.QueuedWrites() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the tournament's write is not in the store's queue: %d queued", st.QueuedWrites())
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case c := <-done:
		t.Fatalf("the tournament was created (%d, %v) while the store's writer was held", c.id, c.err)
	case <-time.After(200 * time.Millisecond):
	}
	// Nothing of it can be read yet.
	if list, err := ts.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("while the writer is held: tournaments %v, %v", list, err)
	}
	free()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	var c created
	select {
	case c = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the tournament's write did not follow the released writer")
	}
	if c.err != nil {
		t.Fatalf("create after the writer was released: %v", c.err)
	}
	in, err := ts.Tournament(ctx, c.id)
	if err != nil || in.Name != "queued" || in.Games != 2 {
		t.Fatalf("the queued tournament: %+v, %v", in, err)
	}
	// Its games are played and stored through the same writer.
	if err := ts.Run(ctx, c.id, tournament.RunOptions{Executor: tournament.Local{Workers: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	var results, games int
	if err := st.ReadDB().QueryRow(`SELECT (SELECT count(*) FROM tournament_results), (SELECT count(*) FROM games)`).Scan(&results, &games); err != nil || results != 2 || games != 1 {
		t.Fatalf("after closing the tournaments, the store reads %d results and %d games (%v)", results, games, err)
	}
}

// TestWriteAtomic: a tournament write that fails leaves nothing behind,
// even though the store commits it in a batch with other writes.
func TestWriteAtomic(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "kalah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ts := tournament.New(st)
	id, err := ts.Create(ctx, tournament.Config{Players: []string{"first", "greedy"}, Rules: kalah.Rules{Houses: 4, Seeds: 3}})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := ts.Schedule(ctx, id)
	if err != nil || len(sched) != 2 {
		t.Fatalf("schedule %v, %v", sched, err)
	}
	good, err := tournament.Play(ctx, tournament.Job{Tournament: id, Game: sched[0], South: "first", North: "greedy", Rules: kalah.Rules{Houses: 4, Seeds: 3}}, "w")
	if err != nil {
		t.Fatal(err)
	}
	// A stray move of the second game makes its result's moves collide:
	// the batch fails as a whole, the first result with it.
	if err := st.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO tournament_moves(game_id, ply, side, move, millis) VALUES (?, 1, 'S', '1', 0)`, sched[1].ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	bad := good
	bad.GameID = sched[1].ID
	if _, err := ts.CommitBatch(ctx, []tournament.Result{good, bad}); err == nil {
		t.Fatal("a batch with a colliding result was committed")
	}
	var n int
	if err := ts.DB().QueryRow(`SELECT count(*) FROM tournament_results`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d results left by a failed batch (%v)", n, err)
	}
}

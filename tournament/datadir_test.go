package tournament_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"kalah/internal/store"
	"kalah/tournament"
)

// TestDataDirRelease3ea50f4: a data directory made by the release at
// 3ea50f4 (games and bots in kalah.db, tournaments in tournaments.db)
// opened by today's server store, with the tournaments on that store (as
// kalah serve does), ends up as one database, kalah.db, holding its games,
// its bots and its tournament; the old file is set aside, and opening
// again imports nothing twice.
func TestDataDirRelease3ea50f4(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"kalah.db", "tournaments.db"} {
		b, err := os.ReadFile(filepath.Join("..", "internal", "store", "testdata", "release-3ea50f4", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	open := func() (*store.Store, *tournament.Store) {
		st, err := store.Open(filepath.Join(dir, "kalah.db"))
		if err != nil {
			t.Fatal(err)
		}
		ts := tournament.New(st)
		if err := ts.MoveIn(ctx, dir); err != nil {
			st.Close()
			t.Fatal(err)
		}
		return st, ts
	}
	st, ts := open()
	check := func() {
		t.Helper()
		games, err := st.Games(ctx, store.Filter{})
		if err != nil || len(games) != 1 {
			t.Fatalf("server games %v, %v", games, err)
		}
		if created, err := st.Authenticate(ctx, "alice", "alice-token-1"); err != nil || created {
			t.Fatalf("alice's old token: created %v, %v", created, err)
		}
		list, err := ts.List(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("tournaments %v, %v", list, err)
		}
		rep, err := ts.Report(ctx, list[0].ID)
		if err != nil || rep.Tournament.Played != 2 || rep.Tournament.Status != tournament.StatusFinished || rep.Standings[0].Player != "greedy" {
			t.Fatalf("the old tournament: %+v, %v", rep.Tournament, err)
		}
		played, err := ts.Games(ctx, list[0].ID)
		if err != nil || len(played) != 2 {
			t.Fatalf("tournament games %v, %v", played, err)
		}
		if _, err := ts.Record(ctx, played[0].ID); err != nil {
			t.Fatalf("record: %v", err)
		}
	}
	check()
	if _, err := os.Stat(filepath.Join(dir, "tournaments.db")); !os.IsNotExist(err) {
		t.Fatalf("tournaments.db still in use: %v", err)
	}
	// The tables live in kalah.db itself.
	var n int
	if err := ts.DB().QueryRow(`SELECT count(*) FROM tournament_results`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("results in kalah.db: %d, %v", n, err)
	}
	ts.Close()
	st.Close()

	// An import that crashed before the renaming is not repeated.
	if err := os.Rename(filepath.Join(dir, "tournaments.db.imported"), filepath.Join(dir, "tournaments.db")); err != nil {
		t.Fatal(err)
	}
	st, ts = open()
	defer st.Close()
	defer ts.Close()
	check()
}

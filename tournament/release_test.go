package tournament

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"kalah"
	"kalah/internal/store"
)

// TestOpenRelease3ea50f4 opens the tournaments of a data directory made by
// the release at 3ea50f4 (internal/store/testdata/release-3ea50f4): the
// finished round-robin is there with its standings and records.
func TestOpenRelease3ea50f4(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "internal", "store", "testdata", "release-3ea50f4", "tournaments.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tournaments.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	ts, err := st.List(ctx)
	if err != nil || len(ts) != 1 {
		t.Fatalf("tournaments %v, %v", ts, err)
	}
	rep, err := st.Report(ctx, ts[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tournament.Played != 2 || rep.Tournament.Status != StatusFinished || len(rep.Standings) != 2 || rep.Standings[0].Player != "greedy" {
		t.Fatalf("the old tournament: %+v", rep.Tournament)
	}
	games, err := st.Games(ctx, ts[0].ID)
	if err != nil || len(games) != 2 {
		t.Fatalf("games %v, %v", games, err)
	}
	if _, err := st.Record(ctx, games[0].ID); err != nil {
		t.Fatalf("record: %v", err)
	}
}

// fixture8b7ed32 copies a database of internal/store/testdata/release-8b7ed32
// into dir as kalah.db and returns its path, with every result it holds
// (game id to south seeds, north seeds and the record's JSON), read before
// today's code opens it.
func fixture8b7ed32(t *testing.T, name, dir string) (string, map[int64][3]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "store", "testdata", "release-8b7ed32", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kalah.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT game_id, south_seeds, north_seeds, record FROM tournament_results`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64][3]string{}
	for rows.Next() {
		var id int64
		var s, n, rec string
		if err := rows.Scan(&id, &s, &n, &rec); err != nil {
			t.Fatal(err)
		}
		out[id] = [3]string{s, n, rec}
	}
	if err := rows.Err(); err != nil || len(out) == 0 {
		t.Fatalf("fixture %s: %d results, %v", name, len(out), err)
	}
	return path, out
}

// sameResults checks that st holds exactly the results read from a
// fixture, records and all.
func sameResults(t *testing.T, st *Store, want map[int64][3]string) {
	t.Helper()
	ctx := context.Background()
	got := 0
	list, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range list {
		games, err := st.Games(ctx, in.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range games {
			w, ok := want[g.ID]
			if !ok {
				continue // played after the migration
			}
			got++
			if fmt.Sprint(g.SouthSeeds) != w[0] || fmt.Sprint(g.NorthSeeds) != w[1] {
				t.Errorf("game %d: %d-%d, was %s-%s", g.ID, g.SouthSeeds, g.NorthSeeds, w[0], w[1])
			}
			rec, err := st.Record(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			var old kalah.Record
			if err := json.Unmarshal([]byte(w[2]), &old); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rec, old) {
				t.Errorf("game %d: record changed:\n%+v\nwas\n%+v", g.ID, rec, old)
			}
		}
	}
	if got != len(want) {
		t.Errorf("%d of the %d results found", got, len(want))
	}
}

func schemaVersion(t *testing.T, st *Store) int {
	t.Helper()
	var v int
	if err := st.DB().QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRelease8b7ed32: the data directory of the release at 8b7ed32, where
// kalah serve's store (schema 3) and tournament.OpenDataDir (tables made
// by its own CREATE IF NOT EXISTS) both wrote kalah.db, opened by today's
// OpenDataDir, which goes through the store: migrated to schema 4, every
// result and record kept, the stopped tournament resumed to its end, and
// the server's game and bot still there.
func TestRelease8b7ed32(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, want := fixture8b7ed32(t, "kalah.db", dir)
	ts, err := OpenDataDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	if v := schemaVersion(t, ts); v < 4 {
		t.Fatalf("schema version %d after opening", v)
	}
	sameResults(t, ts, want)
	list, err := ts.List(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("tournaments %+v, %v", list, err)
	}
	byName := map[string]Info{}
	for _, in := range list {
		byName[in.Name] = in
	}
	if in := byName["finished"]; in.Status != StatusFinished || in.Played != 2 || in.Games != 2 {
		t.Errorf("the finished tournament: %+v", in)
	}
	stopped := byName["stopped"]
	if stopped.Status != StatusStopped || stopped.Played != 1 || stopped.Games != 4 {
		t.Fatalf("the stopped tournament: %+v", stopped)
	}
	if err := ts.Run(ctx, stopped.ID, RunOptions{Executor: Local{Workers: 1}}); err != nil {
		t.Fatal(err)
	}
	rep, err := ts.Report(ctx, stopped.ID)
	if err != nil || rep.Tournament.Status != StatusFinished || rep.Tournament.Played != 4 {
		t.Fatalf("resumed: %+v, %v", rep.Tournament, err)
	}
	sameResults(t, ts, want)
	if err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	// The server's side of the same file.
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	games, err := st.Games(ctx, store.Filter{})
	if err != nil || len(games) != 1 || games[0].Status != store.Finished {
		t.Fatalf("server games %+v, %v", games, err)
	}
	if created, err := st.Authenticate(ctx, "alice", "alice-token-1"); err != nil || created {
		t.Fatalf("alice's token: created %v, %v", created, err)
	}
}

// TestReleaseTournamentOnly8b7ed32: a kalah.db made by kalah tournament
// alone in the release at 8b7ed32 (schema 0, tournament tables only) opens
// through the store: migrated, its Swiss tournament (byes included) as it
// was, and the server's tables beside it.
func TestReleaseTournamentOnly8b7ed32(t *testing.T) {
	ctx := context.Background()
	path, want := fixture8b7ed32(t, "tournament-only.db", t.TempDir())
	ts, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if v := schemaVersion(t, ts); v < 4 {
		t.Fatalf("schema version %d after opening", v)
	}
	sameResults(t, ts, want)
	rep, err := ts.Report(ctx, 1)
	if err != nil || rep.Tournament.Name != "alone" || rep.Tournament.Config.Format != Swiss || rep.Tournament.Played != 4 || rep.Tournament.Status != StatusFinished {
		t.Fatalf("the Swiss: %+v, %v", rep.Tournament, err)
	}
	byes, err := ts.byes(ctx, 1)
	if err != nil || len(byes) != 2 {
		t.Fatalf("byes %v, %v", byes, err)
	}
	ts.Close()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.CreateGame(ctx, store.NewGame{Rules: kalah.Standard(), Seats: [2]store.Seat{{Name: "a", Kind: "spec", Spec: "first"}, {Name: "b", Kind: "spec", Spec: "first"}}}); err != nil {
		t.Fatalf("a server game beside the tournaments: %v", err)
	}
}

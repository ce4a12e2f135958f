package tournament

import (
	"context"
	"os"
	"path/filepath"
	"testing"
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

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTournamentOnPreviousRelease: kalah tournament on its own, in a data
// directory of the release before (kalah.db of 8b7ed32, schema 3 with the
// tournament tables tournament.OpenDataDir made, and a tournaments.db of
// an even older release beside it), opens kalah.db through the server's
// store: it lists every tournament (the old file's moved in once and set
// aside), resumes the stopped one to its end, and shows it.
func TestTournamentOnPreviousRelease(t *testing.T) {
	dir := t.TempDir()
	for _, f := range [][2]string{{"release-8b7ed32/kalah.db", "kalah.db"}, {"release-3ea50f4/tournaments.db", "tournaments.db"}} {
		b, err := os.ReadFile(filepath.Join("..", "..", "internal", "store", "testdata", f[0]))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f[1]), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KALAH_DATA", dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kalah := func(args ...string) string {
		t.Helper()
		var out, errs syncBuffer
		if code := run(ctx, args, strings.NewReader(""), &out, &errs); code != 0 {
			t.Fatalf("kalah %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errs.String())
		}
		return out.String()
	}
	list := kalah("tournament", "--list")
	for _, want := range []string{"finished", "stopped", "1/4", "2/2"} {
		if !strings.Contains(list, want) {
			t.Errorf("--list lacks %q:\n%s", want, list)
		}
	}
	if n := strings.Count(list, "\n"); n != 4 {
		t.Errorf("--list: %d lines, want a header and 3 tournaments:\n%s", n, list)
	}
	if _, err := os.Stat(filepath.Join(dir, "tournaments.db.imported")); err != nil {
		t.Errorf("the old tournaments.db is not set aside: %v", err)
	}
	kalah("tournament", "--resume", "2", "--no-nats", "--live", "0")
	if show := kalah("tournament", "--show", "2"); !strings.Contains(show, "4 of 4 games played") {
		t.Errorf("--show 2 after resuming:\n%s", show)
	}
	// Listed again: nothing moved in twice.
	if again := kalah("tournament", "--list"); strings.Count(again, "\n") != 4 {
		t.Errorf("--list again:\n%s", again)
	}
}

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/egdb"
	"kalah/engine"
)

// TestPlayQuitNeverWaitsForTheDatabase runs the full-screen kalah play on
// a pseudo-terminal with builds on first use on, as a person has them:
// against medium, quitting at once exits within a second, and no build
// ran (nothing in the database directory: no lock, no checkpoint; the
// hints' perfect player was made, never asked). Against perfect, the
// game starts the build (a smaller database, 19 seeds, tens of seconds); quitting once it is under way exits within seconds, says
// where it stopped and that its progress is kept, and leaves its
// checkpoints and no lock; the next kalah play, a hint asked, resumes it
// from there.
func TestPlayQuitNeverWaitsForTheDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildKalah(t)
	dir := t.TempDir() // the databases
	t.Setenv("KALAH_EGDB_DIR", dir)
	t.Setenv("KALAH_BUILD_EGDB", "") // on, as by default (TestMain turns it off)
	t.Setenv(engine.FirstUseSeedsEnv, "19")
	r := kalah.Standard()
	path := filepath.Join(dir, egdb.FileName(r, 19))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// quit quits, a game in progress (asked) or not, and returns the
	// time from the last key to the exit.
	quit := func(g *ptyGame, asked bool) time.Duration {
		t.Helper()
		start := time.Now()
		g.send("q")
		if asked {
			g.wait("Quit?")
			start = time.Now()
			g.send("y")
		}
		g.exited()
		return time.Since(start)
	}

	t.Run("medium", func(t *testing.T) {
		g := startPTY(t, ctx, bin, 120, 40, "--opponent", "medium", "--delay", "0", "--data", t.TempDir())
		g.wait("South (you) to move")
		d := quit(g, false)
		t.Logf("quit in %v", d)
		if d > time.Second {
			t.Errorf("quitting a game against medium took %v, want a second at most", d)
		}
		if files, _ := os.ReadDir(dir); len(files) != 0 {
			t.Errorf("a game against medium left %d files in the database directory (%v): a build ran", len(files), files)
		}
		if strings.Contains(g.scr.String(), "endgame database") {
			t.Errorf("a game against medium spoke of the database:\n%s", g.scr.String())
		}
	})

	t.Run("perfect", func(t *testing.T) {
		data := t.TempDir()
		g := startPTY(t, ctx, bin, 120, 40, "--opponent", "perfect", "--delay", "0", "--data", data)
		// The perfect level chosen: the build starts before its first move.
		g.wait("Building the perfect player's endgame database (19 seeds, once)")
		g.wait("South (you) to move")
		g.send("1")
		// Under way: a checkpoint, past its first seed counts.
		for deadline := time.Now().Add(2 * time.Minute); ; {
			if egdb.Checkpointed(path, r, 19) > egdb.Size(6, 19)/20 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the build reached no 5%% checkpoint in 2 minutes; screen:\n%s", g.scr.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
		d := quit(g, true)
		t.Logf("quit during the build in %v", d)
		if d > 10*time.Second {
			t.Errorf("quitting during the build took %v: it waits for the build", d)
		}
		g.wait("The perfect player's endgame database stopped at")
		g.wait("its progress is kept")
		if _, err := os.Stat(path + ".lock"); err == nil {
			t.Error("the stopped build left its lock file")
		}
		if _, err := os.Stat(path); err == nil {
			t.Fatal("the database was written: the build was not stopped")
		}
		kept := egdb.Checkpointed(path, r, 19)
		if kept == 0 {
			t.Fatal("no progress kept")
		}

		g = startPTY(t, ctx, bin, 120, 40, "--delay", "0", "--data", data, "--resume")
		g.wait("South (you) to move")
		g.send("h") // a hint asks the perfect player: the build goes on
		pct := 100 * kept / egdb.Size(6, 19)
		g.wait(fmt.Sprintf("(19 seeds, once): %d%%, resumed where the last run stopped", pct))
		screen := g.scr.String()
		t.Logf("kept %d%%; %s", pct, screen[strings.Index(screen, "Building"):][:100])
		quit(g, true)
	})
}

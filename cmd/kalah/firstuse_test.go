package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kalah"
	"kalah/egdb"
	"kalah/engine"
)

// TestMatchBuildsDBOnFirstUse runs kalah match --build-egdb as a person
// would, with a database small enough to build in seconds (15 seeds,
// engine.FirstUseSeedsEnv) and longer to build than the match takes to
// play: the match plays, then says it finishes the database, with its
// progress, and exits once it is written; a second run, interrupted
// (SIGINT) while it waits, says the build stopped with its progress kept,
// exits at once and leaves no database and no lock file, its checkpoints
// kept. A match without the flag builds nothing, and says the perfect
// player plays without its database.
func TestMatchBuildsDBOnFirstUse(t *testing.T) {
	bin := buildKalah(t)
	r := kalah.Standard()
	run := func(dir string, flags ...string) (*exec.Cmd, *syncBuffer) {
		t.Helper()
		var stderr syncBuffer
		cmd := exec.Command(bin, append([]string{"match", "--data", t.TempDir(), "--a", "perfect", "--b", "greedy", "--seeds", "3", "--games", "2", "--quiet"}, flags...)...)
		cmd.Env = append(os.Environ(), "KALAH_EGDB_DIR="+dir, engine.FirstUseSeedsEnv+"=15", "KALAH_BUILD_EGDB=")
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stderr
	}

	dir := t.TempDir()
	cmd, stderr0 := run(dir)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("without --build-egdb: %v", err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("without --build-egdb the match left %d files", len(files))
	}
	if !strings.Contains(stderr0.String(), "the perfect player plays without its endgame database of 24 seeds") || !strings.Contains(stderr0.String(), "kalah egdb build --seeds 24") {
		t.Errorf("without the database or --build-egdb, the match does not say so and how to build it:\n%s", stderr0)
	}

	cmd, stderr := run(dir, "--build-egdb")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kalah match --build-egdb: %v\n%s", err, stderr)
	}
	for _, want := range []string{"Finishing the perfect player's endgame database", "Building the perfect player's endgame database (15 seeds, once)", "is built"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr.String(), "no endgame database") {
		t.Errorf("a warning of no database beside the build:\n%s", stderr)
	}
	path := filepath.Join(dir, egdb.FileName(r, 15))
	if db, err := egdb.Open(path, false); err != nil {
		t.Errorf("the database after the match: %v", err)
	} else {
		db.Close()
	}

	dir2 := t.TempDir()
	cmd, stderr = run(dir2, "--build-egdb")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for !strings.Contains(stderr.String(), "Finishing") {
		if ctx.Err() != nil {
			t.Fatalf("no wait for the build:\n%s", stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	start := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("interrupted while it waits: %v\n%s", err, stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the interrupted wait took %v to end", d)
	}
	if !strings.Contains(stderr.String(), "stopped at") || !strings.Contains(stderr.String(), "its progress is kept") {
		t.Errorf("stderr does not say the build stopped, its progress kept:\n%s", stderr)
	}
	path2 := filepath.Join(dir2, egdb.FileName(r, 15))
	if _, err := os.Stat(path2); err == nil {
		t.Error("an interrupted build left its file")
	}
	if _, err := os.Stat(path2 + ".lock"); err == nil {
		t.Error("an interrupted build left its lock file")
	}
}

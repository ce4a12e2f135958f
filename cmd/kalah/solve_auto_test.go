package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"kalah"
	"kalah/egdb"
)

// TestAutoSeeds checks the database a solve picks with no flags: by the
// seeds of the position, unless a larger one is already built.
func TestAutoSeeds(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KALAH_EGDB_DIR", dir)
	std := kalah.Standard()
	for _, c := range []struct{ seeds, want int }{{60, 24}, {56, 24}, {55, 17}, {48, 17}, {47, 16}, {36, 13}, {18, 7}, {2, 1}} {
		if got := autoSeeds(std, c.seeds); got != c.want {
			t.Errorf("autoSeeds(standard, %d) = %d, want %d", c.seeds, got, c.want)
		}
	}
	egypt := std
	egypt.EmptyCapture = true
	for _, c := range []struct{ seeds, want int }{{60, 24}, {48, 17}, {36, 13}} {
		if got := autoSeeds(egypt, c.seeds); got != c.want {
			t.Errorf("autoSeeds(empty capture, %d) = %d, want %d", c.seeds, got, c.want)
		}
	}
	// A database already built wins, larger or smaller.
	if err := os.WriteFile(filepath.Join(dir, egdb.FileName(std, 20)), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, seeds := range []int{60, 48, 10} {
		if got := autoSeeds(std, seeds); got != 20 {
			t.Errorf("with a 20-seed database built, autoSeeds(standard, %d) = %d, want 20", seeds, got)
		}
	}
}

// TestAutoTableMB checks the table a solve takes: as asked, 256 MiB up to
// 48 seeds, and above that half the memory available, from 2 GiB to
// maxAutoMB.
func TestAutoTableMB(t *testing.T) {
	if got := autoTableMB(100, 60); got != 100 {
		t.Errorf("asked for 100 MiB, got %d", got)
	}
	if got := autoTableMB(0, 48); got != 256 {
		t.Errorf("48 seeds: %d MiB, want 256", got)
	}
	got := autoTableMB(0, 60)
	if got < 2048 || got > maxAutoMB {
		t.Errorf("60 seeds: %d MiB, want 2048 to %d", got, maxAutoMB)
	}
	avail, ok := availableMB()
	switch {
	case runtime.GOOS == "linux" && (!ok || avail <= 0):
		t.Errorf("availableMB on Linux: %d, %v", avail, ok)
	case ok && avail >= 2*maxAutoMB && got != maxAutoMB:
		t.Errorf("60 seeds with %d MiB available: %d MiB, want %d", avail, got, maxAutoMB)
	case ok && avail < 4096 && got != 2048:
		t.Errorf("60 seeds with %d MiB available: %d MiB, want 2048", avail, got)
	case !ok && got != 2048:
		t.Errorf("60 seeds, memory unknown: %d MiB, want 2048", got)
	}
}

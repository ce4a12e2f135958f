package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kalah"
	"kalah/egdb"
)

// perfectDB returns the directory of the perfect player's endgame database
// for r: KALAH_EGDB_DIR if it holds it, else a temporary one where it is
// built (about half a minute on two cores), and the database loaded.
func perfectDB(t *testing.T, r kalah.Rules) (string, *egdb.DB) {
	t.Helper()
	name := egdb.FileName(r, PerfectDBSeeds)
	if dir := os.Getenv("KALAH_EGDB_DIR"); dir != "" {
		if db, err := egdb.Load(filepath.Join(dir, name)); err == nil {
			return dir, db
		}
	}
	dir := t.TempDir()
	start := time.Now()
	db, err := egdb.Build(context.Background(), r, PerfectDBSeeds, egdb.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.WriteFile(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	t.Logf("built the %d-seed database in %v (set KALAH_EGDB_DIR to a directory holding %s to skip this)", PerfectDBSeeds, time.Since(start).Round(time.Second), name)
	return dir, db
}

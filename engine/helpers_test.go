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

// testDB returns a directory holding an endgame database for r of at
// least k seeds, and that database loaded: the largest in KALAH_EGDB_DIR if
// it has one, else one of k seeds built in a temporary directory (20 seeds:
// half a minute on two cores; 24: several minutes and 2.5 GB).
func testDB(t *testing.T, r kalah.Rules, k int) (string, *egdb.DB) {
	t.Helper()
	if dir := os.Getenv("KALAH_EGDB_DIR"); dir != "" {
		for kk := 40; kk >= k; kk-- {
			if db, err := egdb.Load(filepath.Join(dir, egdb.FileName(r, kk))); err == nil {
				return dir, db
			}
		}
	}
	dir := t.TempDir()
	name := egdb.FileName(r, k)
	start := time.Now()
	db, err := egdb.Build(context.Background(), r, k, egdb.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.WriteFile(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	t.Logf("built the %d-seed database in %v (set KALAH_EGDB_DIR to a directory holding %s or a larger one to skip this)", k, time.Since(start).Round(time.Second), name)
	return dir, db
}

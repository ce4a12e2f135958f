package web

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: games, event
// streams and tournaments all end with their owner. The engine's endgame
// databases are looked for in an empty directory, so what the tests see
// does not depend on the databases a user has built.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kalah-web-egdb-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("KALAH_EGDB_DIR", dir)
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

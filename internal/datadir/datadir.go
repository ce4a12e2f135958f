// Package datadir says where kalah keeps what it writes: one data
// directory for every command, holding one database (kalah.db: the
// server's games, bots, accounts and the tournaments), the endgame
// databases (egdb/), saved games and logs.
package datadir

import (
	"os"
	"path/filepath"
	"sync"
)

// Env is the environment variable that names the data directory.
const Env = "KALAH_DATA"

var (
	mu       sync.Mutex
	override string
)

// Set makes dir the data directory for this process (the --data flag); ""
// goes back to the default. It returns the previous setting.
func Set(dir string) (prev string) {
	mu.Lock()
	defer mu.Unlock()
	prev, override = override, dir
	return prev
}

// Get returns what Set last gave ("" for the default).
func Get() string {
	mu.Lock()
	defer mu.Unlock()
	return override
}

// Dir returns the data directory: the one Set gave, else $KALAH_DATA, else
// ./kalah-data if it exists, else kalah under $XDG_DATA_HOME or
// ~/.local/share.
func Dir() string {
	mu.Lock()
	d := override
	mu.Unlock()
	if d != "" {
		return d
	}
	if d := os.Getenv(Env); d != "" {
		return d
	}
	if fi, err := os.Stat("kalah-data"); err == nil && fi.IsDir() {
		return "kalah-data"
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "kalah")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "kalah")
	}
	return "kalah-data"
}

// Path returns name inside the data directory.
func Path(name ...string) string { return filepath.Join(append([]string{Dir()}, name...)...) }

// Package datadir says where kalah keeps what it writes: one data
// directory for every command, holding one database (kalah.db: the
// server's games, bots, accounts and the tournaments), the endgame
// databases (egdb/), saved games and logs.
package datadir

import (
	"errors"
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

// DirMode and FileMode are the modes of what kalah keeps: the data
// directory holds password hashes, session and bot token hashes and the
// admin token, so it and the database's files are its owner's only.
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// Ensure makes dir (and any missing parent) with DirMode, and narrows an
// existing dir to it: a data directory made by an older release, or by
// hand, with a mode that let others read it.
func Ensure(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&^DirMode != 0 {
		return os.Chmod(dir, fi.Mode().Perm()&DirMode)
	}
	return nil
}

// PrivateFile makes the file at path, empty, with FileMode if it does not
// exist, and narrows an existing one to FileMode.
func PrivateFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&^FileMode != 0 {
		return f.Chmod(fi.Mode().Perm() & FileMode)
	}
	return nil
}

// NarrowFile narrows the file at path to FileMode if it exists.
func NarrowFile(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&^FileMode != 0 {
		return os.Chmod(path, fi.Mode().Perm()&FileMode)
	}
	return nil
}

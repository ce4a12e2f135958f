package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"kalah"
)

// TestFileModes: the database and its -wal and -shm files hold password
// and token hashes: the owner's only (0600), in a directory made 0700; a
// database left 0644 by an older release is narrowed when opened.
func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "new")
	path := filepath.Join(dir, "kalah.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateUser(context.Background(), "ann", "a long password"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateGame(context.Background(), NewGame{Rules: kalah.Standard(), Seats: [2]Seat{{Name: "a", Kind: "bot"}, {Name: "b", Kind: "bot"}}}); err != nil {
		t.Fatal(err)
	}
	mode := func(p string) os.FileMode {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if m := mode(p); m != 0o600 {
			t.Errorf("%s: mode %v, want 0600", filepath.Base(p), m)
		}
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if m := mode(d); m != 0o700 {
			t.Errorf("directory %s made with mode %v, want 0700", d, m)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// An older release's modes are narrowed: the database, and a -shm
	// file left beside it.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+"-shm", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path+"-shm", 0o644)
	st, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if m := mode(path); m != 0o600 {
		t.Errorf("an existing kalah.db of mode 0644 left at %v, want 0600", m)
	}
	if m := mode(path + "-shm"); m != 0o600 {
		t.Errorf("an existing -shm of mode 0644 left at %v, want 0600", m)
	}
}

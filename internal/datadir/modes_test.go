package datadir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEnsureNarrows: a data directory is made 0700, and one an older
// release made 0755 is narrowed to 0700; a file is made or narrowed to 0600.
func TestEnsureNarrows(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kalah")
	if err := Ensure(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("made with mode %v, want 0700", fi.Mode().Perm())
	}
	os.Chmod(dir, 0o755)
	if err := Ensure(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("an existing 0755 directory left at %v, want 0700", fi.Mode().Perm())
	}
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("x"), 0o644)
	if err := PrivateFile(f); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o600 || fi.Size() != 1 {
		t.Fatalf("an existing file: mode %v size %d, want 0600 and its content kept", fi.Mode().Perm(), fi.Size())
	}
}

package datadir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteFileWholeOrNot: a write that fails leaves neither a file under
// the final name nor a temporary one; one that succeeds leaves exactly the
// bytes, with the mode asked for.
func TestWriteFileWholeOrNot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "x.bin")
	boom := errors.New("boom")
	err := WriteFile(path, 0o600, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 0 {
		t.Fatalf("a failed write left %v", ents)
	}
	if err := WriteBytes(path, 0o640, []byte("whole")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if err != nil || string(b) != "whole" || fi.Mode().Perm() != 0o640 {
		t.Fatalf("read %q %v, mode %v", b, err, fi.Mode())
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Fatalf("left %v", ents)
	}
}

// TestWriteFileErrorNamesFile: when the file cannot be put in place, the
// error names the file asked for, with the cause and what to do, never the
// temporary file beside it.
func TestWriteFileErrorNamesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "game.json")
	// A directory, not empty, where the file should go: no rename there.
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteBytes(path, 0o644, []byte("{}"))
	if err == nil {
		t.Fatal("a file written over a directory")
	}
	want := "write " + path + ": "
	if s := err.Error(); !strings.HasPrefix(s, want) || strings.Contains(s, ".game.json-") || !strings.Contains(s, "remove it or write elsewhere") {
		t.Errorf("err %q: want it to start %q, give the cause and what to do, and name no temporary file", s, want)
	}
	if !errors.Is(err, syscall.EISDIR) && !errors.Is(err, syscall.EEXIST) && !errors.Is(err, syscall.ENOTEMPTY) {
		t.Errorf("err %v: the cause is lost", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %v", ents)
	}
}

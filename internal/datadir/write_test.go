package datadir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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

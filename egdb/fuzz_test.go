package egdb

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"kalah"
)

// FuzzRead feeds arbitrary bytes, and mutations of a real database, to the
// reader: it must refuse them with ErrCorrupt or accept a consistent
// database, and never panic.
func FuzzRead(f *testing.F) {
	db, err := Build(context.Background(), kalah.Rules{Houses: 2, Seeds: 2}, 4, BuildOptions{Workers: 1})
	if err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(f.TempDir(), "db.egdb")
	if err := db.WriteFile(path); err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	good, err := Open(path, false)
	if err != nil {
		f.Fatal(err)
	}
	buf.Write(good.mmap)
	good.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("KALAHEGD"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if uint64(len(db.vals)) != db.Entries() || db.Entries() != Size(db.Houses(), db.Seeds()) {
			t.Fatalf("accepted an inconsistent database: %s", db.Describe())
		}
	})
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
)

// TestDiskFullIsUnavailable: SQLite's own SQLITE_FULL (the database may
// not grow) is told as ErrUnavailable, a write to try again later, and the
// same write goes through once there is room.
func TestDiskFullIsUnavailable(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "kalah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.LimitSize(ctx, 1); err != nil {
		t.Fatal(err)
	}
	insert := func(i int) error {
		return st.Write(ctx, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO moves(game, ply, side, house, swap, ms) VALUES(1,?,'S',1,0,0)`, i)
			return err
		})
	}
	var full error
	i := 0
	for ; i < 100_000 && full == nil; i++ {
		full = insert(i)
	}
	if !errors.Is(full, ErrUnavailable) {
		t.Fatalf("a full database's write: %v, want ErrUnavailable", full)
	}
	if err := st.LimitSize(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := insert(i); err != nil {
		t.Fatalf("with room again: %v", err)
	}
}

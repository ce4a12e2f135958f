package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// secretsSchema holds what the server keeps to itself: random keys it signs
// cookies with, and the guests it has named. Its tables are created on
// every open (they are new, and nothing older needs moving into them).
const secretsSchema = `
CREATE TABLE IF NOT EXISTS server_secrets (
	name    TEXT PRIMARY KEY,
	value   BLOB NOT NULL,
	created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS guests (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	created INTEGER NOT NULL
);
`

// Secret returns the server's secret key called name: 32 random bytes made
// at its first use and kept in the store, so cookies signed with it stay
// valid across restarts and no two stores share one.
func (s *Store) Secret(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.db.QueryRowContext(ctx, `SELECT value FROM server_secrets WHERE name=?`, name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: secret %s: %w", name, err)
	}
	fresh := make([]byte, 32)
	rand.Read(fresh)
	err = s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO server_secrets(name, value, created) VALUES(?,?,?) ON CONFLICT(name) DO NOTHING`, name, fresh, time.Now().UnixMilli()); err != nil {
			return err
		}
		// Another caller may have made it first: the stored one holds.
		return tx.QueryRow(`SELECT value FROM server_secrets WHERE name=?`, name).Scan(&v)
	})
	if err != nil {
		return nil, fmt.Errorf("store: secret %s: %w", name, err)
	}
	return v, nil
}

// NewGuest numbers a new guest: numbers are never given twice (the table
// is AUTOINCREMENT), so the name made of one ("guest-17") belongs to one
// guest for good.
func (s *Store) NewGuest(ctx context.Context) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		return tx.QueryRow(`INSERT INTO guests(created) VALUES(?) RETURNING id`, time.Now().UnixMilli()).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("store: new guest: %w", err)
	}
	return id, nil
}

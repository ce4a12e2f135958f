package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// secretsSchema holds what the server keeps to itself: random keys it signs
// cookies with, the guests it has named, and the lookup hashes of bot
// tokens their owners replaced (RotateBotToken), so an old token registers
// no new bot either. Its tables are created on
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
CREATE TABLE IF NOT EXISTS revoked_tokens (
	lookup  BLOB PRIMARY KEY,
	bot     TEXT NOT NULL,
	at      INTEGER NOT NULL
);
`

// Secret returns the server's secret key called name: 32 random bytes made
// at its first use and kept in the store, so cookies signed with it stay
// valid across restarts and no two stores share one.
func (s *Store) Secret(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.queryRow(ctx, `SELECT value FROM server_secrets WHERE name=?`, name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: secret %s: %w", name, err)
	}
	fresh := make([]byte, 32)
	rand.Read(fresh)
	err = s.write(ctx, func(tx *Tx) error {
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
	err := s.write(ctx, func(tx *Tx) error {
		return tx.QueryRow(`INSERT INTO guests(created) VALUES(?) RETURNING id`, time.Now().UnixMilli()).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("store: new guest: %w", err)
	}
	return id, nil
}

// ErrRevokedToken refuses a bot token its owner replaced.
var ErrRevokedToken = errors.New("this token was replaced by the bot's owner")

// RotateBotToken gives owner's bot name a new token and returns it with
// the bot's name as registered; the old token finds the bot no more from
// the moment this returns, by name or alone, and cannot register another
// bot. A bot that is not owner's is ErrNotFound (whose it is is not told).
func (s *Store) RotateBotToken(ctx context.Context, owner, name string) (canon, token string, err error) {
	b := make([]byte, 24)
	rand.Read(b)
	token = hex.EncodeToString(b)
	salt, hash := newCredential(token)
	err = s.write(ctx, func(tx *Tx) error {
		var who sql.NullString
		var old []byte
		err := tx.QueryRow(`SELECT name, owner, lookup FROM bots WHERE name=? COLLATE NOCASE`, name).Scan(&canon, &who, &old)
		if errors.Is(err, sql.ErrNoRows) || err == nil && !strings.EqualFold(who.String, owner) {
			return fmt.Errorf("%w: you have no bot %q", ErrNotFound, name)
		}
		if err != nil {
			return err
		}
		if old != nil {
			if _, err := tx.Exec(`INSERT INTO revoked_tokens(lookup, bot, at) VALUES(?,?,?) ON CONFLICT(lookup) DO NOTHING`, old, canon, time.Now().UnixMilli()); err != nil {
				return err
			}
		}
		_, err = tx.Exec(`UPDATE bots SET salt=?, hash=?, lookup=? WHERE name=?`, salt, hash, tokenLookup(token), canon)
		return err
	})
	if err != nil {
		return "", "", fmt.Errorf("store: new token of bot %q: %w", name, err)
	}
	return canon, token, nil
}

// tokenRevoked reports whether token was replaced by its bot's owner.
func (s *Store) tokenRevoked(ctx context.Context, token string) (bool, error) {
	var one int
	err := s.queryRow(ctx, `SELECT 1 FROM revoked_tokens WHERE lookup=?`, tokenLookup(token)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

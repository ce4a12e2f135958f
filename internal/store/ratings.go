package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"kalah/internal/identity"
	"kalah/rating"
)

// RatingChange is one player's rating before and after a rated game.
type RatingChange struct {
	ID     identity.ID   `json:"id"`
	Name   string        `json:"name"`
	Pool   string        `json:"pool"`
	Before float64       `json:"before"`
	After  rating.Rating `json:"after"`
}

// errRatedBefore rolls back a rating of a game rated before.
var errRatedBefore = errors.New("store: rated before")

// RateGame rates finished game id between ids (South's first) in pool,
// South scoring score (1, 0.5 or 0), once: a game rated before is not
// rated again. It returns both changes. Ratings are kept by identity,
// never by the name's text.
func (s *Store) RateGame(ctx context.Context, id int64, pool string, ids [2]identity.ID, score float64) ([2]RatingChange, error) {
	r := Rate{Pool: pool, IDs: ids, Score: score}
	if err := r.check(); err != nil {
		return [2]RatingChange{}, fmt.Errorf("store: rate game %d: %w", id, err)
	}
	var out [2]RatingChange
	err := s.write(ctx, func(tx *Tx) (err error) {
		out, err = rateGame(tx, id, r)
		return err
	})
	if errors.Is(err, errRatedBefore) {
		return [2]RatingChange{}, nil
	}
	if err != nil {
		return out, fmt.Errorf("store: rate game %d: %w", id, err)
	}
	return out, nil
}

// Rate is a finished game's rating: its pool, its seats (South's first)
// and South's score (1, 0.5 or 0).
type Rate struct {
	Pool  string
	IDs   [2]identity.ID
	Score float64
}

// check refuses a rating between seats that cannot be rated, or one
// identity against itself.
func (r Rate) check() error {
	if !r.IDs[0].Rated() || !r.IDs[1].Rated() || r.IDs[0].Is(r.IDs[1]) {
		return fmt.Errorf("%v against %v: %w", r.IDs[0], r.IDs[1], ErrBadAccount)
	}
	return nil
}

// rateGame rates game id in tx: it fails with errRatedBefore, having
// written nothing, if the game was rated before.
func rateGame(tx *Tx, id int64, r Rate) ([2]RatingChange, error) {
	var out [2]RatingChange
	ids, pool := r.IDs, r.Pool
	keys := [2]string{ids[0].Key(), ids[1].Key()}
	before := [2]rating.Rating{rating.New(), rating.New()}
	rows, err := tx.Query(`SELECT id, rating, rd, vol, games FROM ratings WHERE pool=? AND id IN (?,?)`, pool, keys[0], keys[1])
	if err != nil {
		return out, err
	}
	for rows.Next() {
		var key string
		var x rating.Rating
		if err := rows.Scan(&key, &x.Rating, &x.RD, &x.Vol, &x.Games); err != nil {
			rows.Close()
			return out, err
		}
		for i := range keys {
			if keys[i] == key {
				before[i] = x
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, err
	}
	after := [2]rating.Rating{}
	after[0], after[1] = rating.Game(before[0], before[1], r.Score)
	now := time.Now().UnixMilli()
	// The history first: a game rated before has its rows (the primary
	// key is the game's and the identity's), and is not rated again.
	res, err := tx.Exec(`INSERT OR IGNORE INTO rating_history(game, id, name, pool, before, after, rd, at) VALUES(?,?,?,?,?,?,?,?), (?,?,?,?,?,?,?,?)`,
		id, keys[0], ids[0].Name, pool, before[0].Rating, after[0].Rating, after[0].RD, now,
		id, keys[1], ids[1].Name, pool, before[1].Rating, after[1].Rating, after[1].RD, now)
	if err != nil {
		return out, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 2 {
		return out, cmp.Or(err, errRatedBefore)
	}
	if _, err := tx.Exec(`INSERT INTO ratings(id, name, pool, rating, rd, vol, games, updated) VALUES(?,?,?,?,?,?,?,?), (?,?,?,?,?,?,?,?)
		ON CONFLICT(id, pool) DO UPDATE SET name=excluded.name, rating=excluded.rating, rd=excluded.rd, vol=excluded.vol, games=excluded.games, updated=excluded.updated`,
		keys[0], ids[0].Name, pool, after[0].Rating, after[0].RD, after[0].Vol, after[0].Games, now,
		keys[1], ids[1].Name, pool, after[1].Rating, after[1].RD, after[1].Vol, after[1].Games, now); err != nil {
		return out, err
	}
	for i, who := range ids {
		out[i] = RatingChange{ID: who, Name: who.Name, Pool: pool, Before: before[i].Rating, After: after[i]}
	}
	return out, nil
}

// GameRatings returns the rating changes of game id (none if unrated).
func (s *Store) GameRatings(ctx context.Context, id int64) ([]RatingChange, error) {
	rows, err := s.query(ctx, `SELECT h.id, h.name, h.pool, h.before, h.after, h.rd, coalesce(r.vol, 0), coalesce(r.games, 0)
		FROM rating_history h LEFT JOIN ratings r ON r.id = h.id AND r.pool = h.pool WHERE h.game=?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RatingChange
	for rows.Next() {
		var c RatingChange
		var key string
		if err := rows.Scan(&key, &c.Name, &c.Pool, &c.Before, &c.After.Rating, &c.After.RD, &c.After.Vol, &c.After.Games); err != nil {
			return nil, err
		}
		c.ID = idOfKey(key, c.Name)
		out = append(out, c)
	}
	return out, rows.Err()
}

// idOfKey rebuilds an identity from its stored key and display name.
func idOfKey(key, name string) identity.ID {
	k, _, _ := strings.Cut(key, ":")
	return identity.Of(identity.Kind(k), name)
}

// Rated is a player on a ladder.
type Rated struct {
	ID   identity.ID `json:"id"`
	Name string      `json:"name"`
	Pool string      `json:"pool"`
	rating.Rating
	Provisional bool      `json:"provisional"`
	Updated     time.Time `json:"updated"`
}

func scanRated(rows *sql.Rows) ([]Rated, error) {
	defer rows.Close()
	var out []Rated
	for rows.Next() {
		var r Rated
		var updated int64
		var key string
		if err := rows.Scan(&key, &r.Name, &r.Pool, &r.Rating.Rating, &r.RD, &r.Vol, &r.Games, &updated); err != nil {
			return nil, err
		}
		r.ID = idOfKey(key, r.Name)
		r.Provisional, r.Updated = r.Rating.Provisional(), time.UnixMilli(updated)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Leaderboard returns the best limit players of pool (empty: every pool),
// provisional ratings after the others.
func (s *Store) Leaderboard(ctx context.Context, pool string, limit int) ([]Rated, error) {
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	rows, err := s.query(ctx, `SELECT id, name, pool, rating, rd, vol, games, updated FROM ratings
		WHERE (?='' OR pool=?) ORDER BY rd > ?, rating DESC LIMIT ?`, pool, pool, rating.ProvisionalRD, limit)
	if err != nil {
		return nil, err
	}
	return scanRated(rows)
}

// PlayerRatings returns who's ratings on every ladder it played on.
func (s *Store) PlayerRatings(ctx context.Context, who identity.ID) ([]Rated, error) {
	rows, err := s.query(ctx, `SELECT id, name, pool, rating, rd, vol, games, updated FROM ratings WHERE id=? ORDER BY games DESC`, who.Key())
	if err != nil {
		return nil, err
	}
	return scanRated(rows)
}

// HistoryPoint is a player's rating after one game.
type HistoryPoint struct {
	Game   int64   `json:"game"`
	Pool   string  `json:"pool"`
	Rating float64 `json:"rating"`
	// Before is the rating the game started from: a chart of one rated
	// game is a line from it.
	Before float64   `json:"before"`
	At     time.Time `json:"at"`
}

// RatingHistory returns who's rating after each of its rated games,
// oldest first (at most the last 500).
func (s *Store) RatingHistory(ctx context.Context, who identity.ID) ([]HistoryPoint, error) {
	rows, err := s.query(ctx, `SELECT game, pool, after, before, at FROM (SELECT * FROM rating_history WHERE id=? ORDER BY at DESC LIMIT 500) ORDER BY at`, who.Key())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HistoryPoint
	for rows.Next() {
		var p HistoryPoint
		var at int64
		if err := rows.Scan(&p.Game, &p.Pool, &p.Rating, &p.Before, &at); err != nil {
			return nil, err
		}
		p.At = time.UnixMilli(at)
		out = append(out, p)
	}
	return out, rows.Err()
}

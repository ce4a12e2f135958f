package store

import (
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

func ratingOf(tx *Tx, id identity.ID, pool string) (rating.Rating, error) {
	r := rating.New()
	err := tx.QueryRow(`SELECT rating, rd, vol, games FROM ratings WHERE id=? AND pool=?`, id.Key(), pool).Scan(&r.Rating, &r.RD, &r.Vol, &r.Games)
	if errors.Is(err, sql.ErrNoRows) {
		return rating.New(), nil
	}
	return r, err
}

// RateGame rates finished game id between ids (South's first) in pool,
// South scoring score (1, 0.5 or 0), once: a game rated before is not
// rated again. It returns both changes. Ratings are kept by identity,
// never by the name's text.
func (s *Store) RateGame(ctx context.Context, id int64, pool string, ids [2]identity.ID, score float64) ([2]RatingChange, error) {
	var out [2]RatingChange
	if !ids[0].Rated() || !ids[1].Rated() || ids[0].Is(ids[1]) {
		return out, fmt.Errorf("store: rate game %d: %v against %v: %w", id, ids[0], ids[1], ErrBadAccount)
	}
	err := s.write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM rating_history WHERE game=?`, id).Scan(&n); err != nil || n > 0 {
			return err
		}
		var before [2]rating.Rating
		for i, who := range ids {
			r, err := ratingOf(tx, who, pool)
			if err != nil {
				return err
			}
			before[i] = r
		}
		after := [2]rating.Rating{}
		after[0], after[1] = rating.Game(before[0], before[1], score)
		now := time.Now().UnixMilli()
		for i, who := range ids {
			a := after[i]
			if _, err := tx.Exec(`INSERT INTO ratings(id, name, pool, rating, rd, vol, games, updated) VALUES(?,?,?,?,?,?,?,?)
				ON CONFLICT(id, pool) DO UPDATE SET name=excluded.name, rating=excluded.rating, rd=excluded.rd, vol=excluded.vol, games=excluded.games, updated=excluded.updated`,
				who.Key(), who.Name, pool, a.Rating, a.RD, a.Vol, a.Games, now); err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO rating_history(game, id, name, pool, before, after, rd, at) VALUES(?,?,?,?,?,?,?,?)`,
				id, who.Key(), who.Name, pool, before[i].Rating, a.Rating, a.RD, now); err != nil {
				return err
			}
			out[i] = RatingChange{ID: who, Name: who.Name, Pool: pool, Before: before[i].Rating, After: a}
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store: rate game %d: %w", id, err)
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

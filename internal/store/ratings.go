package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"kalah/rating"
)

// RatingChange is one player's rating before and after a rated game.
type RatingChange struct {
	Name   string        `json:"name"`
	Pool   string        `json:"pool"`
	Before float64       `json:"before"`
	After  rating.Rating `json:"after"`
}

func ratingOf(tx *sql.Tx, name, pool string) (rating.Rating, error) {
	r := rating.New()
	err := tx.QueryRow(`SELECT rating, rd, vol, games FROM ratings WHERE name=? AND pool=?`, name, pool).Scan(&r.Rating, &r.RD, &r.Vol, &r.Games)
	if errors.Is(err, sql.ErrNoRows) {
		return rating.New(), nil
	}
	return r, err
}

// RateGame rates finished game id between the accounts names (South's
// first) in pool, South scoring score (1, 0.5 or 0), once: a game rated
// before is not rated again. It returns both changes.
func (s *Store) RateGame(ctx context.Context, id int64, pool string, names [2]string, score float64) ([2]RatingChange, error) {
	var out [2]RatingChange
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM rating_history WHERE game=?`, id).Scan(&n); err != nil || n > 0 {
			return err
		}
		var before [2]rating.Rating
		for i, name := range names {
			r, err := ratingOf(tx, name, pool)
			if err != nil {
				return err
			}
			before[i] = r
		}
		after := [2]rating.Rating{}
		after[0], after[1] = rating.Game(before[0], before[1], score)
		now := time.Now().UnixMilli()
		for i, name := range names {
			a := after[i]
			if _, err := tx.Exec(`INSERT INTO ratings(name, pool, rating, rd, vol, games, updated) VALUES(?,?,?,?,?,?,?)
				ON CONFLICT(name, pool) DO UPDATE SET rating=excluded.rating, rd=excluded.rd, vol=excluded.vol, games=excluded.games, updated=excluded.updated`,
				name, pool, a.Rating, a.RD, a.Vol, a.Games, now); err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO rating_history(game, name, pool, before, after, rd, at) VALUES(?,?,?,?,?,?,?)`,
				id, name, pool, before[i].Rating, a.Rating, a.RD, now); err != nil {
				return err
			}
			out[i] = RatingChange{Name: name, Pool: pool, Before: before[i].Rating, After: a}
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
	rows, err := s.db.QueryContext(ctx, `SELECT h.name, h.pool, h.before, h.after, h.rd, coalesce(r.vol, 0), coalesce(r.games, 0)
		FROM rating_history h LEFT JOIN ratings r ON r.name = h.name AND r.pool = h.pool WHERE h.game=?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RatingChange
	for rows.Next() {
		var c RatingChange
		if err := rows.Scan(&c.Name, &c.Pool, &c.Before, &c.After.Rating, &c.After.RD, &c.After.Vol, &c.After.Games); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Rated is a player on a ladder.
type Rated struct {
	Name string `json:"name"`
	Pool string `json:"pool"`
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
		if err := rows.Scan(&r.Name, &r.Pool, &r.Rating.Rating, &r.RD, &r.Vol, &r.Games, &updated); err != nil {
			return nil, err
		}
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
	rows, err := s.db.QueryContext(ctx, `SELECT name, pool, rating, rd, vol, games, updated FROM ratings
		WHERE (?='' OR pool=?) ORDER BY rd > ?, rating DESC LIMIT ?`, pool, pool, rating.ProvisionalRD, limit)
	if err != nil {
		return nil, err
	}
	return scanRated(rows)
}

// PlayerRatings returns name's ratings on every ladder it played on.
func (s *Store) PlayerRatings(ctx context.Context, name string) ([]Rated, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, pool, rating, rd, vol, games, updated FROM ratings WHERE name=? ORDER BY games DESC`, name)
	if err != nil {
		return nil, err
	}
	return scanRated(rows)
}

// HistoryPoint is a player's rating after one game.
type HistoryPoint struct {
	Game   int64     `json:"game"`
	Pool   string    `json:"pool"`
	Rating float64   `json:"rating"`
	At     time.Time `json:"at"`
}

// RatingHistory returns name's rating after each of its rated games,
// oldest first (at most the last 500).
func (s *Store) RatingHistory(ctx context.Context, name string) ([]HistoryPoint, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT game, pool, after, at FROM (SELECT * FROM rating_history WHERE name=? ORDER BY at DESC LIMIT 500) ORDER BY at`, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HistoryPoint
	for rows.Next() {
		var p HistoryPoint
		var at int64
		if err := rows.Scan(&p.Game, &p.Pool, &p.Rating, &at); err != nil {
			return nil, err
		}
		p.At = time.UnixMilli(at)
		out = append(out, p)
	}
	return out, rows.Err()
}

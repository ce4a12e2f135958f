package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"kalah/internal/identity"
)

// What people say and whom they follow: each game's chat (two rooms, the
// players' and the spectators'), kept with the game, and the players an
// account follows. Schema 5 -> 6.

// migrateSocial (6 -> 7) makes the tables of chats and follows.
func migrateSocial(tx *Tx) error {
	_, err := tx.Exec(`CREATE TABLE IF NOT EXISTS chat (
	id   INTEGER PRIMARY KEY,
	game INTEGER NOT NULL,
	room TEXT NOT NULL,
	who  TEXT NOT NULL,
	name TEXT NOT NULL,
	text TEXT NOT NULL,
	at   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_game ON chat(game, room, id);
CREATE TABLE IF NOT EXISTS follows (
	follower TEXT NOT NULL,
	followed TEXT NOT NULL,
	name     TEXT NOT NULL,
	at       INTEGER NOT NULL,
	PRIMARY KEY (follower, followed)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS follows_followed ON follows(followed);`)
	return err
}

// ChatLine is one line of a game's chat.
type ChatLine struct {
	ID   int64  `json:"id"`
	Game int64  `json:"game"`
	Room string `json:"room"`
	// By is who said it; Name its display name.
	By   identity.ID `json:"by"`
	Name string      `json:"name"`
	Text string      `json:"text"`
	At   time.Time   `json:"at"`
}

// ErrFull refuses what would go beyond a bound: a line to a chat room
// that holds as many as it may, one more player followed, one more
// entrant to a tournament.
var ErrFull = errors.New("full")

// AddChat stores a line in its game's room, unless the room holds max
// lines already (ErrFull; max <= 0: no bound), and returns it with its id
// and time.
func (s *Store) AddChat(ctx context.Context, c ChatLine, max int) (ChatLine, error) {
	c.At = time.Now()
	err := s.write(ctx, func(tx *Tx) error {
		if max > 0 {
			var n int
			if err := tx.QueryRow(`SELECT count(*) FROM chat WHERE game=? AND room=?`, c.Game, c.Room).Scan(&n); err != nil {
				return err
			}
			if n >= max {
				return fmt.Errorf("%w: %d lines", ErrFull, n)
			}
		}
		res, err := tx.Exec(`INSERT INTO chat(game, room, who, name, text, at) VALUES(?,?,?,?,?,?)`,
			c.Game, c.Room, c.By.Key(), c.By.Name, c.Text, c.At.UnixMilli())
		if err != nil {
			return err
		}
		c.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return ChatLine{}, fmt.Errorf("store: chat of game %d: %w", c.Game, err)
	}
	c.Name = c.By.Display()
	return c, nil
}

// Chat returns the lines of game id in the rooms given, oldest first.
func (s *Store) Chat(ctx context.Context, id int64, rooms ...string) ([]ChatLine, error) {
	if len(rooms) == 0 {
		return nil, nil
	}
	args := []any{id}
	for _, r := range rooms {
		args = append(args, r)
	}
	rows, err := s.query(ctx, `SELECT id, room, who, name, text, at FROM chat WHERE game=? AND room IN (?`+
		strings.Repeat(",?", len(rooms)-1)+`) ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: chat of game %d: %w", id, err)
	}
	defer rows.Close()
	var out []ChatLine
	for rows.Next() {
		c := ChatLine{Game: id}
		var who string
		var at int64
		if err := rows.Scan(&c.ID, &c.Room, &who, &c.Name, &c.Text, &at); err != nil {
			return nil, err
		}
		c.By, c.At = idOfKey(who, c.Name), time.UnixMilli(at)
		c.Name = c.By.Display()
		out = append(out, c)
	}
	return out, rows.Err()
}

// Follow records that follower follows followed, once; a follower may
// follow at most max players (ErrFull beyond; max <= 0: no bound).
func (s *Store) Follow(ctx context.Context, follower, followed identity.ID, max int) error {
	err := s.write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM follows WHERE follower=?`, follower.Key()).Scan(&n); err != nil {
			return err
		}
		if max > 0 && n >= max {
			var already int
			if err := tx.QueryRow(`SELECT count(*) FROM follows WHERE follower=? AND followed=?`, follower.Key(), followed.Key()).Scan(&already); err != nil || already > 0 {
				return err
			}
			return fmt.Errorf("%w: %d players followed already", ErrFull, n)
		}
		_, err := tx.Exec(`INSERT INTO follows(follower, followed, name, at) VALUES(?,?,?,?) ON CONFLICT DO NOTHING`,
			follower.Key(), followed.Key(), followed.Name, time.Now().UnixMilli())
		return err
	})
	if err != nil {
		return fmt.Errorf("store: follow: %w", err)
	}
	return nil
}

// Unfollow forgets that follower follows followed.
func (s *Store) Unfollow(ctx context.Context, follower, followed identity.ID) error {
	err := s.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`DELETE FROM follows WHERE follower=? AND followed=?`, follower.Key(), followed.Key())
		return err
	})
	if err != nil {
		return fmt.Errorf("store: unfollow: %w", err)
	}
	return nil
}

// Following returns the players follower follows, by name.
func (s *Store) Following(ctx context.Context, follower identity.ID) ([]identity.ID, error) {
	rows, err := s.query(ctx, `SELECT followed, name FROM follows WHERE follower=? ORDER BY name COLLATE NOCASE`, follower.Key())
	if err != nil {
		return nil, fmt.Errorf("store: following: %w", err)
	}
	defer rows.Close()
	var out []identity.ID
	for rows.Next() {
		var key, name string
		if err := rows.Scan(&key, &name); err != nil {
			return nil, err
		}
		out = append(out, idOfKey(key, name))
	}
	return out, rows.Err()
}

// Followers counts who follows id.
func (s *Store) Followers(ctx context.Context, id identity.ID) (int, error) {
	var n int
	if err := s.queryRow(ctx, `SELECT count(*) FROM follows WHERE followed=?`, id.Key()).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: followers: %w", err)
	}
	return n, nil
}

// Pool is one rating ladder with how many play on it.
type Pool struct {
	Pool string `json:"pool"`
	// Players counts those with a rating there; Established those whose
	// rating is no longer provisional.
	Players     int `json:"players"`
	Established int `json:"established"`
}

// Pools returns every ladder someone is rated on, the busiest first.
func (s *Store) Pools(ctx context.Context, provisionalRD float64) ([]Pool, error) {
	rows, err := s.query(ctx, `SELECT pool, count(*), sum(rd <= ?) FROM ratings GROUP BY pool ORDER BY count(*) DESC, pool`, provisionalRD)
	if err != nil {
		return nil, fmt.Errorf("store: pools: %w", err)
	}
	defer rows.Close()
	var out []Pool
	for rows.Next() {
		var p Pool
		if err := rows.Scan(&p.Pool, &p.Players, &p.Established); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// GamesRatings returns the rating changes of the games ids, by game (a
// game not rated has none).
func (s *Store) GamesRatings(ctx context.Context, ids []int64) (map[int64][]RatingChange, error) {
	out := map[int64][]RatingChange{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.query(ctx, `SELECT game, id, name, pool, before, after, rd FROM rating_history WHERE game IN (?`+
		strings.Repeat(",?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: ratings of games: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var game int64
		var key string
		var c RatingChange
		if err := rows.Scan(&game, &key, &c.Name, &c.Pool, &c.Before, &c.After.Rating, &c.After.RD); err != nil {
			return nil, err
		}
		c.ID = idOfKey(key, c.Name)
		out[game] = append(out[game], c)
	}
	return out, rows.Err()
}

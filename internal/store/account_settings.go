package store

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"

	"kalah/internal/identity"
)

// ErrWrongPassword is a signed-in person's password given wrong, to change
// it or to delete the account.
var ErrWrongPassword = errors.New("that is not the account's password")

// confirm checks that password is user's, and returns the account's name
// as stored.
func (s *Store) confirm(ctx context.Context, user, password string) (string, error) {
	name, err := s.CheckPassword(ctx, user, password)
	if errors.Is(err, ErrBadPassword) {
		return "", ErrWrongPassword
	}
	return name, err
}

// DeletedName is the name a deleted account's (or its bots') seat shows in
// the games kept after it, and the author of its chat lines.
const DeletedName = "[deleted]"

// ChangePassword replaces user's password by next, given the current one
// (ErrWrongPassword if it is not that), and ends every session of user but
// the one of keep (the token of the session asking; "" ends them all), as
// a stolen session must not outlive the password it was opened with.
func (s *Store) ChangePassword(ctx context.Context, user, current, next, keep string) error {
	if err := ValidPassword(next); err != nil {
		return err
	}
	name, err := s.confirm(ctx, user, current)
	if err != nil {
		return err
	}
	salt := make([]byte, 16)
	rand.Read(salt)
	hash, err := s.hashPassword(ctx, next, salt)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`UPDATE users SET salt=?, hash=? WHERE name=?`, salt, hash, name); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM sessions WHERE user=? AND id<>?`, name, sessionID(keep))
		return err
	})
}

// EndSessions signs user out everywhere: every session ends. It returns
// how many there were.
func (s *Store) EndSessions(ctx context.Context, user string) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM sessions WHERE user=?`, user)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	return int(n), err
}

// DeleteUser deletes user's account and its data, given its password
// (ErrWrongPassword if it is not that): its sessions, the players it follows
// and its followers, its ratings and their history, the bots it owns (their
// tokens, ratings and follows with them), and the names of all of them,
// which anyone may take again. The games it or its bots played are kept
// for the other players, each such seat shown as DeletedName and belonging
// to nobody; its chat lines are kept under DeletedName, so that the others'
// answers still read. It returns the bots deleted.
func (s *Store) DeleteUser(ctx context.Context, user, password string) ([]string, error) {
	name, err := s.confirm(ctx, user, password)
	if err != nil {
		return nil, err
	}
	bots, err := s.BotsOf(ctx, name)
	if err != nil {
		return nil, err
	}
	ids := []identity.ID{identity.Of(identity.Person, name)}
	for _, b := range bots {
		ids = append(ids, identity.Of(identity.Bot, b))
	}
	err = s.write(ctx, func(tx *Tx) error {
		for _, id := range ids {
			if err := forget(tx, id); err != nil {
				return fmt.Errorf("store: delete %s: %w", id, err)
			}
		}
		for _, stmt := range []string{
			`DELETE FROM sessions WHERE user=?`,
			`DELETE FROM bots WHERE owner=?`,
			`DELETE FROM users WHERE name=?`,
		} {
			if _, err := tx.Exec(stmt, name); err != nil {
				return fmt.Errorf("store: delete %s: %w", name, err)
			}
		}
		return nil
	})
	s.owners.forget()
	return bots, err
}

// forget removes id's follows, ratings and name, and shows its seats and
// chat lines as DeletedName.
func forget(tx *Tx, id identity.ID) error {
	key := id.Key()
	for _, q := range []struct {
		stmt string
		args []any
	}{
		{`DELETE FROM follows WHERE follower=? OR followed=?`, []any{key, key}},
		{`DELETE FROM ratings WHERE id=?`, []any{key}},
		{`DELETE FROM rating_history WHERE id=?`, []any{key}},
		{`DELETE FROM names WHERE skeleton=?`, []any{identity.Skeleton(id.Name)}},
		{`UPDATE chat SET who='', name=? WHERE who=?`, []any{DeletedName, key}},
	} {
		if _, err := tx.Exec(q.stmt, q.args...); err != nil {
			return err
		}
	}
	rows, err := tx.Query(`SELECT id, seats FROM games WHERE south_id=? OR north_id=?`, key, key)
	if err != nil {
		return err
	}
	type game struct {
		id    int64
		seats string
	}
	var games []game
	for rows.Next() {
		var g game
		if err := rows.Scan(&g.id, &g.seats); err != nil {
			rows.Close()
			return err
		}
		games = append(games, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, g := range games {
		var seats [2]Seat
		if err := json.Unmarshal([]byte(g.seats), &seats); err != nil {
			return fmt.Errorf("game %d seats: %w", g.id, err)
		}
		for i := range seats {
			if seats[i].ID.Is(id) {
				seats[i].Name, seats[i].ID, seats[i].TokenHash = DeletedName, identity.ID{}, ""
			}
		}
		b, _ := json.Marshal(seats)
		if _, err := tx.Exec(`UPDATE games SET seats=?, south=?, north=?, south_id=?, north_id=? WHERE id=?`, string(b),
			seats[0].Name, seats[1].Name, seats[0].ID.Key(), seats[1].ID.Key(), g.id); err != nil {
			return err
		}
	}
	return nil
}

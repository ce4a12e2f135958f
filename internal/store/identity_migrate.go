package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"kalah/internal/identity"
)

// migrateIdentities gives every seat of every game an identity and puts
// people and bots in one name space (schema 3 -> 4):
//
//   - names: one row a person or bot, keyed by the name's skeleton
//     (identity.Skeleton). Where older releases let two take names a reader
//     cannot tell apart ("alice" and a bot "ALICE", "Zed" and "zed"), the
//     first registered keeps it and the later ones are renamed NAME-2
//     (NAME-3, ...): their logins under the old name stop working, which is
//     the point.
//   - games: each seat's identity (the account a person played as, the bot,
//     the program), stored in the seats and in south_id/north_id for the
//     lists; a person's seat shows the account's name instead of the words
//     the page stored ("You", "Guest"), and so does the Reason tag ("You
//     resigned" becomes "alice resigned"). A seat with no account of an
//     older release keeps no identity and reads "Anonymous".
//   - ratings and their history: keyed by identity instead of name text.
func migrateIdentities(tx *Tx) error {
	if _, err := tx.Exec(`CREATE TABLE IF NOT EXISTS names (
	skeleton TEXT PRIMARY KEY,
	kind     TEXT NOT NULL,
	name     TEXT NOT NULL
) WITHOUT ROWID`); err != nil {
		return err
	}
	renamed, err := claimOldNames(tx)
	if err != nil {
		return err
	}
	// Bots are found by name whatever its case (a login, a bot's owner):
	// an index of that, or every look is a scan of every bot.
	if _, err := tx.Exec(`CREATE INDEX IF NOT EXISTS bots_name_nocase ON bots(name COLLATE NOCASE)`); err != nil {
		return err
	}
	if err := rekeyRatings(tx, renamed); err != nil {
		return err
	}
	return identifySeats(tx, renamed)
}

// oldName is a person or bot of an older release.
type oldName struct {
	kind    identity.Kind
	name    string
	created int64
}

// claimOldNames fills names from users and bots, oldest first, renaming
// those whose name is taken; it returns the renames by kind and old name.
func claimOldNames(tx *Tx) (map[identity.Kind]map[string]string, error) {
	var all []oldName
	for _, q := range []struct {
		kind  identity.Kind
		query string
	}{{identity.Person, `SELECT name, created FROM users`}, {identity.Bot, `SELECT name, created FROM bots`}} {
		rows, err := tx.Query(q.query)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			n := oldName{kind: q.kind}
			if err := rows.Scan(&n.name, &n.created); err != nil {
				rows.Close()
				return nil, err
			}
			all = append(all, n)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	// The first to register keeps the name; people before bots on a tie.
	slices.SortStableFunc(all, func(a, b oldName) int {
		switch {
		case a.created != b.created:
			return int(a.created - b.created)
		case a.kind != b.kind:
			return strings.Compare(string(b.kind), string(a.kind)) // "user" first
		}
		return strings.Compare(a.name, b.name)
	})
	renamed := map[identity.Kind]map[string]string{identity.Person: {}, identity.Bot: {}}
	taken := map[string]bool{}
	for _, n := range all {
		name := n.name
		for i := 2; taken[identity.Skeleton(name)]; i++ {
			name = fmt.Sprintf("%s-%d", n.name, i)
		}
		taken[identity.Skeleton(name)] = true
		if _, err := tx.Exec(`INSERT INTO names(skeleton, kind, name) VALUES(?,?,?)`, identity.Skeleton(name), string(n.kind), name); err != nil {
			return nil, err
		}
		if name == n.name {
			continue
		}
		renamed[n.kind][n.name] = name
		var stmts []string
		if n.kind == identity.Person {
			stmts = []string{`UPDATE users SET name=?2 WHERE name=?1 COLLATE BINARY`, `UPDATE sessions SET user=?2 WHERE user=?1`, `UPDATE bots SET owner=?2 WHERE owner=?1`}
		} else {
			stmts = []string{`UPDATE bots SET name=?2 WHERE name=?1`}
		}
		for _, q := range stmts {
			if _, err := tx.Exec(q, n.name, name); err != nil {
				return nil, fmt.Errorf("rename %s %q to %q: %w", n.kind, n.name, name, err)
			}
		}
	}
	return renamed, nil
}

// resolver finds the identity an older release's name stood for.
type resolver struct {
	tx      *Tx
	renamed map[identity.Kind]map[string]string
}

// find returns the person or bot an old name (as stored, in its case)
// stood for: the one registered under exactly that name, else the one
// whose name it equals without case, people first.
func (r resolver) find(name string, kinds ...identity.Kind) (identity.ID, bool) {
	if name == "" {
		return identity.ID{}, false
	}
	for _, exact := range []bool{true, false} {
		for _, k := range kinds {
			if to, ok := r.renamed[k][name]; ok && exact {
				return identity.Of(k, to), true
			}
			table, cmp := "users", "name=? COLLATE NOCASE"
			if k == identity.Bot {
				table = "bots"
			}
			if exact {
				cmp = "name=? COLLATE BINARY"
			}
			var canon string
			if err := r.tx.QueryRow(`SELECT name FROM `+table+` WHERE `+cmp, name).Scan(&canon); err == nil {
				return identity.Of(k, canon), true
			}
		}
	}
	return identity.ID{}, false
}

// rekeyRatings rebuilds ratings and rating_history keyed by identity.
func rekeyRatings(tx *Tx, renamed map[identity.Kind]map[string]string) error {
	r := resolver{tx: tx, renamed: renamed}
	if _, err := tx.Exec(`CREATE TABLE ratings_new (
	id      TEXT NOT NULL,
	name    TEXT NOT NULL,
	pool    TEXT NOT NULL,
	rating  REAL NOT NULL,
	rd      REAL NOT NULL,
	vol     REAL NOT NULL,
	games   INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	PRIMARY KEY (id, pool)
);
CREATE TABLE rating_history_new (
	game   INTEGER NOT NULL,
	id     TEXT NOT NULL,
	name   TEXT NOT NULL,
	pool   TEXT NOT NULL,
	before REAL NOT NULL,
	after  REAL NOT NULL,
	rd     REAL NOT NULL,
	at     INTEGER NOT NULL,
	PRIMARY KEY (game, id)
);`); err != nil {
		return err
	}
	// Ratings of accounts only: a name that is no one's (a guest's label
	// of an older release) is dropped with its row.
	type row struct {
		name, pool string
		vals       []any
	}
	copyRows := func(query, insert string, n int) error {
		rows, err := tx.Query(query)
		if err != nil {
			return err
		}
		var all []row
		for rows.Next() {
			vals := make([]any, n)
			ptrs := make([]any, n)
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			var name string
			if err := rows.Scan(append([]any{&name}, ptrs...)...); err != nil {
				rows.Close()
				return err
			}
			all = append(all, row{name: name, vals: vals})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, x := range all {
			id, ok := r.find(x.name, identity.Person, identity.Bot)
			if !ok {
				continue
			}
			args := append([]any{id.Key(), id.Name}, x.vals...)
			if _, err := tx.Exec(insert, args...); err != nil {
				return err
			}
		}
		return nil
	}
	if err := copyRows(`SELECT name, pool, rating, rd, vol, games, updated FROM ratings`,
		`INSERT OR IGNORE INTO ratings_new(id, name, pool, rating, rd, vol, games, updated) VALUES(?,?,?,?,?,?,?,?)`, 6); err != nil {
		return err
	}
	if err := copyRows(`SELECT name, game, pool, before, after, rd, at FROM rating_history`,
		`INSERT OR IGNORE INTO rating_history_new(id, name, game, pool, before, after, rd, at) VALUES(?,?,?,?,?,?,?,?)`, 6); err != nil {
		return err
	}
	_, err := tx.Exec(`DROP TABLE ratings;
DROP TABLE rating_history;
ALTER TABLE ratings_new RENAME TO ratings;
ALTER TABLE rating_history_new RENAME TO rating_history;
CREATE INDEX ratings_pool ON ratings(pool, rating);
CREATE INDEX rating_history_id ON rating_history(id, pool, at);`)
	return err
}

// oldSeat is a seat as releases before identities stored it.
type oldSeat struct {
	Seat
	Account string `json:"account,omitempty"`
}

// identifySeats gives every game's seats their identities.
func identifySeats(tx *Tx, renamed map[identity.Kind]map[string]string) error {
	for _, col := range []string{"south_id", "north_id"} {
		has, err := hasColumn(tx, "games", col)
		if err != nil {
			return err
		}
		if !has {
			if _, err := tx.Exec(`ALTER TABLE games ADD COLUMN ` + col + ` TEXT NOT NULL DEFAULT ''`); err != nil {
				return err
			}
		}
	}
	if _, err := tx.Exec(`CREATE INDEX IF NOT EXISTS games_south_id ON games(south_id, id);
CREATE INDEX IF NOT EXISTS games_north_id ON games(north_id, id);`); err != nil {
		return err
	}
	r := resolver{tx: tx, renamed: renamed}
	type game struct {
		id          int64
		seats, tags string
	}
	rows, err := tx.Query(`SELECT id, seats, tags FROM games`)
	if err != nil {
		return err
	}
	var games []game
	for rows.Next() {
		var g game
		if err := rows.Scan(&g.id, &g.seats, &g.tags); err != nil {
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
		var old [2]oldSeat
		if err := json.Unmarshal([]byte(g.seats), &old); err != nil {
			return fmt.Errorf("game %d seats: %w", g.id, err)
		}
		tags := map[string]string{}
		json.Unmarshal([]byte(g.tags), &tags)
		if tags == nil {
			tags = map[string]string{}
		}
		var seats [2]Seat
		for i, o := range old {
			seats[i] = o.Seat
			var id identity.ID
			var ok bool
			switch {
			case o.Kind == "spec":
				id, ok = identity.Of(identity.Program, o.Spec), true
			case o.Kind == "bot":
				id, ok = r.find(o.Name, identity.Bot)
			case o.Account != "" && o.Kind == "human":
				id, ok = r.find(o.Account, identity.Person, identity.Bot)
			case o.Account != "":
				id, ok = r.find(o.Account, identity.Bot) // a bot by its token over another transport
			}
			switch {
			case ok:
				seats[i].ID = id
				if id.Kind != identity.Program {
					seats[i].Name = id.Name
				}
			case o.Kind == "human" && o.Open:
				seats[i].Name = ""
			case o.Kind == "human":
				seats[i].Name = "Anonymous"
			}
			if why := tags["Reason"]; o.Name != "" && seats[i].Name != o.Name && strings.HasPrefix(why, o.Name+" ") {
				tags["Reason"] = seats[i].Name + strings.TrimPrefix(why, o.Name)
			}
		}
		sb, _ := json.Marshal(seats)
		tb, _ := json.Marshal(tags)
		if _, err := tx.Exec(`UPDATE games SET seats=?, tags=?, south=?, north=?, south_id=?, north_id=? WHERE id=?`,
			string(sb), string(tb), seats[0].Name, seats[1].Name, seats[0].ID.Key(), seats[1].ID.Key(), g.id); err != nil {
			return err
		}
	}
	return nil
}

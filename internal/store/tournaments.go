package store

import (
	"database/sql"
	"fmt"
)

// Package tournament keeps its tournaments in this database, in the tables
// below; this package owns their schema (migration 3 -> 4) and their
// queries (tournament_sql.go), package tournament what they mean.

// tournamentTables are package tournament's tables. Until migration 4 that
// package created them itself with these very statements, so a database
// that has them already (made by an older tournament.Open) keeps them as
// they are.
const tournamentTables = `
CREATE TABLE IF NOT EXISTS tournaments (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL,
	config TEXT NOT NULL,
	status TEXT NOT NULL DEFAULT 'created',
	created TEXT NOT NULL,
	finished TEXT
);
CREATE TABLE IF NOT EXISTS tournament_entrants (
	tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
	idx INTEGER NOT NULL,
	spec TEXT NOT NULL,
	PRIMARY KEY (tournament_id, idx)
);
CREATE TABLE IF NOT EXISTS tournament_games (
	id INTEGER PRIMARY KEY,
	tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
	round INTEGER NOT NULL,
	pairing INTEGER NOT NULL,
	leg INTEGER NOT NULL,
	south INTEGER NOT NULL,
	north INTEGER NOT NULL,
	opening TEXT NOT NULL DEFAULT '',
	seed INTEGER NOT NULL,
	UNIQUE (tournament_id, round, pairing, leg)
);
CREATE TABLE IF NOT EXISTS tournament_byes (
	tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
	round INTEGER NOT NULL,
	entrant INTEGER NOT NULL,
	PRIMARY KEY (tournament_id, round)
);
CREATE TABLE IF NOT EXISTS tournament_results (
	game_id INTEGER PRIMARY KEY REFERENCES tournament_games(id),
	south_seeds INTEGER NOT NULL,
	north_seeds INTEGER NOT NULL,
	result TEXT NOT NULL,
	termination TEXT NOT NULL,
	reason TEXT NOT NULL DEFAULT '',
	plies INTEGER NOT NULL,
	record TEXT NOT NULL,
	worker TEXT NOT NULL DEFAULT '',
	millis INTEGER NOT NULL DEFAULT 0,
	finished TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tournament_moves (
	game_id INTEGER NOT NULL REFERENCES tournament_games(id),
	ply INTEGER NOT NULL,
	side TEXT NOT NULL,
	move TEXT NOT NULL,
	millis INTEGER NOT NULL,
	PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS tournament_imports (
	digest TEXT PRIMARY KEY,
	path TEXT NOT NULL,
	imported TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tournament_games_by_tournament ON tournament_games(tournament_id);
`

// migrateTournaments (3 -> 4) gives the database package tournament's
// tables, or adopts those an older tournament.Open made in it.
func migrateTournaments(tx *Tx) error {
	_, err := tx.Exec(tournamentTables)
	return err
}

// oldTournamentTables are the names package tournament's tables had in a
// file of their own (tournaments.db, or any --db file) before they moved
// into kalah.db, beside the server's games: each is now tournament_NAME.
var oldTournamentTables = []string{"entrants", "games", "byes", "results", "moves"}

// renameOldTournamentTables renames the tables of a tournament database of
// an older release (entrants, games, ... without the tournament_ prefix)
// in one transaction, before the server's tables (games, moves) are made
// beside them. Only such files are touched: a database of schema version 0
// with entrants and results tables and no tournament_results.
func renameOldTournamentTables(db *sql.DB) error {
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != 0 {
		return err
	}
	has := func(name string) (bool, error) {
		var n int
		err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
		return n > 0, err
	}
	for _, t := range []string{"entrants", "results"} {
		if ok, err := has(t); err != nil || !ok {
			return err
		}
	}
	if ok, err := has("tournament_results"); err != nil || ok {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DROP INDEX IF EXISTS games_by_tournament`); err != nil {
		return err
	}
	for _, t := range oldTournamentTables {
		// ALTER TABLE RENAME also rewrites the other tables' references.
		if _, err := tx.Exec(fmt.Sprintf(`ALTER TABLE %s RENAME TO tournament_%s`, t, t)); err != nil {
			return fmt.Errorf("rename tournament table %s: %w", t, err)
		}
	}
	return tx.Commit()
}

package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// The queries of package tournament's tables (engine tournaments:
// tournaments, tournament_entrants, tournament_games, tournament_byes,
// tournament_results, tournament_moves, tournament_imports), kept here
// beside their schema (tournaments.go). Package tournament turns these
// plain rows into its own types; this package never imports it.

// ErrEngineTournamentNotFound is returned for a tournament id that is not in
// the engine tournaments' table.
var ErrEngineTournamentNotFound = errors.New("tournament not found")

// ErrNoEngineResult is returned for a tournament game without a stored result.
var ErrNoEngineResult = errors.New("game has no result")

// EngineTournament is a stored engine tournament's header row. Config is
// the tournament's configuration as package tournament wrote it (JSON).
type EngineTournament struct {
	ID       int64
	Name     string
	Config   string
	Status   string
	Created  time.Time
	Finished time.Time // zero until finished
	Games    int       // games scheduled so far
	Played   int       // games with a result
}

// EngineGame is one scheduled game of an engine tournament. South and
// North are entrant indexes; Opening is the moves made before the players
// take over, as text (kalah.MovesText).
type EngineGame struct {
	ID      int64 // zero until stored
	Round   int
	Pairing int
	Leg     int
	South   int
	North   int
	Opening string
	Seed    uint64
}

// EngineMove is one stored move of an engine tournament's game: its side's
// letter, the house ("1".."n") or "swap", and the time it took.
type EngineMove struct {
	Side   string
	Move   string
	Millis int64
}

// EngineResult is a finished engine tournament game to store. Result and
// Termination are the record's, as text; Record is the whole record (JSON).
type EngineResult struct {
	GameID      int64
	SouthSeeds  int
	NorthSeeds  int
	Result      string
	Termination string
	Reason      string
	Record      string
	Worker      string
	Millis      int64
	Moves       []EngineMove
}

// EnginePlayed is a scheduled engine tournament game with its stored result.
type EnginePlayed struct {
	EngineGame
	SouthSeeds  int
	NorthSeeds  int
	Termination string
	Reason      string
	Worker      string
	Millis      int64
}

// tournamentTime is how the engine tournaments' tables write a time, as
// package tournament always did.
func tournamentTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// CreateEngineTournament stores a new engine tournament with its entrants
// (their specs, in order) and the games known in advance, in one write, and
// returns its id.
func (s *Store) CreateEngineTournament(ctx context.Context, name, config, status string, entrants []string, games []EngineGame) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`INSERT INTO tournaments(name, config, status, created) VALUES (?, ?, ?, ?)`,
			name, config, status, tournamentTime(time.Now()))
		if err != nil {
			return fmt.Errorf("create tournament: %w", err)
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		for i, p := range entrants {
			if _, err := tx.Exec(`INSERT INTO tournament_entrants(tournament_id, idx, spec) VALUES (?, ?, ?)`, id, i, p); err != nil {
				return fmt.Errorf("create tournament: %w", err)
			}
		}
		return insertEngineGames(tx, id, games)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

func insertEngineGames(tx *Tx, id int64, games []EngineGame) error {
	if len(games) == 0 {
		return nil
	}
	st, err := tx.Prepare(`INSERT INTO tournament_games(tournament_id, round, pairing, leg, south, north, opening, seed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, g := range games {
		if _, err := st.Exec(id, g.Round, g.Pairing, g.Leg, g.South, g.North, g.Opening, int64(g.Seed)); err != nil {
			return fmt.Errorf("schedule game %d/%d/%d: %w", g.Round, g.Pairing, g.Leg, err)
		}
	}
	return nil
}

// ScheduleEngineRound stores a further round of an engine tournament's
// games (Swiss, SPRT) and the entrant given a bye in it (bye < 0: none),
// in one write.
func (s *Store) ScheduleEngineRound(ctx context.Context, id int64, round int, games []EngineGame, bye int) error {
	return s.write(ctx, func(tx *Tx) error {
		if err := insertEngineGames(tx, id, games); err != nil {
			return err
		}
		if bye >= 0 {
			if _, err := tx.Exec(`INSERT INTO tournament_byes(tournament_id, round, entrant) VALUES (?, ?, ?)`, id, round, bye); err != nil {
				return err
			}
		}
		return nil
	})
}

// EngineTournament returns a stored engine tournament's header, or an error
// matching ErrEngineTournamentNotFound.
func (s *Store) EngineTournament(ctx context.Context, id int64) (EngineTournament, error) {
	var t EngineTournament
	var created string
	var finished sql.NullString
	err := s.queryRow(ctx, `SELECT id, name, config, status, created, finished,
		(SELECT count(*) FROM tournament_games WHERE tournament_id = t.id),
		(SELECT count(*) FROM tournament_results r JOIN tournament_games g ON g.id = r.game_id WHERE g.tournament_id = t.id)
		FROM tournaments t WHERE id = ?`, id).Scan(&t.ID, &t.Name, &t.Config, &t.Status, &created, &finished, &t.Games, &t.Played)
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("%w: %d", ErrEngineTournamentNotFound, id)
	}
	if err != nil {
		return t, err
	}
	t.Created, _ = time.Parse(time.RFC3339Nano, created)
	if finished.Valid {
		t.Finished, _ = time.Parse(time.RFC3339Nano, finished.String)
	}
	return t, nil
}

// EngineTournamentIDs returns every stored engine tournament's id, newest
// first.
func (s *Store) EngineTournamentIDs(ctx context.Context) ([]int64, error) {
	rows, err := s.query(ctx, `SELECT id FROM tournaments ORDER BY id DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// SetEngineTournamentStatus sets an engine tournament's status and, if
// finished, the time it finished.
func (s *Store) SetEngineTournamentStatus(ctx context.Context, id int64, status string, finished bool) error {
	return s.write(ctx, func(tx *Tx) error {
		var err error
		if finished {
			_, err = tx.Exec(`UPDATE tournaments SET status = ?, finished = ? WHERE id = ?`, status, tournamentTime(time.Now()), id)
		} else {
			_, err = tx.Exec(`UPDATE tournaments SET status = ? WHERE id = ?`, status, id)
		}
		return err
	})
}

// EngineGames returns an engine tournament's scheduled games in order:
// all of them, or only those without a result (pending).
func (s *Store) EngineGames(ctx context.Context, id int64, pending bool) ([]EngineGame, error) {
	q := `SELECT id, round, pairing, leg, south, north, opening, seed FROM tournament_games g WHERE tournament_id = ?`
	if pending {
		q += ` AND NOT EXISTS (SELECT 1 FROM tournament_results r WHERE r.game_id = g.id)`
	}
	rows, err := s.query(ctx, q+` ORDER BY round, pairing, leg`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EngineGame
	for rows.Next() {
		var g EngineGame
		var seed int64
		if err := rows.Scan(&g.ID, &g.Round, &g.Pairing, &g.Leg, &g.South, &g.North, &g.Opening, &seed); err != nil {
			return nil, err
		}
		g.Seed = uint64(seed)
		out = append(out, g)
	}
	return out, rows.Err()
}

// EnginePlayedGames returns every game of an engine tournament that has a
// result, in schedule order.
func (s *Store) EnginePlayedGames(ctx context.Context, id int64) ([]EnginePlayed, error) {
	rows, err := s.query(ctx, `SELECT g.id, g.round, g.pairing, g.leg, g.south, g.north, g.opening, g.seed,
		r.south_seeds, r.north_seeds, r.termination, r.reason, r.worker, r.millis
		FROM tournament_games g JOIN tournament_results r ON r.game_id = g.id WHERE g.tournament_id = ? ORDER BY g.round, g.pairing, g.leg`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EnginePlayed
	for rows.Next() {
		var p EnginePlayed
		var seed int64
		if err := rows.Scan(&p.ID, &p.Round, &p.Pairing, &p.Leg, &p.South, &p.North, &p.Opening, &seed,
			&p.SouthSeeds, &p.NorthSeeds, &p.Termination, &p.Reason, &p.Worker, &p.Millis); err != nil {
			return nil, err
		}
		p.Seed = uint64(seed)
		out = append(out, p)
	}
	return out, rows.Err()
}

// EngineRecord returns the stored record (JSON) of an engine tournament's
// game, or an error matching ErrNoEngineResult.
func (s *Store) EngineRecord(ctx context.Context, gameID int64) (string, error) {
	var js string
	err := s.queryRow(ctx, `SELECT record FROM tournament_results WHERE game_id = ?`, gameID).Scan(&js)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("game %d: %w", gameID, ErrNoEngineResult)
	}
	return js, err
}

// EngineByes returns the entrants of an engine tournament given a bye, by
// round.
func (s *Store) EngineByes(ctx context.Context, id int64) (map[int]int, error) {
	rows, err := s.query(ctx, `SELECT round, entrant FROM tournament_byes WHERE tournament_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]int{}
	for rows.Next() {
		var r, e int
		if err := rows.Scan(&r, &e); err != nil {
			return nil, err
		}
		out[r] = e
	}
	return out, rows.Err()
}

// CommitEngineResults stores several engine tournament results, each with
// its moves, in one write: all of them or none. A result for a game that
// has one already is ignored (a game replayed after a crash, or delivered
// twice, counts once); it reports for each whether it counted.
func (s *Store) CommitEngineResults(ctx context.Context, rs []EngineResult) ([]bool, error) {
	counted := make([]bool, len(rs))
	if len(rs) == 0 {
		return counted, nil
	}
	err := s.write(ctx, func(tx *Tx) error {
		clear(counted)
		ins, err := tx.Prepare(`INSERT INTO tournament_results(game_id, south_seeds, north_seeds, result, termination, reason, plies, record, worker, millis, finished)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(game_id) DO NOTHING`)
		if err != nil {
			return err
		}
		defer ins.Close()
		mv, err := tx.Prepare(`INSERT INTO tournament_moves(game_id, ply, side, move, millis) VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer mv.Close()
		at := tournamentTime(time.Now())
		for i, r := range rs {
			res, err := ins.Exec(r.GameID, r.SouthSeeds, r.NorthSeeds, r.Result, r.Termination, r.Reason,
				len(r.Moves), r.Record, r.Worker, r.Millis, at)
			if err != nil {
				return fmt.Errorf("store result of game %d: %w", r.GameID, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			counted[i] = true
			for j, m := range r.Moves {
				if _, err := mv.Exec(r.GameID, j+1, m.Side, m.Move, m.Millis); err != nil {
					return fmt.Errorf("store moves of game %d: %w", r.GameID, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return counted, nil
}

// ImportEngineTournaments copies every engine tournament of the SQLite file
// at path (a tournament database of this release or an older one, tables
// with or without the tournament_ prefix) into s, with new ids after s's
// own, in one write, and returns how many it copied. Nothing is copied if
// any of it fails, and a file imported before (same contents) is not
// imported again. The file itself is only read.
func (s *Store) ImportEngineTournaments(ctx context.Context, path string) (int, error) {
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, fmt.Errorf("import %s: %w", path, err)
	}
	defer old.Close()
	old.SetMaxOpenConns(1)
	// Fold a write-ahead log left beside the file in, so its digest is
	// that of all its contents.
	if _, err := old.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return 0, fmt.Errorf("import %s: %w", path, err)
	}
	prefix, err := engineTablePrefix(ctx, old)
	if err != nil {
		return 0, fmt.Errorf("import %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return 0, fmt.Errorf("import %s: %w", path, err)
	}
	digest := hex.EncodeToString(h.Sum(nil))
	var n int
	err = s.write(ctx, func(tx *Tx) error {
		n = 0
		// The file's digest marks it imported, in the same transaction,
		// so a crash between the import and the file's renaming cannot
		// import it twice.
		res, err := tx.Exec(`INSERT OR IGNORE INTO tournament_imports(digest, path, imported) VALUES (?, ?, ?)`, digest, path, tournamentTime(time.Now()))
		if err != nil {
			return err
		}
		if fresh, _ := res.RowsAffected(); fresh == 0 || prefix == "-" {
			return nil // imported before, or no tournaments in it
		}
		var tOff, gOff int64
		if err := tx.QueryRow(`SELECT coalesce(max(id), 0) FROM tournaments`).Scan(&tOff); err != nil {
			return err
		}
		if err := tx.QueryRow(`SELECT coalesce(max(id), 0) FROM tournament_games`).Scan(&gOff); err != nil {
			return err
		}
		p := prefix
		steps := []struct {
			from, to string
			offsets  []int64 // added to the leading columns, in order
		}{
			{`SELECT id, name, config, status, created, finished FROM tournaments`,
				`INSERT INTO tournaments(id, name, config, status, created, finished) VALUES (?, ?, ?, ?, ?, ?)`, []int64{tOff}},
			{`SELECT tournament_id, idx, spec FROM ` + p + `entrants`,
				`INSERT INTO tournament_entrants(tournament_id, idx, spec) VALUES (?, ?, ?)`, []int64{tOff}},
			{`SELECT id, tournament_id, round, pairing, leg, south, north, opening, seed FROM ` + p + `games`,
				`INSERT INTO tournament_games(id, tournament_id, round, pairing, leg, south, north, opening, seed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, []int64{gOff, tOff}},
			{`SELECT tournament_id, round, entrant FROM ` + p + `byes`,
				`INSERT INTO tournament_byes(tournament_id, round, entrant) VALUES (?, ?, ?)`, []int64{tOff}},
			{`SELECT game_id, south_seeds, north_seeds, result, termination, reason, plies, record, worker, millis, finished FROM ` + p + `results`,
				`INSERT INTO tournament_results(game_id, south_seeds, north_seeds, result, termination, reason, plies, record, worker, millis, finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, []int64{gOff}},
			{`SELECT game_id, ply, side, move, millis FROM ` + p + `moves`,
				`INSERT INTO tournament_moves(game_id, ply, side, move, millis) VALUES (?, ?, ?, ?, ?)`, []int64{gOff}},
		}
		for i, st := range steps {
			copied, err := copyEngineRows(ctx, old, tx, st.from, st.to, st.offsets)
			if err != nil {
				return err
			}
			if i == 0 {
				n = copied
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("import %s: %w", path, err)
	}
	return n, nil
}

// engineTablePrefix finds how the tournament tables of a file are named:
// "tournament_" (this release), "" (before they moved into kalah.db), or
// "-" for a file without tournaments.
func engineTablePrefix(ctx context.Context, db *sql.DB) (string, error) {
	for _, p := range []string{"tournament_", ""} {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('tournaments', ?, ?)`,
			p+"entrants", p+"results").Scan(&n); err != nil {
			return "", err
		}
		if n == 3 {
			return p, nil
		}
	}
	return "-", nil
}

// copyEngineRows copies the rows of a query on from into tx with insert, adding
// offsets to the leading (integer id) columns.
func copyEngineRows(ctx context.Context, from *sql.DB, tx *Tx, query, insert string, offsets []int64) (int, error) {
	rows, err := from.QueryContext(ctx, query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	ins, err := tx.Prepare(insert)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		for i, off := range offsets {
			id, ok := vals[i].(int64)
			if !ok {
				return n, fmt.Errorf("%s: column %s is not an id: %v", query, cols[i], vals[i])
			}
			vals[i] = id + off
		}
		if _, err := ins.Exec(vals...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

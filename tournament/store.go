package tournament

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/internal/store"
)

// DefaultDB is where the command line keeps tournaments unless told otherwise.
const DefaultDB = "kalah-data/kalah.db"

// ErrNotFound is returned for a tournament id that is not in the database.
var ErrNotFound = errors.New("tournament not found")

// ErrRunning is returned by Run for a tournament this Store is already
// running.
var ErrRunning = errors.New("tournament already running")

// Store is a database of tournaments: their configuration, entrants, every
// scheduled game and every result with its moves. Its tables live in the
// server's store (package internal/store: kalah.db, whose versioned
// migrations make them), and it reads and writes them through that store's
// one pool of connections and one writer, so a process has one connection
// pool on the database whether it runs tournaments, a server, or both. It
// is safe for concurrent use; one process at a time should run a given
// tournament.
type Store struct {
	st    *store.Store
	db    *sql.DB // st's readers
	owned bool    // opened by Open, closed by Close

	mu      sync.Mutex
	running map[int64]bool // tournaments Run is playing in this process
}

// Open opens (creating if needed) the database at path through the
// server's store (internal/store), which brings an older file's tables to
// today's schema, a tournament file of an older release included.
func Open(path string) (*Store, error) {
	st, err := store.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tournament database: %w", err)
	}
	return &Store{st: st, db: st.ReadDB(), owned: true}, nil
}

// New keeps tournaments in st, an open store shared with its other users
// (a server): Close leaves st open.
func New(st *store.Store) *Store {
	return &Store{st: st, db: st.ReadDB()}
}

// OpenDataDir opens the tournaments of a data directory, kept in its one
// database (kalah.db) beside the server's games, and moves in those an
// older release kept in tournaments.db there (MoveIn).
func OpenDataDir(ctx context.Context, dir string) (*Store, error) {
	st, err := Open(filepath.Join(dir, "kalah.db"))
	if err != nil {
		return nil, err
	}
	if err := st.MoveIn(ctx, dir); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// MoveIn moves the tournaments an older release kept in dir's
// tournaments.db into s and renames that file tournaments.db.imported
// (with its -wal and -shm files, if any), so they are moved once. A data
// directory without that file is left alone.
func (s *Store) MoveIn(ctx context.Context, dir string) error {
	legacy := filepath.Join(dir, "tournaments.db")
	if _, err := os.Stat(legacy); err != nil {
		return nil
	}
	if _, err := s.Import(ctx, legacy); err != nil {
		return err
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(legacy+suffix, legacy+".imported"+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("tournaments imported, but %w", err)
		}
	}
	return nil
}

// Import copies every tournament of the SQLite file at path (a tournament
// database of this release or an older one, tables with or without the
// tournament_ prefix) into s, with new ids after s's own, in one write of
// s's store, and returns how many it copied. Nothing is copied if any of
// it fails, and a file imported before (same contents) is not imported
// again. The file itself is only read.
func (s *Store) Import(ctx context.Context, path string) (int, error) {
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
	prefix, err := tablePrefix(ctx, old)
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
	err = s.st.Write(ctx, func(tx *sql.Tx) error {
		n = 0
		// The file's digest marks it imported, in the same transaction,
		// so a crash between the import and the file's renaming cannot
		// import it twice.
		res, err := tx.Exec(`INSERT OR IGNORE INTO tournament_imports(digest, path, imported) VALUES (?, ?, ?)`, digest, path, now())
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
			copied, err := copyRows(ctx, old, tx, st.from, st.to, st.offsets)
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

// tablePrefix finds how the tournament tables of a file are named:
// "tournament_" (this release), "" (before they moved into kalah.db), or
// "-" for a file without tournaments.
func tablePrefix(ctx context.Context, db *sql.DB) (string, error) {
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

// copyRows copies the rows of a query on from into tx with insert, adding
// offsets to the leading (integer id) columns.
func copyRows(ctx context.Context, from *sql.DB, tx *sql.Tx, query, insert string, offsets []int64) (int, error) {
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

// Close closes the database if Open opened it; a Store made by New leaves
// its store to its owner.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	return s.st.Close()
}

// DB returns the pool that reads the database, for read-only queries;
// every change goes through the store's writer.
func (s *Store) DB() *sql.DB { return s.db }

// Info is a stored tournament's header.
type Info struct {
	ID       int64     `json:"id"`
	Name     string    `json:"name"`
	Config   Config    `json:"config"`
	Status   string    `json:"status"` // created, running, stopped, finished
	Created  time.Time `json:"created"`
	Finished time.Time `json:"finished,omitzero"` // zero until finished
	Games    int       `json:"games"`             // games scheduled so far
	Played   int       `json:"played"`            // games with a result
}

// Status values. A tournament whose process was killed stays "running"
// until it is resumed.
const (
	StatusCreated  = "created"
	StatusRunning  = "running"
	StatusFinished = "finished"
	StatusStopped  = "stopped" // interrupted; resume with Run
)

// Create checks and stores a new tournament with its entrants and, for the
// formats whose games are known in advance, every game of its schedule.
func (s *Store) Create(ctx context.Context, cfg Config) (int64, error) {
	if err := cfg.Normalize(); err != nil {
		return 0, err
	}
	if cfg.Name == "" {
		cfg.Name = fmt.Sprintf("%s of %d players", cfg.Format, len(cfg.Players))
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.st.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT INTO tournaments(name, config, status, created) VALUES (?, ?, ?, ?)`,
			cfg.Name, string(js), StatusCreated, now())
		if err != nil {
			return fmt.Errorf("create tournament: %w", err)
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		for i, p := range cfg.Players {
			if _, err := tx.Exec(`INSERT INTO tournament_entrants(tournament_id, idx, spec) VALUES (?, ?, ?)`, id, i, p); err != nil {
				return fmt.Errorf("create tournament: %w", err)
			}
		}
		if cfg.Format == RoundRobin || cfg.Format == Gauntlet {
			return insertGames(tx, id, fullSchedule(cfg))
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

func insertGames(tx *sql.Tx, id int64, games []Scheduled) error {
	st, err := tx.Prepare(`INSERT INTO tournament_games(tournament_id, round, pairing, leg, south, north, opening, seed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, g := range games {
		if _, err := st.Exec(id, g.Round, g.Pairing, g.Leg, g.South, g.North, kalah.MovesText(g.Opening), int64(g.Seed)); err != nil {
			return fmt.Errorf("schedule game %d/%d/%d: %w", g.Round, g.Pairing, g.Leg, err)
		}
	}
	return nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// Tournament returns a stored tournament's header.
func (s *Store) Tournament(ctx context.Context, id int64) (Info, error) {
	var in Info
	var cfg, created string
	var finished sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT id, name, config, status, created, finished,
		(SELECT count(*) FROM tournament_games WHERE tournament_id = t.id),
		(SELECT count(*) FROM tournament_results r JOIN tournament_games g ON g.id = r.game_id WHERE g.tournament_id = t.id)
		FROM tournaments t WHERE id = ?`, id).Scan(&in.ID, &in.Name, &cfg, &in.Status, &created, &finished, &in.Games, &in.Played)
	if errors.Is(err, sql.ErrNoRows) {
		return in, fmt.Errorf("%w: %d", ErrNotFound, id)
	}
	if err != nil {
		return in, err
	}
	if err := json.Unmarshal([]byte(cfg), &in.Config); err != nil {
		return in, fmt.Errorf("tournament %d: stored configuration: %w", id, err)
	}
	in.Created, _ = time.Parse(time.RFC3339Nano, created)
	if finished.Valid {
		in.Finished, _ = time.Parse(time.RFC3339Nano, finished.String)
	}
	return in, nil
}

// List returns every stored tournament, newest first.
func (s *Store) List(ctx context.Context) ([]Info, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM tournaments ORDER BY id DESC`)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(ids))
	for _, id := range ids {
		in, err := s.Tournament(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

func (s *Store) setStatus(ctx context.Context, id int64, status string) error {
	return s.st.Write(ctx, func(tx *sql.Tx) error {
		var err error
		if status == StatusFinished {
			_, err = tx.Exec(`UPDATE tournaments SET status = ?, finished = ? WHERE id = ?`, status, now(), id)
		} else {
			_, err = tx.Exec(`UPDATE tournaments SET status = ? WHERE id = ?`, status, id)
		}
		return err
	})
}

// Scheduled is one game of a tournament's schedule. South and North are
// entrant indexes: the entrant who starts the game as South, and as North.
type Scheduled struct {
	ID      int64        `json:"id"`      // zero until stored
	Round   int          `json:"round"`   // from 1
	Pairing int          `json:"pairing"` // the pair's number within the round
	Leg     int          `json:"leg"`     // the game's number within the pairing
	South   int          `json:"south"`
	North   int          `json:"north"`
	Opening []kalah.Move `json:"opening,omitempty"` // moves made before the players take over
	Seed    uint64       `json:"seed"`
}

// Schedule returns every game scheduled so far, in order.
func (s *Store) Schedule(ctx context.Context, id int64) ([]Scheduled, error) {
	return s.scheduled(ctx, id, false)
}

// Pending returns the scheduled games that have no result yet.
func (s *Store) Pending(ctx context.Context, id int64) ([]Scheduled, error) {
	return s.scheduled(ctx, id, true)
}

func (s *Store) scheduled(ctx context.Context, id int64, pending bool) ([]Scheduled, error) {
	q := `SELECT id, round, pairing, leg, south, north, opening, seed FROM tournament_games g WHERE tournament_id = ?`
	if pending {
		q += ` AND NOT EXISTS (SELECT 1 FROM tournament_results r WHERE r.game_id = g.id)`
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY round, pairing, leg`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Scheduled
	for rows.Next() {
		var g Scheduled
		var opening string
		var seed int64
		if err := rows.Scan(&g.ID, &g.Round, &g.Pairing, &g.Leg, &g.South, &g.North, &opening, &seed); err != nil {
			return nil, err
		}
		g.Seed = uint64(seed)
		if g.Opening, err = parseMoves(opening); err != nil {
			return nil, fmt.Errorf("game %d: stored opening: %w", g.ID, err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

func parseMoves(s string) ([]kalah.Move, error) {
	var out []kalah.Move
	for f := range strings.FieldsSeq(s) {
		m, err := kalah.ParseMove(f)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Result is a finished game as a worker reports it. SouthSeeds and
// NorthSeeds are the final stores of the entrants scheduled as South and
// North (after a pie-rule swap they may have ended on the other side).
type Result struct {
	GameID     int64        `json:"game_id"`
	Tournament int64        `json:"tournament"`
	SouthSeeds int          `json:"south_seeds"`
	NorthSeeds int          `json:"north_seeds"`
	Record     kalah.Record `json:"record"`
	Reason     string       `json:"reason,omitempty"` // why a game was forfeited
	Worker     string       `json:"worker,omitempty"`
	Millis     int64        `json:"millis"`
}

// Commit stores a game's result and its moves in one transaction. A result
// for a game that already has one is ignored, so a game replayed after a
// crash or delivered twice counts once; Commit reports whether it counted.
func (s *Store) Commit(ctx context.Context, r Result) (bool, error) {
	counted, err := s.CommitBatch(ctx, []Result{r})
	if err != nil {
		return false, err
	}
	return counted[0], nil
}

// CommitBatch stores several results, each with its moves, in one
// transaction: all of them or none. It reports for each whether it counted
// (false: its game already had a result).
func (s *Store) CommitBatch(ctx context.Context, rs []Result) ([]bool, error) {
	counted := make([]bool, len(rs))
	if len(rs) == 0 {
		return counted, nil
	}
	err := s.st.Write(ctx, func(tx *sql.Tx) error {
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
		at := now()
		for i, r := range rs {
			rec, err := json.Marshal(r.Record)
			if err != nil {
				return err
			}
			res, err := ins.Exec(r.GameID, r.SouthSeeds, r.NorthSeeds, r.Record.Result.String(), r.Record.Termination.String(), r.Reason,
				len(r.Record.Moves), string(rec), r.Worker, r.Millis, at)
			if err != nil {
				return fmt.Errorf("store result of game %d: %w", r.GameID, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			counted[i] = true
			for j, m := range r.Record.Moves {
				move := strconv.Itoa(m.House)
				if m.Swap {
					move = "swap"
				}
				if _, err := mv.Exec(r.GameID, j+1, m.Side.Letter(), move, m.Millis); err != nil {
					return fmt.Errorf("store moves of game %d: %w", r.GameID, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store results: %w", err)
	}
	return counted, nil
}

// Played is a scheduled game with its stored result.
type Played struct {
	Scheduled
	SouthSeeds  int    `json:"south_seeds"`
	NorthSeeds  int    `json:"north_seeds"`
	Termination string `json:"termination"`
	Reason      string `json:"reason,omitempty"`
	Worker      string `json:"worker,omitempty"`
	Millis      int64  `json:"millis"`
}

// Games returns every game of a tournament that has a result, in schedule
// order.
func (s *Store) Games(ctx context.Context, id int64) ([]Played, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT g.id, g.round, g.pairing, g.leg, g.south, g.north, g.opening, g.seed,
		r.south_seeds, r.north_seeds, r.termination, r.reason, r.worker, r.millis
		FROM tournament_games g JOIN tournament_results r ON r.game_id = g.id WHERE g.tournament_id = ? ORDER BY g.round, g.pairing, g.leg`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Played
	for rows.Next() {
		var p Played
		var opening string
		var seed int64
		if err := rows.Scan(&p.ID, &p.Round, &p.Pairing, &p.Leg, &p.South, &p.North, &opening, &seed,
			&p.SouthSeeds, &p.NorthSeeds, &p.Termination, &p.Reason, &p.Worker, &p.Millis); err != nil {
			return nil, err
		}
		p.Seed = uint64(seed)
		if p.Opening, err = parseMoves(opening); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Record returns the stored record of a game.
func (s *Store) Record(ctx context.Context, gameID int64) (kalah.Record, error) {
	var rec kalah.Record
	var js string
	err := s.db.QueryRowContext(ctx, `SELECT record FROM tournament_results WHERE game_id = ?`, gameID).Scan(&js)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, fmt.Errorf("game %d has no result", gameID)
	}
	if err != nil {
		return rec, err
	}
	return rec, json.Unmarshal([]byte(js), &rec)
}

// byes returns the entrants given a bye, by round.
func (s *Store) byes(ctx context.Context, id int64) (map[int]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT round, entrant FROM tournament_byes WHERE tournament_id = ?`, id)
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

// scheduleRound stores a further round of games (Swiss, SPRT) and its bye,
// if any, in one transaction.
func (s *Store) scheduleRound(ctx context.Context, id int64, round int, games []Scheduled, bye int) error {
	return s.st.Write(ctx, func(tx *sql.Tx) error {
		if err := insertGames(tx, id, games); err != nil {
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

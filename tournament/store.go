package tournament

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver

	"kalah"
)

// DefaultDB is where the command line keeps tournaments unless told otherwise.
const DefaultDB = "kalah-data/kalah.db"

// ErrNotFound is returned for a tournament id that is not in the database.
var ErrNotFound = errors.New("tournament not found")

// ErrRunning is returned by Run for a tournament this Store is already
// running.
var ErrRunning = errors.New("tournament already running")

// Store is a database of tournaments: their configuration, entrants, every
// scheduled game and every result with its moves. It is safe for concurrent
// use; one process at a time should run a given tournament.
type Store struct {
	db       *sql.DB
	borrowed bool // opened by the caller (OpenDB)

	mu      sync.Mutex
	running map[int64]bool // tournaments Run is playing in this process
}

const schema = `
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

// Open opens (creating if needed) the tournament database at path, in WAL
// mode with a busy timeout so readers (a web page, a second terminal) never
// block the tournament that writes.
func Open(path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("tournament database: %w", err)
		}
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("tournament database %s: %w", path, err)
	}
	if err := upgrade(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("tournament database %s: %w", path, err)
	}
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("tournament database %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// oldTables are the names the tables had before they moved into the data
// directory's one database (kalah.db), beside the server's own games and
// moves: each is now tournament_NAME.
var oldTables = []string{"entrants", "games", "byes", "results", "moves"}

func hasTable(q interface {
	QueryRow(string, ...any) *sql.Row
}, name string) (bool, error) {
	var n int
	err := q.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
	return n > 0, err
}

// upgrade renames the tables of a tournament database written by an older
// release (entrants, games, ... without the tournament_ prefix), in one
// transaction. A database with a server's tables has no entrants or
// results table and is left alone.
func upgrade(db *sql.DB) error {
	for _, t := range []string{"entrants", "results"} {
		if ok, err := hasTable(db, t); err != nil || !ok {
			return err
		}
	}
	if ok, err := hasTable(db, "tournament_results"); err != nil || ok {
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
	for _, t := range oldTables {
		if _, err := tx.Exec(fmt.Sprintf(`ALTER TABLE %s RENAME TO tournament_%s`, t, t)); err != nil {
			return fmt.Errorf("rename table %s: %w", t, err)
		}
	}
	return tx.Commit()
}

// Import copies every tournament of the database at path (one written by
// this release or an older one) into s, with new ids after s's own, in one
// transaction, and returns how many it copied. Nothing is copied if any of
// it fails.
func (s *Store) Import(ctx context.Context, path string) (int, error) {
	// Opening the old file brings its tables to today's names and folds
	// its write-ahead log in when closed.
	old, err := Open(path)
	if err != nil {
		return 0, err
	}
	if err := old.Close(); err != nil {
		return 0, err
	}
	// The file's digest marks it imported, in the same transaction, so a
	// crash between the import and the file's renaming cannot import it
	// twice.
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	sum := sha256.Sum256(b)
	digest := hex.EncodeToString(sum[:])
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	// ATTACH belongs to one connection: everything below runs on conn.
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS old`, "file:"+path+"?mode=ro"); err != nil {
		return 0, fmt.Errorf("import %s: %w", path, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE old`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO main.tournament_imports(digest, path, imported) VALUES (?, ?, ?)`, digest, path, now())
	if err != nil {
		return 0, err
	}
	if fresh, _ := res.RowsAffected(); fresh == 0 {
		return 0, nil // imported before
	}
	var tOff, gOff int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM main.tournaments`).Scan(&tOff); err != nil {
		return 0, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM main.tournament_games`).Scan(&gOff); err != nil {
		return 0, err
	}
	steps := []string{
		`INSERT INTO main.tournaments(id, name, config, status, created, finished)
			SELECT id + ?1, name, config, status, created, finished FROM old.tournaments`,
		`INSERT INTO main.tournament_entrants(tournament_id, idx, spec)
			SELECT tournament_id + ?1, idx, spec FROM old.tournament_entrants`,
		`INSERT INTO main.tournament_games(id, tournament_id, round, pairing, leg, south, north, opening, seed)
			SELECT id + ?2, tournament_id + ?1, round, pairing, leg, south, north, opening, seed FROM old.tournament_games`,
		`INSERT INTO main.tournament_byes(tournament_id, round, entrant)
			SELECT tournament_id + ?1, round, entrant FROM old.tournament_byes`,
		`INSERT INTO main.tournament_results(game_id, south_seeds, north_seeds, result, termination, reason, plies, record, worker, millis, finished)
			SELECT game_id + ?2, south_seeds, north_seeds, result, termination, reason, plies, record, worker, millis, finished FROM old.tournament_results`,
		`INSERT INTO main.tournament_moves(game_id, ply, side, move, millis)
			SELECT game_id + ?2, ply, side, move, millis FROM old.tournament_moves`,
	}
	var n int64
	for i, q := range steps {
		res, err := tx.ExecContext(ctx, q, tOff, gOff)
		if err != nil {
			return 0, fmt.Errorf("import %s: %w", path, err)
		}
		if i == 0 {
			n, _ = res.RowsAffected()
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("import %s: %w", path, err)
	}
	return int(n), nil
}

// OpenDataDir opens the tournaments of a data directory, kept in its one
// database (kalah.db) beside the server's games. Tournaments an older
// release kept in tournaments.db there are moved in first, and that file is
// renamed tournaments.db.imported (with its -wal and -shm files, if any),
// so they are moved once.
func OpenDataDir(ctx context.Context, dir string) (*Store, error) {
	st, err := Open(filepath.Join(dir, "kalah.db"))
	if err != nil {
		return nil, err
	}
	legacy := filepath.Join(dir, "tournaments.db")
	if _, err := os.Stat(legacy); err == nil {
		if _, err := st.Import(ctx, legacy); err != nil {
			st.Close()
			return nil, err
		}
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(legacy+suffix, legacy+".imported"+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				st.Close()
				return nil, fmt.Errorf("tournaments imported, but %w", err)
			}
		}
	}
	return st, nil
}

// OpenDB uses an already open SQLite database (for instance one a server
// shares with its own tables), creating the tournament tables if needed.
// Close does not close db.
func OpenDB(db *sql.DB) (*Store, error) {
	if err := upgrade(db); err != nil {
		return nil, fmt.Errorf("tournament tables: %w", err)
	}
	if _, err := db.Exec(schema); err != nil {
		return nil, fmt.Errorf("tournament tables: %w", err)
	}
	return &Store{db: db, borrowed: true}, nil
}

// Close closes the database.
func (s *Store) Close() error {
	if s.borrowed {
		return nil
	}
	return s.db.Close()
}

// DB returns the underlying database, for read-only queries.
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
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO tournaments(name, config, status, created) VALUES (?, ?, ?, ?)`,
		cfg.Name, string(js), StatusCreated, now())
	if err != nil {
		return 0, fmt.Errorf("create tournament: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	for i, p := range cfg.Players {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tournament_entrants(tournament_id, idx, spec) VALUES (?, ?, ?)`, id, i, p); err != nil {
			return 0, fmt.Errorf("create tournament: %w", err)
		}
	}
	if cfg.Format == RoundRobin || cfg.Format == Gauntlet {
		if err := insertGames(ctx, tx, id, fullSchedule(cfg)); err != nil {
			return 0, err
		}
	}
	return id, tx.Commit()
}

func insertGames(ctx context.Context, tx *sql.Tx, id int64, games []Scheduled) error {
	st, err := tx.PrepareContext(ctx, `INSERT INTO tournament_games(tournament_id, round, pairing, leg, south, north, opening, seed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, g := range games {
		if _, err := st.ExecContext(ctx, id, g.Round, g.Pairing, g.Leg, g.South, g.North, movesString(g.Opening), int64(g.Seed)); err != nil {
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
	var err error
	if status == StatusFinished {
		_, err = s.db.ExecContext(ctx, `UPDATE tournaments SET status = ?, finished = ? WHERE id = ?`, status, now(), id)
	} else {
		_, err = s.db.ExecContext(ctx, `UPDATE tournaments SET status = ? WHERE id = ?`, status, id)
	}
	return err
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

func movesString(ms []kalah.Move) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return strings.Join(parts, " ")
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
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO tournament_results(game_id, south_seeds, north_seeds, result, termination, reason, plies, record, worker, millis, finished)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(game_id) DO NOTHING`)
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	mv, err := tx.PrepareContext(ctx, `INSERT INTO tournament_moves(game_id, ply, side, move, millis) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer mv.Close()
	at := now()
	for i, r := range rs {
		rec, err := json.Marshal(r.Record)
		if err != nil {
			return nil, err
		}
		res, err := ins.ExecContext(ctx, r.GameID, r.SouthSeeds, r.NorthSeeds, r.Record.Result.String(), r.Record.Termination.String(), r.Reason,
			len(r.Record.Moves), string(rec), r.Worker, r.Millis, at)
		if err != nil {
			return nil, fmt.Errorf("store result of game %d: %w", r.GameID, err)
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
			if _, err := mv.ExecContext(ctx, r.GameID, j+1, m.Side.Letter(), move, m.Millis); err != nil {
				return nil, fmt.Errorf("store moves of game %d: %w", r.GameID, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
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
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insertGames(ctx, tx, id, games); err != nil {
		return err
	}
	if bye >= 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tournament_byes(tournament_id, round, entrant) VALUES (?, ?, ?)`, id, round, bye); err != nil {
			return err
		}
	}
	return tx.Commit()
}

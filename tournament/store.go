package tournament

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
var ErrNotFound = store.ErrEngineTournamentNotFound

// ErrRunning is returned by Run for a tournament this Store is already
// running.
var ErrRunning = errors.New("tournament already running")

// Store is a database of tournaments: their configuration, entrants, every
// scheduled game and every result with its moves. Its tables live in the
// server's store (package internal/store: kalah.db, whose versioned
// migrations make them, and whose methods hold every query of them:
// store.CreateEngineTournament and its kin), and it reads and writes them
// through that store's one pool of connections and one writer, so a process has one connection
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
	return s.st.ImportEngineTournaments(ctx, path)
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
	var games []store.EngineGame
	if cfg.Format == RoundRobin || cfg.Format == Gauntlet {
		games = engineGames(fullSchedule(cfg))
	}
	return s.st.CreateEngineTournament(ctx, cfg.Name, string(js), StatusCreated, cfg.Players, games)
}

// engineGames turns scheduled games into the store's rows.
func engineGames(games []Scheduled) []store.EngineGame {
	out := make([]store.EngineGame, len(games))
	for i, g := range games {
		out[i] = store.EngineGame{ID: g.ID, Round: g.Round, Pairing: g.Pairing, Leg: g.Leg, South: g.South, North: g.North,
			Opening: kalah.MovesText(g.Opening), Seed: g.Seed}
	}
	return out
}

// scheduledGame turns a store's row into a scheduled game.
func scheduledGame(g store.EngineGame) (Scheduled, error) {
	opening, err := parseMoves(g.Opening)
	if err != nil {
		return Scheduled{}, fmt.Errorf("game %d: stored opening: %w", g.ID, err)
	}
	return Scheduled{ID: g.ID, Round: g.Round, Pairing: g.Pairing, Leg: g.Leg, South: g.South, North: g.North,
		Opening: opening, Seed: g.Seed}, nil
}

// Tournament returns a stored tournament's header.
func (s *Store) Tournament(ctx context.Context, id int64) (Info, error) {
	t, err := s.st.EngineTournament(ctx, id)
	if err != nil {
		return Info{}, err
	}
	in := Info{ID: t.ID, Name: t.Name, Status: t.Status, Created: t.Created, Finished: t.Finished, Games: t.Games, Played: t.Played}
	if err := json.Unmarshal([]byte(t.Config), &in.Config); err != nil {
		return in, fmt.Errorf("tournament %d: stored configuration: %w", id, err)
	}
	return in, nil
}

// List returns every stored tournament, newest first.
func (s *Store) List(ctx context.Context) ([]Info, error) {
	ids, err := s.st.EngineTournamentIDs(ctx)
	if err != nil {
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
	return s.st.SetEngineTournamentStatus(ctx, id, status, status == StatusFinished)
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
	rows, err := s.st.EngineGames(ctx, id, pending)
	if err != nil {
		return nil, err
	}
	var out []Scheduled
	for _, r := range rows {
		g, err := scheduledGame(r)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
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
	rows := make([]store.EngineResult, len(rs))
	for i, r := range rs {
		rec, err := json.Marshal(r.Record)
		if err != nil {
			return nil, fmt.Errorf("store results: %w", err)
		}
		moves := make([]store.EngineMove, len(r.Record.Moves))
		for j, m := range r.Record.Moves {
			move := strconv.Itoa(m.House)
			if m.Swap {
				move = "swap"
			}
			moves[j] = store.EngineMove{Side: m.Side.Letter(), Move: move, Millis: m.Millis}
		}
		rows[i] = store.EngineResult{GameID: r.GameID, SouthSeeds: r.SouthSeeds, NorthSeeds: r.NorthSeeds,
			Result: r.Record.Result.String(), Termination: r.Record.Termination.String(), Reason: r.Reason,
			Record: string(rec), Worker: r.Worker, Millis: r.Millis, Moves: moves}
	}
	counted, err := s.st.CommitEngineResults(ctx, rows)
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
	rows, err := s.st.EnginePlayedGames(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []Played
	for _, r := range rows {
		g, err := scheduledGame(r.EngineGame)
		if err != nil {
			return nil, err
		}
		out = append(out, Played{Scheduled: g, SouthSeeds: r.SouthSeeds, NorthSeeds: r.NorthSeeds,
			Termination: r.Termination, Reason: r.Reason, Worker: r.Worker, Millis: r.Millis})
	}
	return out, nil
}

// Record returns the stored record of a game.
func (s *Store) Record(ctx context.Context, gameID int64) (kalah.Record, error) {
	var rec kalah.Record
	js, err := s.st.EngineRecord(ctx, gameID)
	if errors.Is(err, store.ErrNoEngineResult) {
		return rec, fmt.Errorf("game %d has no result", gameID)
	}
	if err != nil {
		return rec, err
	}
	return rec, json.Unmarshal([]byte(js), &rec)
}

// byes returns the entrants given a bye, by round.
func (s *Store) byes(ctx context.Context, id int64) (map[int]int, error) {
	return s.st.EngineByes(ctx, id)
}

// scheduleRound stores a further round of games (Swiss, SPRT) and its bye,
// if any, in one transaction.
func (s *Store) scheduleRound(ctx context.Context, id int64, round int, games []Scheduled, bye int) error {
	return s.st.ScheduleEngineRound(ctx, id, round, engineGames(games), bye)
}

// Package store keeps the server's games and bot credentials in an SQLite
// file (modernc.org/sqlite, pure Go, WAL mode): every game as it starts,
// every move as it is made, the end when it comes, and each bot's name with
// a salted hash of its token. Writes go through one goroutine that commits
// whatever is waiting in one transaction (group commit), so a thousand games
// moving at once cost one fsync-free WAL commit a batch rather than one
// each; a write returns only once it is committed.
package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite" // the database/sql driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"kalah"
	"kalah/internal/cores"
	"kalah/internal/datadir"
	"kalah/internal/identity"
)

// Errors returned by the store, matched with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrBadToken = errors.New("wrong token")
	ErrClosed   = errors.New("store closed")
	// ErrUnavailable is a write the database cannot take now (the disk
	// full, the file locked or failing): nothing of it was written, and
	// the same write may succeed later.
	ErrUnavailable = errors.New("the store cannot write now (disk full or database locked)")
)

// Status is where a game stands.
type Status string

// The statuses of a game.
const (
	Live     Status = "live"
	Finished Status = "finished"
)

// Seat describes who plays one side of a stored game, so a restarted
// server can resume it.
type Seat struct {
	// Name is the name shown for the seat: its identity's display name,
	// or for a seat without one (an anonymous KGP client, a game of an
	// older release) a label.
	Name string `json:"name"`
	// Kind says how the seat is played: "bot" (a bot logged in over the
	// network, which must come back), "spec" (a server-side player built
	// from Spec), "human" (a person moving through the API or the page)
	// or another transport's name ("kgp").
	Kind string `json:"kind"`
	Spec string `json:"spec,omitempty"`
	// ID is who plays the seat: an account, a bot, a guest or a program;
	// zero for nobody known. An open seat with an ID is kept for that
	// identity (a rematch's).
	ID identity.ID `json:"id,omitzero"`
	// TokenHash, for a "human" seat, is the SHA-256 (hex) of the secret
	// that moves it too (for API clients without a session), so a
	// person's seat survives a restart; empty while the seat is open.
	TokenHash string `json:"token_hash,omitempty"`
	// Open marks a human seat nobody has taken yet.
	Open bool `json:"open,omitempty"`
	// InviteHash, for an open seat, is the SHA-256 (hex) of the invite's
	// secret, which whoever takes the seat must give.
	InviteHash string `json:"invite_hash,omitempty"`
}

// Game is a stored game.
type Game struct {
	ID       int64
	Seats    [2]Seat // by the side each started on
	Status   Status
	Created  time.Time
	Finished time.Time // zero while live
	Plies    int       // moves stored
	// Record holds the rules, players, moves so far (each with its time),
	// and for a finished game the result, termination and final score.
	// Games returns it without moves.
	Record kalah.Record
}

// Store is an open game database. Its methods are safe for concurrent use.
type Store struct {
	db  *sql.DB // readers
	wdb *sql.DB // the single writer connection
	// q holds the writes not yet taken for a commit, in order; slots
	// bounds it (a writer queues only with a slot free).
	q     writeQueue
	slots chan struct{}
	// tokenHashers bounds the old credentials checked at once (tokens.go:
	// PBKDF2, a millisecond of a core each), as hashers does the
	// passwords: a burst of old bots logging in takes at most half the
	// processors, and the games in play keep the rest.
	tokenHashers chan struct{}
	// committing is held by whoever commits: a caller that found nobody
	// committing (commitInline), or the writer goroutine, kicked by
	// those that did not commit theirs.
	committing sync.Mutex
	kick       chan struct{}
	done       chan struct{}
	closed     chan struct{}
	once       sync.Once
	// checkpoints is closed when the checkpointer has stopped.
	checkpoints chan struct{}
	// wstmts and reads are the statements prepared once on the writer's
	// connection and on the readers' pool (stmts.go).
	wstmts, reads *stmtCache
	pageSize      int64 // the database's page size, to size the WAL
	// commitDelay is the least time between the starts of two commits
	// while writes keep coming (SetCommitDelay).
	commitDelay time.Duration
	path        string
	// commits and committed count committed transactions and the writes
	// in them (Commits, Writes).
	commits, committed atomic.Uint64
	// hashers bounds the password hashes computed at once (SetHashers).
	hashers chan struct{}
	// failing, if set, fails every write with it (FailWrites).
	failing atomic.Pointer[error]
	// owners caches BotOwner (owners.go).
	owners ownerCache
	// pairs answers RatedGamesBetween for the pairs with no recent rated
	// game (recent_pairs.go); dataVersion is the writer connection's
	// PRAGMA data_version, which another process's commit changes.
	pairs       recentPairs
	dataVersion int64
	// j holds the live games' moves until their end (journal.go).
	j *journal
	// replayed and torn say what Open found in the journal (Replayed).
	replayed int
	torn     error
}

// FailWrites makes every write fail with err, as the database would with
// its disk full, until FailWrites(nil): a fault injected for tests and
// drills of what the server does then. An err that SQLite's words would
// mark unavailable should wrap ErrUnavailable, as unavailable does.
func (s *Store) FailWrites(err error) {
	if err == nil {
		s.failing.Store(nil)
		return
	}
	s.failing.Store(&err)
}

// walLimit bounds the write-ahead log: past it the checkpointer waits for
// readers to finish and truncates the log, and SQLite trims the file to it
// whenever the log restarts (journal_size_limit).
var walLimit int64 = 32 << 20

// checkpointer copies the WAL into the database five times a second,
// without waiting for anyone (PASSIVE). A log that grows past walLimit anyway,
// because readers keep the checkpoint from finishing under load, is
// truncated (TRUNCATE waits for the readers of the moment), so it stays
// bounded.
func (s *Store) checkpointer() {
	defer close(s.checkpoints)
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			var busy, logPages, done int64
			if err := s.db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logPages, &done); err != nil {
				continue
			}
			if logPages*s.pageSize > walLimit {
				s.truncateWAL()
			}
		case <-s.done:
			return
		}
	}
}

// truncateTries and truncateRetry bound how long truncateWAL tries, and
// how long it lets the writer have its connection between two tries.
const (
	truncateTries = 40
	truncateRetry = 250 * time.Microsecond
)

// truncateWAL empties the write-ahead log, which the passive checkpoints
// cannot rewind while writes keep coming (each finds new frames behind
// it). A truncating checkpoint must wait for the readers still reading
// the log; SQLite's busy handler would sleep meanwhile (1, 2, 5, 10, 15,
// 20 ms...) on the writer's one connection, stalling every commit for
// 13 to 52 ms at 4,000 games (docs/PERFORMANCE.md, S4). So it tries
// without waiting, gives the connection back to the writer between tries,
// and tries again a quarter of a millisecond later, for at most about
// 10 ms; it reports whether the log was emptied.
func (s *Store) truncateWAL() bool {
	for i := range truncateTries {
		if i > 0 {
			time.Sleep(truncateRetry)
		}
		done, err := s.tryTruncate()
		if err != nil {
			return false
		}
		if done {
			return true
		}
	}
	return false
}

// tryTruncate tries a truncating checkpoint once, without waiting for
// readers; it reports whether it finished.
func (s *Store) tryTruncate() (bool, error) {
	ctx := context.Background()
	c, err := s.wdb.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "PRAGMA busy_timeout=0"); err != nil {
		return false, err
	}
	defer c.ExecContext(ctx, "PRAGMA busy_timeout=5000")
	var busy, logPages, done int64
	err = c.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logPages, &done)
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY {
		return false, nil
	}
	return err == nil && busy == 0, err
}

// SetCommitDelay sets the least time between the starts of two commits
// while writes keep coming (0, the default: none): a write that comes
// sooner than that after the last commit began waits, gathering those
// that come meanwhile into one commit, as PostgreSQL's commit_delay does.
// Fewer, larger commits write fewer pages of the log for the same moves
// (the pages of the tables' trees that every commit shares); a write that
// comes alone waits for nothing. Call it before the store is used.
func (s *Store) SetCommitDelay(d time.Duration) { s.commitDelay = max(d, 0) }

type writeReq struct {
	fn    func(tx *Tx) error
	reply chan error
}

type moveRow struct {
	game        int64
	ply         int
	side        string
	house, swap int
	ms          int64
}

const schema = `
CREATE TABLE IF NOT EXISTS games (
	id          INTEGER PRIMARY KEY,
	rules       TEXT NOT NULL,
	seats       TEXT NOT NULL,
	south       TEXT NOT NULL,
	north       TEXT NOT NULL,
	start       TEXT NOT NULL DEFAULT '',
	tags        TEXT NOT NULL DEFAULT '{}',
	status      TEXT NOT NULL,
	result      TEXT NOT NULL DEFAULT 'ongoing',
	termination TEXT NOT NULL DEFAULT '',
	south_score INTEGER NOT NULL DEFAULT 0,
	north_score INTEGER NOT NULL DEFAULT 0,
	created     INTEGER NOT NULL,
	finished    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS games_status ON games(status, id);
CREATE TABLE IF NOT EXISTS moves (
	game  INTEGER NOT NULL REFERENCES games(id),
	ply   INTEGER NOT NULL,
	side  TEXT NOT NULL,
	house INTEGER NOT NULL,
	swap  INTEGER NOT NULL,
	ms    INTEGER NOT NULL,
	PRIMARY KEY (game, ply)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bots (
	name    TEXT PRIMARY KEY,
	salt    BLOB NOT NULL,
	hash    BLOB NOT NULL,
	created INTEGER NOT NULL
);
`

// DefaultDir returns kalah's data directory (datadir.Dir: --data,
// $KALAH_DATA, ./kalah-data if it exists, else ~/.local/share/kalah).
func DefaultDir() string { return datadir.Dir() }

// Open opens (creating if need be) the database at path, a file name or
// ":memory:" for a database that lives only as long as the Store.
func Open(path string) (*Store, error) {
	var dsn string
	if path == ":memory:" {
		// One connection serves readers and the writer alike.
		dsn = ":memory:"
	} else {
		if err := os.MkdirAll(filepath.Dir(path), datadir.DirMode); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		// Password and token hashes: the owner's only. SQLite gives the
		// -wal and -shm files it makes the database file's mode.
		if err := datadir.PrivateFile(path); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		for _, f := range []string{path + "-wal", path + "-shm"} {
			if err := datadir.NarrowFile(f); err != nil {
				return nil, fmt.Errorf("store: %w", err)
			}
		}
		// SQLite's default 4 KiB pages: the driver runs the _pragma list
		// in lexicographic order, journal_mode before page_size, so a
		// page_size here never applied (the WAL fixes the page size).
		// Statement journals (each write's savepoint keeps the pages it
		// changes) in memory, not in a temporary file written page by
		// page: they never outlive their transaction.
		dsn = "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(5000)&_pragma=temp_store(MEMORY)"
	}
	wdsn := dsn
	if path != ":memory:" {
		// The writer's transactions take the write lock as they begin
		// (BEGIN IMMEDIATE), waiting for it as busy_timeout allows: a
		// deferred one that read first and then wrote could be refused
		// at once (SQLITE_BUSY) if the log changed under its snapshot,
		// which under load failed a game's rating now and then.
		wdsn += "&_txlock=immediate"
	}
	wdb, err := sql.Open("sqlite", wdsn)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	if err := renameOldTournamentTables(wdb); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if _, err := wdb.Exec(schema); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := migrate(wdb); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if _, err := wdb.Exec(secretsSchema); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db := wdb
	if path != ":memory:" {
		if db, err = sql.Open("sqlite", dsn); err != nil {
			wdb.Close()
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
		db.SetMaxOpenConns(4)
	}
	s := &Store{db: db, wdb: wdb, slots: make(chan struct{}, maxQueued), tokenHashers: make(chan struct{}, max(1, cores.N()/2)), kick: make(chan struct{}, 1), done: make(chan struct{}), closed: make(chan struct{}),
		path: path, hashers: make(chan struct{}, DefaultHashers), wstmts: newStmtCache(wdb, true), reads: newStmtCache(db, db == wdb)}
	if db != wdb {
		// Checkpoint the WAL in the background, so no commit waits for one
		// (a checkpoint syncs the database file).
		if _, err := wdb.Exec(fmt.Sprintf("PRAGMA journal_size_limit=%d", walLimit)); err != nil {
			db.Close()
			wdb.Close()
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
		if _, err := wdb.Exec("PRAGMA wal_autocheckpoint=0"); err != nil {
			db.Close()
			wdb.Close()
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
		s.checkpoints = make(chan struct{})
		if err := wdb.QueryRow("PRAGMA page_size").Scan(&s.pageSize); err != nil {
			s.pageSize = 4096
		}
		go s.checkpointer()
	}
	jpath := ""
	if path != ":memory:" {
		jpath = journalPath(path)
	}
	if s.j, err = openJournal(jpath); err != nil {
		s.stopCheckpoints()
		db.Close()
		wdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	// What the database holds now is this store's: another process's
	// commit from here on changes the writer's data_version.
	err = wdb.QueryRow("PRAGMA data_version").Scan(&s.dataVersion)
	if err == nil {
		err = s.loadRecentPairs(context.Background())
	}
	if err != nil {
		s.j.close()
		s.stopCheckpoints()
		db.Close()
		wdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s.pairs.seen()
	go s.writer()
	if s.replayed, s.torn, err = replayJournal(context.Background(), s, s.j); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return s, nil
}

// Replayed says what the store found in the moves' journal as it opened:
// how many moves of live games it put into the database (a crash left them
// there), and, if the journal ended in a line cut short, where.
func (s *Store) Replayed() (moves int, torn error) { return s.replayed, s.torn }

// stopCheckpoints stops the checkpointer, if it runs.
func (s *Store) stopCheckpoints() {
	s.once.Do(func() { close(s.done) })
	if s.checkpoints != nil {
		<-s.checkpoints
	}
}

// Close waits for pending writes, puts the moves of games still live into
// the database, and closes it.
func (s *Store) Close() error {
	s.once.Do(func() {
		flushed, n := s.flushJournal()
		close(s.done) // the writer commits what is queued, at once
		if flushed != nil && <-flushed == nil {
			s.j.resetIf(n)
		}
	})
	<-s.closed
	var jerr error
	if s.j != nil {
		jerr = s.j.close()
	}
	s.wstmts.close()
	s.reads.close()
	if s.checkpoints != nil {
		<-s.checkpoints
		s.wdb.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	}
	if s.db == s.wdb {
		return errors.Join(jerr, s.wdb.Close())
	}
	return errors.Join(jerr, s.db.Close(), s.wdb.Close())
}

// flushJournal queues the moves the journal holds for the database, as
// the store closes; the journal is emptied once they are committed, unless
// a move came meanwhile (it then keeps them all, for the next Open).
func (s *Store) flushJournal() (committed <-chan error, n int) {
	if s.j == nil {
		return nil, 0
	}
	rows, n := s.j.all()
	if n == 0 {
		return nil, 0
	}
	r := writeReq{fn: func(tx *Tx) error { return insertMoves(tx, rows) }, reply: make(chan error, 1)}
	s.slots <- struct{}{}
	s.q.push(r)
	return r.reply, n
}

// maxQueued bounds the writes waiting for a commit: past it a writer
// waits for room (or its context); maxBatch bounds a commit's writes.
const (
	maxQueued = 1024
	maxBatch  = 512
)

// writeQueue is the writes waiting for a commit, in the order queued.
type writeQueue struct {
	mu   sync.Mutex
	reqs []writeReq
}

func (q *writeQueue) push(r writeReq) {
	q.mu.Lock()
	q.reqs = append(q.reqs, r)
	q.mu.Unlock()
}

// take returns up to maxBatch writes from the front, appended to batch.
func (q *writeQueue) take(batch []writeReq) []writeReq {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(q.reqs), maxBatch)
	batch = append(batch, q.reqs[:n]...)
	clear(q.reqs[:n])
	q.reqs = q.reqs[n:]
	if len(q.reqs) == 0 {
		q.reqs = q.reqs[:0:0]
	}
	return batch
}

func (q *writeQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.reqs)
}

// wake asks the writer goroutine to commit what is queued.
func (s *Store) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// writer commits queued writes in batches, when kicked: the writes of
// those that did not commit them themselves (commitInline).
func (s *Store) writer() {
	defer close(s.closed)
	var last time.Time // when the last commit began
	var gather *time.Timer
	for {
		select {
		case <-s.kick:
		case <-s.done:
			// Finish what is queued, then stop.
			s.committing.Lock()
			for {
				batch := s.q.take(nil)
				if len(batch) == 0 {
					break
				}
				s.commit(batch)
			}
			s.committing.Unlock()
			return
		}
		s.committing.Lock()
		for {
			if wait := s.commitDelay - time.Since(last); wait > 0 && !last.IsZero() {
				// Writes keep coming: those of the next moment join this
				// one, up to a full batch.
				if gather == nil {
					gather = time.NewTimer(wait)
				} else {
					gather.Reset(wait)
				}
			gathering:
				for s.q.len() < maxBatch {
					select {
					case <-gather.C:
						break gathering
					case <-s.kick: // one more: count again
					case <-s.done:
						break gathering
					}
				}
				gather.Stop()
			}
			batch := s.q.take(nil)
			if len(batch) == 0 {
				break
			}
			last = time.Now()
			s.commit(batch)
		}
		s.committing.Unlock()
	}
}

// inlineBatches bounds the commits a caller makes for others after its
// own, before it leaves the rest to the writer goroutine.
const inlineBatches = 2

// commitInline commits what is queued, the caller's write among it, from
// the caller's goroutine, unless someone is committing already (who then
// commits it, or leaves it to the writer goroutine), so that no wake of
// the writer lies between a write and its answer. With a commit delay the
// writer gathers every write.
func (s *Store) commitInline() {
	if s.commitDelay > 0 || !s.committing.TryLock() {
		s.wake()
		return
	}
	for range inlineBatches {
		batch := s.q.take(nil)
		if len(batch) == 0 {
			break
		}
		s.commit(batch)
	}
	s.committing.Unlock()
	// A write queued while this caller held the lock, and not taken, is
	// the writer's.
	if s.q.len() > 0 {
		s.wake()
	}
}

// commit runs a batch in one transaction. Each write runs inside a
// savepoint of its own, so a write that fails halfway leaves nothing
// behind while the rest of the batch commits: one store operation is
// all or nothing, batched or not. Moves go in with multi-row inserts; if
// one fails (a duplicate), its rows are retried one by one, each in its
// own savepoint, so only the bad row fails.
func (s *Store) commit(batch []writeReq) {
	if f := s.failing.Load(); f != nil {
		for _, r := range batch {
			s.answer(r, *f)
		}
		return
	}
	stx, err := s.wdb.Begin()
	if err != nil {
		for _, r := range batch {
			s.answer(r, unavailable(err))
		}
		return
	}
	tx := &Tx{Tx: stx, stmts: s.wstmts}
	// Once the batch is answered and the connection free.
	defer s.wstmts.prepareWanted()
	s.checkForeign(tx)
	errs := make([]error, len(batch))
	for i, r := range batch {
		errs[i] = atomically(tx, r.fn)
		// A batch is milliseconds of CPU (a game's end is about half of
		// one): the writer lets the goroutines waiting for a processor
		// run between its writes, rather than hold one the whole batch
		// while the moves of the games in play wait behind it.
		runtime.Gosched()
	}
	err = tx.Commit()
	if err == nil {
		s.commits.Add(1)
		s.committed.Add(uint64(len(batch)))
	}
	if err != nil {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	}
	for i, r := range batch {
		s.answer(r, unavailable(errs[i]))
	}
}

// checkForeign notes whether another process committed to the database
// since the writer's last look (its data_version changed), for
// recentPairs, whose notes know only this store's writes; it looks once
// its last look is a tenth of a second old, not at every commit.
func (s *Store) checkForeign(tx *Tx) {
	if !s.pairs.stale() {
		return
	}
	var v int64
	if err := tx.QueryRow("PRAGMA data_version").Scan(&v); err != nil {
		return
	}
	if v != s.dataVersion {
		s.dataVersion = v
		s.pairs.foreign()
		return
	}
	s.pairs.seen()
}

// answer tells a write's writer how it went, and frees its slot.
func (s *Store) answer(r writeReq, err error) {
	<-s.slots
	r.reply <- err
}

// unavailable marks err as ErrUnavailable when SQLite says the database
// cannot be written now (SQLITE_FULL, SQLITE_BUSY, SQLITE_LOCKED,
// SQLITE_IOERR): the client is told to try again (503), not that the
// server failed.
func unavailable(err error) error {
	var se *sqlite.Error
	if err == nil || errors.Is(err, ErrUnavailable) || !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR:
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

// atomically runs fn inside a savepoint of tx: if fn fails, everything it
// wrote is rolled back and the transaction goes on without it.
func atomically(tx *Tx, fn func(tx *Tx) error) (err error) {
	if _, err := tx.Exec(`SAVEPOINT op`); err != nil {
		return err
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("store: write panicked: %v", v)
		}
		if err != nil {
			if _, rerr := tx.Exec(`ROLLBACK TO op`); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
		if _, rerr := tx.Exec(`RELEASE op`); rerr != nil && err == nil {
			err = rerr
		}
	}()
	return fn(tx)
}

// write queues fn and waits until it is committed.
func (s *Store) write(ctx context.Context, fn func(tx *Tx) error) error {
	return s.queue(ctx, writeReq{fn: fn, reply: make(chan error, 1)})
}

// queue queues a write, commits it (commitInline) and waits until it is
// committed.
func (s *Store) queue(ctx context.Context, r writeReq) error {
	if err := s.enqueue(ctx, r); err != nil {
		return err
	}
	s.commitInline()
	// Once queued, the write happens; wait for it even if ctx ends, so a
	// caller never believes a committed move was lost.
	return <-r.reply
}

// enqueue queues a write for a commit, once there is room.
func (s *Store) enqueue(ctx context.Context, r writeReq) error {
	select {
	case <-s.done:
		return ErrClosed
	default:
	}
	select {
	case s.slots <- struct{}{}:
	case <-s.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	s.q.push(r)
	return nil
}

// NewGame describes a game to create.
type NewGame struct {
	Rules kalah.Rules
	Seats [2]Seat
	Start string // set-up position, empty for the rules' start
	Tags  map[string]string
}

// CreateGame stores a new live game and returns its id.
func (s *Store) CreateGame(ctx context.Context, ng NewGame) (int64, error) {
	rules, err := json.Marshal(ng.Rules.Canonical())
	if err != nil {
		return 0, err
	}
	seats, _ := json.Marshal(ng.Seats)
	tags, _ := json.Marshal(ng.Tags)
	var id int64
	south, north := ng.Seats[0].ID.Key(), ng.Seats[1].ID.Key()
	err = s.write(ctx, func(tx *Tx) error {
		now := time.Now().UnixMilli()
		if ng.Tags[ratedTag] == "yes" {
			s.pairs.note(south, north, now) // before it commits
		}
		res, err := tx.Exec(`INSERT INTO games(rules, seats, south, north, south_id, north_id, start, tags, status, created) VALUES(?,?,?,?,?,?,?,?,?,?)`,
			string(rules), string(seats), ng.Seats[0].Name, ng.Seats[1].Name, south, north, ng.Start, string(tags), string(Live), now)
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: create game: %w", err)
	}
	s.j.started(id)
	return id, nil
}

// AddMove stores move ply (0 for the first) of live game id: it returns
// once the move is in the moves' journal (journal.go), where a crash of
// the process does not lose it; the game's end puts it into the database.
// A ply that is not the game's next is refused (ErrMoveOrder).
func (s *Store) AddMove(ctx context.Context, id int64, ply int, m kalah.RecordMove) error {
	if f := s.failing.Load(); f != nil {
		return fmt.Errorf("store: game %d move %d: %w", id, ply+1, *f)
	}
	select {
	case <-s.done:
		return ErrClosed
	default:
	}
	swap := 0
	if m.Swap {
		swap = 1
	}
	row := moveRow{game: id, ply: ply, side: m.Side.Letter(), house: m.House, swap: swap, ms: m.Millis}
	err := s.j.add(row, func() (int, error) {
		var n int
		err := s.queryRow(ctx, `SELECT count(*) FROM moves WHERE game=?`, id).Scan(&n)
		return n, err
	})
	if err != nil {
		return fmt.Errorf("store: game %d move %d: %w", id, ply+1, err)
	}
	return nil
}

// AddMoveAsync is AddMove, its answer sent on the channel returned.
func (s *Store) AddMoveAsync(ctx context.Context, id int64, ply int, m kalah.RecordMove) <-chan error {
	done := make(chan error, 1)
	done <- s.AddMove(ctx, id, ply, m)
	return done
}

// FinishGame marks game id finished with rec's result, termination and
// final score, adding rec's tags to the game's, and puts its moves into
// the database from the journal, in the same transaction. The moves must
// already be stored (AddMove).
func (s *Store) FinishGame(ctx context.Context, id int64, rec kalah.Record) error {
	return s.finish(ctx, id, rec, nil)
}

// ErrNotRated says that a game's end was stored without its rating
// (FinishRated), and why.
var ErrNotRated = errors.New("store: the game is stored as finished, but not rated")

// FinishRated is FinishGame and RateGame in one write, so that a game
// never ends without the rating it earned, whatever stops the server: a
// game rated before is not rated again. If the rating alone cannot be
// written (the seats cannot be rated, say), the game's end is stored
// without it and the error is ErrNotRated's; if the database cannot be
// written now, neither is.
func (s *Store) FinishRated(ctx context.Context, id int64, rec kalah.Record, r Rate) error {
	return s.finish(ctx, id, rec, &r)
}

func (s *Store) finish(ctx context.Context, id int64, rec kalah.Record, r *Rate) error {
	tags := []byte("{}")
	if len(rec.Tags) > 0 {
		tags, _ = json.Marshal(rec.Tags)
	}
	var notRated error
	if r != nil {
		notRated = r.check()
	}
	err := s.write(ctx, func(tx *Tx) error {
		if moves, _, ok := s.j.held(id); ok {
			if err := insertMoves(tx, moves); err != nil {
				return err
			}
		}
		// The record's tags join those stored with the game (json_patch:
		// a tag of the record replaces the stored one of its name; tags
		// stored as null, or not JSON, become the record's).
		var south, north string
		var created int64
		var rated sql.NullString
		err := tx.QueryRow(`UPDATE games SET status=?, result=?, termination=?, south_score=?, north_score=?, finished=?, tags=json_patch(CASE WHEN json_valid(tags) THEN tags ELSE '{}' END, ?)
			WHERE id=? AND status=? RETURNING south_id, north_id, created, `+ratedSQL,
			string(Finished), rec.Result.String(), rec.Termination.String(), rec.Final.South, rec.Final.North, time.Now().UnixMilli(), string(tags),
			id, string(Live)).Scan(&south, &north, &created, &rated)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: live game %d", ErrNotFound, id)
		}
		if err != nil {
			return err
		}
		if rated.String == "yes" {
			s.pairs.note(south, north, created) // before it commits
		}
		if r == nil || notRated != nil {
			return nil
		}
		// The rating in a savepoint of its own: if it fails, the game's
		// end is stored without it, unless the database is away.
		err = atomically(tx, func(tx *Tx) error {
			_, err := rateGame(tx, id, *r)
			return err
		})
		switch {
		case errors.Is(unavailable(err), ErrUnavailable):
			return err
		case errors.Is(err, errRatedBefore):
		case err != nil:
			notRated = err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: finish game %d: %w", id, err)
	}
	s.j.stored(id)
	if notRated != nil {
		return fmt.Errorf("%w: game %d: %w", ErrNotRated, id, notRated)
	}
	return nil
}

const gameCols = `id, rules, seats, start, tags, status, result, termination, south_score, north_score, created, finished, (SELECT COUNT(*) FROM moves WHERE moves.game = games.id)`

type scanner interface{ Scan(...any) error }

func scanGame(sc scanner) (Game, error) {
	var g Game
	var rules, seats, start, tags, status, result, term string
	var created, finished int64
	if err := sc.Scan(&g.ID, &rules, &seats, &start, &tags, &status, &result, &term, &g.Record.Final.South, &g.Record.Final.North, &created, &finished, &g.Plies); err != nil {
		return g, err
	}
	if err := json.Unmarshal([]byte(rules), &g.Record.Rules); err != nil {
		return g, fmt.Errorf("store: game %d rules: %w", g.ID, err)
	}
	if err := json.Unmarshal([]byte(seats), &g.Seats); err != nil {
		return g, fmt.Errorf("store: game %d seats: %w", g.ID, err)
	}
	json.Unmarshal([]byte(tags), &g.Record.Tags)
	g.Record.Players = kalah.Players{South: g.Seats[0].Name, North: g.Seats[1].Name}
	g.Record.Start = start
	g.Status = Status(status)
	g.Record.Result, _ = kalah.ParseResult(result)
	g.Record.Termination, _ = kalah.ParseTermination(term)
	if g.Record.Termination == kalah.Aborted {
		g.Record.Result = kalah.NoResult // stored "ongoing" by earlier releases
	}
	g.Created = time.UnixMilli(created)
	if finished != 0 {
		g.Finished = time.UnixMilli(finished)
	}
	return g, nil
}

// Game returns game id with all its moves. For a live game the final
// score is that of the position after the stored moves.
func (s *Store) Game(ctx context.Context, id int64) (Game, error) {
	g, err := scanGame(s.queryRow(ctx, `SELECT `+gameCols+` FROM games WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("store: game %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return g, fmt.Errorf("store: game %d: %w", id, err)
	}
	rows, err := s.query(ctx, `SELECT ply, side, house, swap, ms FROM moves WHERE game=? ORDER BY ply`, id)
	if err != nil {
		return g, fmt.Errorf("store: game %d moves: %w", id, err)
	}
	defer rows.Close()
	g.Record.Moves = []kalah.RecordMove{}
	for rows.Next() {
		var ply int
		var side string
		var m kalah.RecordMove
		var swap int
		if err := rows.Scan(&ply, &side, &m.House, &swap, &m.Millis); err != nil {
			return g, err
		}
		if ply != len(g.Record.Moves) {
			return g, fmt.Errorf("store: game %d: move %d missing", id, len(g.Record.Moves)+1)
		}
		m.Side, _ = kalah.ParseSide(side)
		m.Swap = swap != 0
		g.Record.Moves = append(g.Record.Moves, m)
	}
	if err := rows.Err(); err != nil {
		return g, err
	}
	// A live game's later moves are in the journal (those the database
	// has already, its end committed meanwhile, are not taken twice).
	if held, next, ok := s.j.held(id); ok {
		for _, m := range held {
			if m.ply == len(g.Record.Moves) {
				g.Record.Moves = append(g.Record.Moves, m.recordMove())
			}
		}
		g.Plies = max(g.Plies, next)
	}
	// The record seats the players as at the end (the seats are by the
	// side each started on): a pie-rule swap exchanges them.
	swaps := 0
	for _, m := range g.Record.Moves {
		if m.Swap {
			swaps++
		}
	}
	if g.Record.Swapped = swaps%2 == 1; g.Record.Swapped {
		g.Record.SetPlayers(g.Seats[0].Name, g.Seats[1].Name)
	}
	if g.Status == Live {
		if kg, err := Replay(g.Record); err == nil {
			g.Record.Final.South, g.Record.Final.North = kg.Score()
		}
	}
	return g, nil
}

// Replay rebuilds a live game from a stored record: the rules, start and
// moves, leaving it unfinished.
func Replay(rec kalah.Record) (*kalah.Game, error) {
	start := rec.Rules.Start()
	if rec.Start != "" {
		var err error
		if start, err = kalah.ParsePosition(rec.Start); err != nil {
			return nil, err
		}
	}
	g, err := kalah.NewGameFrom(rec.Rules, start)
	if err != nil {
		return nil, err
	}
	g.Players[0], g.Players[1] = rec.Starters()
	for i, m := range rec.Moves {
		mv := kalah.Move(m.House)
		if m.Swap {
			mv = kalah.Swap
		}
		if m.Side != g.ToMove() {
			return nil, fmt.Errorf("move %d: %w: by %s but %s is to move", i+1, kalah.ErrIllegalMove, m.Side, g.ToMove())
		}
		if _, err := g.Play(mv); err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	return g, nil
}

// Filter selects games for Games.
type Filter struct {
	Status Status      // "" for any
	Player identity.ID // an identity playing either side; zero for any
	Limit  int         // at most this many, newest first; 0 means 100
	Before int64       // only ids below this; 0 for no bound (paging)
}

// Games returns games matching f, newest first, without their moves.
func (s *Store) Games(ctx context.Context, f Filter) ([]Game, error) {
	var where []string
	var args []any
	if f.Status != "" {
		where = append(where, "status=?")
		args = append(args, string(f.Status))
	}
	if !f.Player.IsZero() {
		where = append(where, "(south_id=? OR north_id=?)")
		args = append(args, f.Player.Key(), f.Player.Key())
	}
	if f.Before > 0 {
		where = append(where, "id<?")
		args = append(args, f.Before)
	}
	q := `SELECT ` + gameCols + ` FROM games`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	q += fmt.Sprintf(" ORDER BY id DESC LIMIT %d", limit)
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: games: %w", err)
	}
	defer rows.Close()
	var out []Game
	for rows.Next() {
		g, err := scanGame(rows)
		if err != nil {
			return nil, err
		}
		if next, ok := s.j.next(g.ID); ok {
			g.Plies = max(g.Plies, next) // its moves in the journal
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// Unfinished returns every live game with its moves, oldest first, for a
// server starting up to resume or adjudicate.
func (s *Store) Unfinished(ctx context.Context) ([]Game, error) {
	rows, err := s.query(ctx, `SELECT id FROM games WHERE status=? ORDER BY id`, string(Live))
	if err != nil {
		return nil, fmt.Errorf("store: unfinished: %w", err)
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
	// A scan that stops early (a corrupt page, a read error) must not
	// leave the games after it out of those a starting server resumes.
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unfinished: %w", err)
	}
	out := make([]Game, 0, len(ids))
	for _, id := range ids {
		g, err := s.Game(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// schemaVersion is the PRAGMA user_version of a database this release
// writes; migrate brings older ones up to it, one step at a time.
const schemaVersion = 8

// migrations[v] takes a database from user_version v to v+1.
var migrations = []func(tx *Tx) error{
	// 0 -> 1: a lookup hash of each bot's token, so a token alone (KGP's
	// auth:token) finds its bot.
	func(tx *Tx) error {
		has, err := hasColumn(tx, "bots", "lookup")
		if err != nil || has {
			return err
		}
		if _, err := tx.Exec(`ALTER TABLE bots ADD COLUMN lookup BLOB`); err != nil {
			return err
		}
		_, err = tx.Exec(`CREATE UNIQUE INDEX IF NOT EXISTS bots_lookup ON bots(lookup)`)
		return err
	},
	// 1 -> 2: accounts: people with a password, their sessions, the bots
	// they own.
	func(tx *Tx) error {
		if _, err := tx.Exec(`CREATE TABLE IF NOT EXISTS users (
	name    TEXT PRIMARY KEY COLLATE NOCASE,
	salt    BLOB NOT NULL,
	hash    BLOB NOT NULL,
	created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
	id      BLOB PRIMARY KEY,
	user    TEXT NOT NULL REFERENCES users(name),
	created INTEGER NOT NULL,
	expires INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions(user);`); err != nil {
			return err
		}
		has, err := hasColumn(tx, "bots", "owner")
		if err != nil || has {
			return err
		}
		_, err = tx.Exec(`ALTER TABLE bots ADD COLUMN owner TEXT`)
		return err
	},
	// 2 -> 3: Glicko-2 ratings of accounts, people and bots alike, one
	// ladder a pool (rule preset and time-control class), and each rated
	// game's change.
	func(tx *Tx) error {
		_, err := tx.Exec(`CREATE TABLE IF NOT EXISTS ratings (
	name    TEXT NOT NULL COLLATE NOCASE,
	pool    TEXT NOT NULL,
	rating  REAL NOT NULL,
	rd      REAL NOT NULL,
	vol     REAL NOT NULL,
	games   INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	PRIMARY KEY (name, pool)
);
CREATE INDEX IF NOT EXISTS ratings_pool ON ratings(pool, rating);
CREATE TABLE IF NOT EXISTS rating_history (
	game   INTEGER NOT NULL,
	name   TEXT NOT NULL COLLATE NOCASE,
	pool   TEXT NOT NULL,
	before REAL NOT NULL,
	after  REAL NOT NULL,
	rd     REAL NOT NULL,
	at     INTEGER NOT NULL,
	PRIMARY KEY (game, name)
);
CREATE INDEX IF NOT EXISTS rating_history_name ON rating_history(name, pool, at);`)
		return err
	},
	// 3 -> 4: package tournament's tables (tournaments.go).
	migrateTournaments,
	// 4 -> 5: one identity for every seat, one name space for people and
	// bots, ratings by identity (identity_migrate.go).
	migrateIdentities,
	// 5 -> 6: people's tournaments, arenas and Swiss (people_tournaments.go).
	migratePeopleTournaments,
	// 6 -> 7: games' chats and the players people follow (social.go).
	migrateSocial,
	// 7 -> 8: names' skeletons without the punctuation at their ends
	// (skeleton_migrate.go).
	migrateSkeletons,
}

func hasColumn(tx *Tx, table, column string) (bool, error) {
	rows, err := tx.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return false, err
		}
		if name == column {
			return true, nil
		}
	}
	return false, rows.Err()
}

// migrate runs the migrations a database lacks, each in a transaction
// with its new user_version, and refuses a database from a newer release.
func migrate(db *sql.DB) error {
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v > schemaVersion {
		return fmt.Errorf("database schema version %d is newer than this release's %d: upgrade kalah", v, schemaVersion)
	}
	for ; v < schemaVersion; v++ {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		if err := migrations[v](&Tx{Tx: tx}); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
		}
		if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version=%d`, v+1)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// tokenLookup is the hash by which a token alone finds its bot.
func tokenLookup(token string) []byte {
	h := sha256.Sum256([]byte("kalah bot token\x00" + token))
	return h[:]
}

// ErrNoBot is returned by BotByToken for a token no bot has.
var ErrNoBot = errors.New("no bot has this token")

// BotByToken returns the name of the bot whose token this is.
func (s *Store) BotByToken(ctx context.Context, token string) (string, error) {
	var name string
	err := s.queryRow(ctx, `SELECT name FROM bots WHERE lookup=?`, tokenLookup(token)).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNoBot
	}
	if err != nil {
		return "", fmt.Errorf("store: bot by token: %w", err)
	}
	return name, nil
}

// ForgetToken makes a token find no bot any more (KGP's auth:forget); the
// bot keeps its name, games and name-and-token login.
func (s *Store) ForgetToken(ctx context.Context, token string) error {
	return s.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE bots SET lookup=NULL WHERE lookup=?`, tokenLookup(token))
		return err
	})
}

// checked records, after a login checked token against bot name's
// credential stored, the token's lookup if the bot has none, and the
// credential as v2 if it was v1 (tokens.go). Neither is written if the
// credential changed meanwhile (a new token).
func (s *Store) checked(ctx context.Context, name, token string, stored []byte) error {
	lookup := tokenLookup(token)
	var salt, hash []byte
	if len(stored) == tokenV1Len {
		salt, hash = newCredential(token)
	}
	return s.write(ctx, func(tx *Tx) error {
		now := stored
		if hash != nil {
			if _, err := tx.Exec(`UPDATE bots SET salt=?, hash=? WHERE name=? AND hash=?`, salt, hash, name, stored); err != nil {
				return err
			}
			now = hash
		}
		_, err := tx.Exec(`UPDATE bots SET lookup=? WHERE name=? AND hash=? AND lookup IS NULL AND NOT EXISTS (SELECT 1 FROM bots WHERE lookup=?)`, lookup, name, now, lookup)
		return err
	})
}

// Authenticate checks a bot's token as BotLogin does, for callers that
// need not know the name's registered case.
func (s *Store) Authenticate(ctx context.Context, name, token string) (created bool, err error) {
	_, created, err = s.BotLogin(ctx, name, token)
	return created, err
}

// BotLogin checks a bot's token and returns the bot's name as registered
// (names compare without case: "BobBot" logs in as "bobbot"). The first
// login of a free name registers it with the token (created is true); a
// name that is not free (a person's, another bot's, or one a reader
// could take for one of them: identity.Skeleton) is refused with
// ErrNameTaken, and a wrong token for an existing bot with ErrBadToken
// (canon still names the bot, for the message).
func (s *Store) BotLogin(ctx context.Context, name, token string) (canon string, created bool, err error) {
	return s.botLogin(ctx, name, token, true)
}

// BotLoginMade is BotLogin for a name the server made (a bot known only
// by its token gets "kgp-" and part of the token's hash): the reserved
// prefixes are not checked.
func (s *Store) BotLoginMade(ctx context.Context, name, token string) (canon string, created bool, err error) {
	return s.botLogin(ctx, name, token, false)
}

func (s *Store) botLogin(ctx context.Context, name, token string, check bool) (string, bool, error) {
	var canon string
	var salt, hash []byte
	var noLookup bool
	err := s.queryRow(ctx, `SELECT name, salt, hash, lookup IS NULL FROM bots WHERE name=? COLLATE NOCASE`, name).Scan(&canon, &salt, &hash, &noLookup)
	switch {
	case err == nil:
		ok, old, err := s.checkToken(ctx, token, salt, hash)
		if err != nil {
			return canon, false, fmt.Errorf("store: bot %q: %w", canon, err)
		}
		if !ok {
			return canon, false, fmt.Errorf("bot %q: %w", canon, ErrBadToken)
		}
		if !noLookup && !old {
			return canon, false, nil // nothing to write
		}
		return canon, false, s.checked(ctx, canon, token, hash)
	case !errors.Is(err, sql.ErrNoRows):
		return "", false, fmt.Errorf("store: bot %q: %w", name, err)
	}
	if check {
		if err := identity.CheckName(name); err != nil {
			return "", false, fmt.Errorf("%w: %w", ErrBadAccount, err)
		}
	}
	if revoked, err := s.tokenRevoked(ctx, token); err != nil || revoked {
		if err == nil {
			err = ErrRevokedToken
		}
		return "", false, fmt.Errorf("bot %q: %w", name, err)
	}
	salt, hash = newCredential(token)
	err = s.write(ctx, func(tx *Tx) error {
		if err := claimName(tx, name, identity.Bot); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO bots(name, salt, hash, created, lookup) VALUES(?,?,?,?,(SELECT ? WHERE NOT EXISTS (SELECT 1 FROM bots WHERE lookup=?)))`, name, salt, hash, time.Now().UnixMilli(), tokenLookup(token), tokenLookup(token))
		return err
	})
	if errors.Is(err, ErrNameTaken) {
		// Someone has it, or took it meanwhile: a bot of that very name
		// logs in with its own token.
		var salt2, hash2 []byte
		if qerr := s.queryRow(ctx, `SELECT name, salt, hash FROM bots WHERE name=? COLLATE NOCASE`, name).Scan(&canon, &salt2, &hash2); qerr == nil {
			ok, _, cerr := s.checkToken(ctx, token, salt2, hash2)
			if cerr != nil {
				return canon, false, fmt.Errorf("store: bot %q: %w", canon, cerr)
			}
			if ok {
				return canon, false, nil
			}
			return canon, false, fmt.Errorf("bot %q: %w", canon, ErrBadToken)
		}
		return "", false, err
	}
	if err != nil {
		return "", false, fmt.Errorf("store: register bot %q: %w", name, err)
	}
	return name, true, nil
}

// SetSeats replaces the seats of game id (a person taking an open seat).
func (s *Store) SetSeats(ctx context.Context, id int64, seats [2]Seat) error {
	b, _ := json.Marshal(seats)
	err := s.write(ctx, func(tx *Tx) error {
		var created int64
		var rated sql.NullString
		err := tx.QueryRow(`UPDATE games SET seats=?, south=?, north=?, south_id=?, north_id=? WHERE id=? RETURNING created, `+ratedSQL, string(b),
			seats[0].Name, seats[1].Name, seats[0].ID.Key(), seats[1].ID.Key(), id).Scan(&created, &rated)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: game %d", ErrNotFound, id)
		}
		if err == nil && rated.String == "yes" {
			// A new pair: noted before it commits. (A pair noted too
			// soon, if the write fails, only sends a question to the
			// database.)
			s.pairs.note(seats[0].ID.Key(), seats[1].ID.Key(), created)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: seats of game %d: %w", id, err)
	}
	return nil
}

// TakebackTag is the tag under which a game's takebacks are kept: one
// entry a takeback, separated by "; ", each "PLY: MOVES", the number of
// moves left and the moves taken back (in the game's move notation).
const TakebackTag = "Takebacks"

// TakeBack removes the moves of live game id from ply on (0: all) and
// notes them in the game's TakebackTag, in one transaction ordered after
// every write queued before it.
func (s *Store) TakeBack(ctx context.Context, id int64, ply int, taken string) error {
	err := s.write(ctx, func(tx *Tx) error {
		var tags string
		if err := tx.QueryRow(`SELECT tags FROM games WHERE id=? AND status=?`, id, string(Live)).Scan(&tags); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("%w: live game %d", ErrNotFound, id)
			}
			return err
		}
		m := map[string]string{}
		json.Unmarshal([]byte(tags), &m)
		if m == nil { // stored as null
			m = map[string]string{}
		}
		entry := fmt.Sprintf("%d: %s", ply, taken)
		if m[TakebackTag] != "" {
			entry = m[TakebackTag] + "; " + entry
		}
		m[TakebackTag] = entry
		b, _ := json.Marshal(m)
		if _, err := tx.Exec(`DELETE FROM moves WHERE game=? AND ply>=?`, id, ply); err != nil {
			return err
		}
		_, err := tx.Exec(`UPDATE games SET tags=? WHERE id=?`, string(b), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: take back in game %d: %w", id, err)
	}
	// The database's moves from ply on are gone; the journal's go too,
	// and it notes so for a replay. A crash between the two would bring
	// back the moves taken back, never lose one.
	if err := s.j.takenBack(id, ply); err != nil {
		return fmt.Errorf("store: take back in game %d: %w: the moves' journal: %w", id, ErrUnavailable, err)
	}
	return nil
}

// GameByTag returns the id of the newest game whose tag key is value (a
// game imported from elsewhere, found by its old id).
func (s *Store) GameByTag(ctx context.Context, key, value string) (int64, error) {
	var id int64
	err := s.queryRow(ctx, `SELECT id FROM games WHERE CASE WHEN json_valid(tags) THEN json_extract(tags, '$.' || ?) END = ? ORDER BY id DESC LIMIT 1`, key, value).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: game tagged %s=%s: %w", key, value, ErrNotFound)
	}
	return id, err
}

// SetTag sets one tag of game id, live or finished.
func (s *Store) SetTag(ctx context.Context, id int64, key, value string) error {
	err := s.write(ctx, func(tx *Tx) error {
		var tags, south, north string
		var created int64
		if err := tx.QueryRow(`SELECT tags, south_id, north_id, created FROM games WHERE id=?`, id).Scan(&tags, &south, &north, &created); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("%w: game %d", ErrNotFound, id)
			}
			return err
		}
		if key == ratedTag && value == "yes" {
			s.pairs.note(south, north, created) // before it commits
		}
		m := map[string]string{}
		json.Unmarshal([]byte(tags), &m)
		if m == nil {
			m = map[string]string{}
		}
		m[key] = value
		b, _ := json.Marshal(m)
		_, err := tx.Exec(`UPDATE games SET tags=? WHERE id=?`, string(b), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: tag game %d: %w", id, err)
	}
	return nil
}

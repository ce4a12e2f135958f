package store

import (
	"context"
	"database/sql"
	"sync"
)

// maxCached bounds the statements a cache keeps: the store's queries are a
// fixed set, but a query built for a number of values (an IN list, a
// multi-row insert) is one a number; beyond the bound a query is prepared
// for its one use, as database/sql does by itself.
const maxCached = 512

// stmtCache keeps statements prepared once on a pool and reused: SQLite's
// parsing and planning of a statement was a sixth of the server's CPU at
// 4,000 games (a game's creation, its end, its rating, each a few
// statements parsed anew every time).
//
// The writer's one connection is held by its transaction while a write
// runs, so its statements cannot be prepared then: a new one runs unprepared
// and is prepared after the commit (prepareWanted), when the connection is
// free; database/sql then takes it, prepared on that connection, into each
// transaction (Tx.Stmt).
type stmtCache struct {
	mu   sync.RWMutex
	db   *sql.DB
	m    map[string]*sql.Stmt
	lazy bool                // the writer's: prepared after the commit
	want map[string]struct{} // those to prepare then
}

func newStmtCache(db *sql.DB, lazy bool) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sql.Stmt{}, lazy: lazy, want: map[string]struct{}{}}
}

// get returns q prepared, or nil: the cache is full, the statement is the
// writer's and not prepared yet, or the prepare failed (the caller's plain
// call then meets the error itself).
func (c *stmtCache) get(ctx context.Context, q string) *sql.Stmt {
	if c == nil {
		return nil // a transaction of its own (a migration): nothing kept
	}
	c.mu.RLock()
	st, ok := c.m[q]
	c.mu.RUnlock()
	if ok {
		return st
	}
	c.mu.Lock()
	st, ok = c.m[q]
	full := len(c.m)+len(c.want) >= maxCached
	if !ok && !full && c.lazy {
		c.want[q] = struct{}{}
	}
	c.mu.Unlock()
	if ok || full || c.lazy {
		return st // nil unless another call kept it meanwhile
	}
	// Prepared without the lock: a prepare may wait for a connection of
	// the pool, and the statements already kept must not wait with it.
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if had, ok := c.m[q]; ok {
		st.Close() // another reader prepared it meanwhile
		return had
	}
	c.m[q] = st
	return st
}

// prepareWanted prepares the writer's statements met in the last
// transaction, now that its connection is free.
func (c *stmtCache) prepareWanted() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for q := range c.want {
		if st, err := c.db.Prepare(q); err == nil {
			c.m[q] = st
		}
		delete(c.want, q)
	}
}

func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = map[string]*sql.Stmt{}
}

// Tx is the writer's transaction as the store's writes see it: its Exec,
// Query and QueryRow take the statements prepared once on the writer's
// connection.
type Tx struct {
	*sql.Tx
	stmts *stmtCache
}

// Exec runs q with args in the transaction.
func (t *Tx) Exec(q string, args ...any) (sql.Result, error) {
	if st := t.stmts.get(context.Background(), q); st != nil {
		return t.Tx.Stmt(st).Exec(args...)
	}
	return t.Tx.Exec(q, args...)
}

// Query runs q with args in the transaction.
func (t *Tx) Query(q string, args ...any) (*sql.Rows, error) {
	if st := t.stmts.get(context.Background(), q); st != nil {
		return t.Tx.Stmt(st).Query(args...)
	}
	return t.Tx.Query(q, args...)
}

// QueryRow runs q with args in the transaction.
func (t *Tx) QueryRow(q string, args ...any) *sql.Row {
	if st := t.stmts.get(context.Background(), q); st != nil {
		return t.Tx.Stmt(st).QueryRow(args...)
	}
	return t.Tx.QueryRow(q, args...)
}

// query runs a read on the readers' pool with its statement prepared once.
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := s.reads.get(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return s.db.QueryContext(ctx, q, args...)
}

// queryRow is query for one row.
func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if st := s.reads.get(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return s.db.QueryRowContext(ctx, q, args...)
}

package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The tables of other packages (package tournament's) live in this one
// database, created by its versioned migrations (tournaments.go), and are
// written through the same single writer and read through the same pool of
// readers as the server's games, so a process holds one connection pool on
// kalah.db and one writer, with one busy timeout and one checkpointer.

// Write runs fn in the writer's next transaction, with the other writes
// queued meanwhile, and returns once it is committed. fn's statements are
// one unit, as every write's: they are all committed or, if fn fails,
// none of them, whatever the other writes of its batch do (each write runs
// in a savepoint of its own). fn must use only tx: it runs on the writer's
// connection, which no other query may wait for. Once queued, the write is
// committed even if ctx ends meanwhile, so a caller never believes a
// committed write was lost.
func (s *Store) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.write(ctx, func(tx *Tx) error { return fn(tx.Tx) })
}

// ReadDB returns the pool of connections that read the database, for
// queries of the tables other packages keep here; every change goes
// through Write. (For a ":memory:" store it is the writer's one
// connection.)
func (s *Store) ReadDB() *sql.DB { return s.db }

// QueuedWrites returns how many writes wait to be taken for a commit: the
// depth of the queue, for metrics and for tests that show a write queued
// behind another.
func (s *Store) QueuedWrites() int { return s.q.len() }

// LimitSize bounds the database file to about bytes (SQLite's
// max_page_count; zero lifts the bound), and the journal of the live
// games' moves to as much: past it every write fails as on a full disk,
// which is how an operator caps the store and how the tests make a disk
// fill up.
func (s *Store) LimitSize(ctx context.Context, bytes int64) error {
	pages := int64(4294967294) // SQLite's most
	if bytes > 0 {
		pages = max(bytes/s.pageSizeOr4K(), 1)
	}
	s.j.mu.Lock()
	s.j.limit = max(bytes, 0)
	s.j.mu.Unlock()
	_, err := s.wdb.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count=%d", pages))
	return err
}

func (s *Store) pageSizeOr4K() int64 {
	if s.pageSize > 0 {
		return s.pageSize
	}
	return 4096
}

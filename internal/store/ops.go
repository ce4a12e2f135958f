package store

import (
	"context"
	"os"
)

// Commits returns how many transactions the store has committed: each a
// batch of writes (group commit).
func (s *Store) Commits() uint64 { return s.commits.Load() }

// Writes returns how many writes those transactions held.
func (s *Store) Writes() uint64 { return s.committed.Load() }

// WALSize returns the size of the database's write-ahead log file in
// bytes (0 for a database in memory, or when there is no log).
func (s *Store) WALSize() int64 {
	if s.path == "" || s.path == ":memory:" {
		return 0
	}
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Ping reports whether the database answers a read.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.queryRow(ctx, "SELECT 1").Scan(&one)
}

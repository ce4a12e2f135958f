package store

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestWriteAllOrNothing: a write that fails halfway leaves nothing behind,
// even when the writer commits it in one transaction with others that
// succeed; the others commit, and the failure reaches its caller.
func TestWriteAllOrNothing(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	// Hold the writer, so the two writes below wait together and are
	// committed as one batch.
	held, release := make(chan struct{}), make(chan struct{})
	go s.write(ctx, func(tx *Tx) error {
		close(held)
		<-release
		return nil
	})
	<-held
	boom := errors.New("second statement failed")
	var wg sync.WaitGroup
	var failed, ok error
	wg.Add(2)
	go func() {
		defer wg.Done()
		failed = s.write(ctx, func(tx *Tx) error {
			if _, err := tx.Exec(`INSERT INTO bots(name, salt, hash, created) VALUES('half', x'00', x'00', 0)`); err != nil {
				return err
			}
			return boom
		})
	}()
	go func() {
		defer wg.Done()
		ok = s.write(ctx, func(tx *Tx) error {
			_, err := tx.Exec(`INSERT INTO bots(name, salt, hash, created) VALUES('whole', x'00', x'00', 0)`)
			return err
		})
	}()
	for s.QueuedWrites() < 2 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if !errors.Is(failed, boom) || ok != nil {
		t.Fatalf("failed write: %v; good write: %v", failed, ok)
	}
	for name, want := range map[string]int{"half": 0, "whole": 1} {
		var n int
		if err := s.db.QueryRow(`SELECT count(*) FROM bots WHERE name=?`, name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("bot %q: %d rows, want %d", name, n, want)
		}
	}
}

package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"kalah/internal/identity"
)

// TestStatementsKept: the writer's and the readers' statements are
// prepared once and kept (the writer's after the commit that first met
// them), and a read through a kept statement sees every write committed
// before it, from many readers at once.
func TestStatementsKept(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "kalah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	alice := identity.Of(identity.Person, "alice")
	kept := func(c *stmtCache) int {
		c.mu.RLock()
		defer c.mu.RUnlock()
		return len(c.m)
	}
	for i := range 20 {
		if err := s.Follow(ctx, alice, identity.Of(identity.Person, fmt.Sprint("p", i)), 100); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				got, err := s.Following(ctx, alice)
				if err != nil || len(got) != i+1 {
					t.Errorf("after %d follows, a reader sees %d (%v)", i+1, len(got), err)
				}
			})
		}
		wg.Wait()
	}
	w, r := kept(s.wstmts), kept(s.reads)
	if w == 0 || r == 0 {
		t.Fatalf("statements kept: writer %d, readers %d", w, r)
	}
	for range 5 {
		s.Follow(ctx, alice, identity.Of(identity.Person, "p0"), 100)
		s.Following(ctx, alice)
	}
	if w2, r2 := kept(s.wstmts), kept(s.reads); w2 != w || r2 != r {
		t.Errorf("statements prepared again: writer %d then %d, readers %d then %d", w, w2, r, r2)
	}
}

package store

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestTokenHashesBounded: at most half the processors hash tokens at
// once (at least one); a login that finds them all busy waits, and one
// whose context ends first is refused with the context's error (told
// "busy, retry" by the bots' login), registering nothing.
func TestTokenHashesBounded(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := cap(s.tokenHashers), max(1, runtime.GOMAXPROCS(0)/2); got != want {
		t.Fatalf("%d hashes at once, want %d", got, want)
	}
	ctx := context.Background()
	if _, _, err := s.BotLogin(ctx, "known", "token-of-known-0123"); err != nil {
		t.Fatal(err)
	}
	for range cap(s.tokenHashers) { // every place taken
		s.tokenHashers <- struct{}{}
	}
	for _, name := range []string{"known", "newcomer"} {
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		_, _, err := s.BotLogin(short, name, "token-of-"+name+"-0123")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrHashBusy) {
			t.Errorf("login of %s with every hasher busy: %v, want ErrHashBusy and the context's deadline", name, err)
		}
	}
	// A login that waits gets in once a place is free.
	done := make(chan error, 1)
	go func() {
		_, created, err := s.BotLogin(ctx, "newcomer", "token-of-newcomer-0123")
		if err == nil && !created {
			err = errors.New("newcomer registered before, by the login that was refused")
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a login hashed with every place taken: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	for range cap(s.tokenHashers) {
		<-s.tokenHashers
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

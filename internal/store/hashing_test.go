package store

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// oldCredential rewrites bot name's credential in the v1 format (PBKDF2),
// as a store written by an older release holds it.
func oldCredential(t *testing.T, s *Store, name, token string) {
	t.Helper()
	salt := []byte("0123456789abcdef")
	if _, err := s.wdb.Exec(`UPDATE bots SET salt=?, hash=? WHERE name=?`, salt, tokenHashV1(token, salt), name); err != nil {
		t.Fatal(err)
	}
}

// credential returns bot name's stored hash.
func credential(t *testing.T, s *Store, name string) []byte {
	t.Helper()
	var h []byte
	if err := s.db.QueryRow(`SELECT hash FROM bots WHERE name=?`, name).Scan(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestTokenHashesBounded: at most half the processors check v1 (PBKDF2)
// credentials at once (at least one); a login that finds them all busy
// waits, and one whose context ends first is refused with the context's
// error (told "busy, retry" by the bots' login). A first login, and one
// against a v2 credential, hash once and wait for no hasher.
func TestTokenHashesBounded(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "k.db"))
	if got, want := cap(s.tokenHashers), max(1, runtime.GOMAXPROCS(0)/2); got != want {
		t.Fatalf("%d hashes at once, want %d", got, want)
	}
	ctx := context.Background()
	for _, name := range []string{"old", "known"} {
		if _, _, err := s.BotLogin(ctx, name, "token-of-"+name+"-0123"); err != nil {
			t.Fatal(err)
		}
	}
	oldCredential(t, s, "old", "token-of-old-0123")
	for range cap(s.tokenHashers) { // every place taken
		s.tokenHashers <- struct{}{}
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, _, err := s.BotLogin(short, "old", "token-of-old-0123")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrHashBusy) {
		t.Errorf("login against a v1 credential with every hasher busy: %v, want ErrHashBusy and the context's deadline", err)
	}
	for _, name := range []string{"known", "newcomer"} {
		short, cancel := context.WithTimeout(ctx, time.Second)
		_, _, err := s.BotLogin(short, name, "token-of-"+name+"-0123")
		cancel()
		if err != nil {
			t.Errorf("login of %s with every hasher busy: %v, want in", name, err)
		}
	}
	// A login that waits gets in once a place is free.
	done := make(chan error, 1)
	go func() {
		_, _, err := s.BotLogin(ctx, "old", "token-of-old-0123")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a v1 credential checked with every place taken: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	for range cap(s.tokenHashers) {
		<-s.tokenHashers
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestTokenCredentials: a bot's credential is written as v2, and a login
// against it with a lookup writes nothing; a v1 one
// (an older release's store) still logs its bot in, by name and token
// and then by the token alone, and is rewritten as v2 by that login; a
// wrong token is refused against either; a credential of no known
// format refuses every token with an error.
func TestTokenCredentials(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "k.db"))
	ctx := context.Background()
	const tok = "a-token-of-thirty-two-characters"
	if _, created, err := s.BotLogin(ctx, "anna", tok); err != nil || !created {
		t.Fatalf("first login: created %v, %v", created, err)
	}
	if h := credential(t, s, "anna"); len(h) != tokenV2Len || h[0] != tokenV2 {
		t.Fatalf("new credential of %d bytes (%x), want v2", len(h), h)
	}
	v2 := credential(t, s, "anna")
	// A login with nothing to record (a v2 credential, a lookup) writes
	// nothing.
	before := s.committed.Load()
	if _, _, err := s.BotLogin(ctx, "anna", tok); err != nil {
		t.Fatal(err)
	}
	if n := s.committed.Load() - before; n != 0 {
		t.Errorf("a login with nothing to record wrote %d times", n)
	}
	for _, format := range []string{"v2", "v1"} {
		if format == "v1" {
			oldCredential(t, s, "anna", tok)
			// As a store before auth:token's lookup: the login adds it.
			if _, err := s.wdb.Exec(`UPDATE bots SET lookup=NULL WHERE name='anna'`); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := s.BotLogin(ctx, "anna", tok+"x"); !errors.Is(err, ErrBadToken) {
			t.Errorf("%s: a wrong token: %v, want ErrBadToken", format, err)
		}
		if _, _, err := s.BotLogin(ctx, "ANNA", tok); err != nil {
			t.Errorf("%s: the right token: %v", format, err)
		}
		if name, err := s.BotByToken(ctx, tok); err != nil || name != "anna" {
			t.Errorf("%s: the token alone: %q, %v", format, name, err)
		}
	}
	if h := credential(t, s, "anna"); len(h) != tokenV2Len || h[0] != tokenV2 || string(h) == string(v2) {
		t.Errorf("v1 credential after a login: %d bytes (%x), want a new v2", len(h), h)
	}
	if _, err := s.wdb.Exec(`UPDATE bots SET hash=x'0102' WHERE name='anna'`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.BotLogin(ctx, "anna", tok); err == nil || errors.Is(err, ErrBadToken) {
		t.Errorf("a credential of no known format: %v, want an error of its own", err)
	}
}

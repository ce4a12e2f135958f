package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestAccountValidation(t *testing.T) {
	for _, tc := range []struct {
		name, password string
		ok             bool
	}{
		{"alice", "correct horse", true},
		{"Al", "12345678", true},
		{"a", "12345678", false},      // too short a name
		{"-alice", "12345678", false}, // starts with a dash
		{"ali ce", "12345678", false}, // a space
		{"alice", "short", false},     // too short a password
		{"alice", string([]byte{0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8}), false}, // not UTF-8
		{"this-name-is-much-too-long-to-be-a-name", "12345678", false},
	} {
		err := ValidUserName(tc.name)
		if err == nil {
			err = ValidPassword(tc.password)
		}
		if (err == nil) != tc.ok {
			t.Errorf("%q / %q: %v, want ok=%v", tc.name, tc.password, err, tc.ok)
		}
	}
}

func TestAccounts(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateUser(ctx, "alice", "correct horse"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateUser(ctx, "ALICE", "another one"); !errors.Is(err, ErrNameTaken) {
		t.Fatalf("a name taken in another case: %v", err)
	}
	if name, err := s.CheckPassword(ctx, "Alice", "correct horse"); err != nil || name != "alice" {
		t.Fatalf("sign in: %q, %v", name, err)
	}
	for _, bad := range [][2]string{{"alice", "wrong horse"}, {"nobody", "correct horse"}} {
		if _, err := s.CheckPassword(ctx, bad[0], bad[1]); !errors.Is(err, ErrBadPassword) {
			t.Errorf("%v: %v", bad, err)
		}
	}
	// Sessions: live, then signed out; an expired one is refused.
	tok, err := s.NewSession(ctx, "alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := s.SessionUser(ctx, tok); err != nil || u != "alice" {
		t.Fatalf("session: %q, %v", u, err)
	}
	if err := s.EndSession(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SessionUser(ctx, tok); !errors.Is(err, ErrNoSession) {
		t.Fatalf("after sign-out: %v", err)
	}
	old, _ := s.NewSession(ctx, "alice", -time.Second)
	if _, err := s.SessionUser(ctx, old); !errors.Is(err, ErrNoSession) {
		t.Fatalf("an expired session: %v", err)
	}
	// A bot owned by alice: its token, shown once, logs it in everywhere.
	token, err := s.CreateBot(ctx, "alice", "alicebot")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBot(ctx, "alice", "alice"); !errors.Is(err, ErrNameTaken) {
		t.Fatalf("a bot named as a person: %v", err)
	}
	if created, err := s.Authenticate(ctx, "alicebot", token); err != nil || created {
		t.Fatalf("line protocol login: %v %v", created, err)
	}
	if name, err := s.BotByToken(ctx, token); err != nil || name != "alicebot" {
		t.Fatalf("KGP auth:token: %q %v", name, err)
	}
	if name, err := s.BearerBot(ctx, "Bearer "+token); err != nil || name != "alicebot" {
		t.Fatalf("HTTP bearer: %q %v", name, err)
	}
	if bots, err := s.BotsOf(ctx, "alice"); err != nil || len(bots) != 1 || bots[0] != "alicebot" {
		t.Fatalf("alice's bots: %v %v", bots, err)
	}
	// The password is not stored.
	var hash []byte
	s.db.QueryRow(`SELECT hash FROM users WHERE name='alice'`).Scan(&hash)
	if len(hash) != argonKey || string(hash) == "correct horse" {
		t.Fatalf("stored hash %x", hash)
	}
}

// TestBotOwnerIsForgottenWithTheOwner: BotOwner's answers are kept
// (owners.go), in any case of the name, but never past a write that
// deletes the bot: a bot of a deleted account, registered again by its
// first login, answers for itself.
func TestBotOwnerIsForgottenWithTheOwner(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateUser(ctx, "alice", "correct horse"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBot(ctx, "alice", "AliceBot"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"AliceBot", "alicebot", "ALICEBOT"} {
		if owner, err := s.BotOwner(ctx, name); err != nil || owner != "alice" {
			t.Fatalf("owner of %s: %q, %v; want alice", name, owner, err)
		}
	}
	if _, err := s.DeleteUser(ctx, "alice", "correct horse"); err != nil {
		t.Fatal(err)
	}
	if owner, err := s.BotOwner(ctx, "alicebot"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("owner of a deleted bot: %q, %v; want ErrNotFound", owner, err)
	}
	if _, _, err := s.BotLogin(ctx, "AliceBot", "a-new-token-0123456789"); err != nil {
		t.Fatal(err)
	}
	if owner, err := s.BotOwner(ctx, "AliceBot"); err != nil || owner != "" {
		t.Fatalf("owner of a bot that registered itself: %q, %v; want none", owner, err)
	}
}

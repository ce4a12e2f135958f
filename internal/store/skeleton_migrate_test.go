package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"kalah/internal/identity"
)

// TestNameEndsFolded: a name with punctuation at an end is too like the
// name without it (alice. beside the person alice was a bot of its own),
// whichever comes first.
func TestNameEndsFolded(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateUser(ctx, "alice", "correct horse"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice.", "alice_", "Alice-", "a1ice.."} {
		if _, _, err := s.BotLogin(ctx, name, "token-0123456789"); !errors.Is(err, ErrNameTaken) || !strings.Contains(err.Error(), "too like alice") {
			t.Errorf("bot %s beside the person alice: %v", name, err)
		}
	}
	if _, _, err := s.BotLogin(ctx, "bob.", "token-0123456789"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateUser(ctx, "bob", "correct horse"); !errors.Is(err, ErrNameTaken) || !strings.Contains(err.Error(), "too like bob.") {
		t.Errorf("the person bob beside the bot bob.: %v", err)
	}
	if err := s.CreateUser(ctx, "al.ice", "correct horse"); err != nil {
		t.Errorf("al.ice (a dot inside reads as a dash, not as nothing): %v", err)
	}
}

// TestMigrateSkeletons: a database of schema 7 whose names table holds
// skeletons with their ends' punctuation opens; every name is still
// found, a name alone moves to its new skeleton (so a look-alike is
// refused), and one already too like another (both registered before)
// is kept and found under its old one.
func TestMigrateSkeletons(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "k.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateUser(ctx, "erin", "correct horse"); err != nil {
		t.Fatal(err)
	}
	// As release 7 stored them: "erin." beside erin, "frank_" alone.
	if err := s.Write(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			`INSERT INTO names(skeleton, kind, name) VALUES('erln-', 'bot', 'erin.')`,
			`INSERT INTO names(skeleton, kind, name) VALUES('frank-', 'bot', 'frank_')`,
			`PRAGMA user_version=7`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, want := range map[string]identity.ID{
		"erin":   identity.Of(identity.Person, "erin"),
		"ERIN.":  identity.Of(identity.Bot, "erin."),
		"frank_": identity.Of(identity.Bot, "frank_"),
	} {
		if got, err := s.Identity(ctx, name); err != nil || got != want {
			t.Errorf("Identity(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := s.Identity(ctx, "frank"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Identity(frank): %v", err)
	}
	for _, name := range []string{"frank", "frank.", "erin_"} {
		if _, _, err := s.BotLogin(ctx, name, "token-0123456789"); !errors.Is(err, ErrNameTaken) {
			t.Errorf("bot %s after the migration: %v", name, err)
		}
	}
}

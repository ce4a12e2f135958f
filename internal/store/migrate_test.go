package store

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFixture copies a file of testdata into a temporary directory, so the
// migration never touches the fixture itself.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	return copyFixtureFrom(t, "release-3ea50f4", name)
}

// copyFixtureFrom copies testdata/release/name into a temporary directory.
func copyFixtureFrom(t *testing.T, release, name string) string {
	t.Helper()
	src, err := os.Open(filepath.Join("testdata", release, name))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), name)
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMigrateRelease3ea50f4 opens a database made by the release before
// versioned schemas: it is migrated on open, its game and bots are kept,
// the bots' name-and-token logins still work, and after one such login the
// token alone (KGP's auth:token) finds the bot.
func TestMigrateRelease3ea50f4(t *testing.T) {
	ctx := context.Background()
	path := copyFixture(t, "kalah.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("user_version %d (%v), want %d", v, err, schemaVersion)
	}
	games, err := s.Games(ctx, Filter{})
	if err != nil || len(games) != 1 {
		t.Fatalf("games %v, %v", games, err)
	}
	g, err := s.Game(ctx, games[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != Finished || len(g.Record.Moves) == 0 || g.Seats[0].Name != "bob" && g.Seats[0].Name != "alice" {
		t.Fatalf("the old game: %+v", g)
	}
	if _, err := Replay(g.Record); err != nil {
		t.Fatalf("the old game does not replay: %v", err)
	}
	if _, err := s.Authenticate(ctx, "alice", "wrong"); !errors.Is(err, ErrBadToken) {
		t.Fatalf("a wrong token for alice: %v", err)
	}
	if _, err := s.BotByToken(ctx, "alice-token-1"); !errors.Is(err, ErrNoBot) {
		t.Fatalf("before alice logs in, her token alone: %v", err)
	}
	created, err := s.Authenticate(ctx, "alice", "alice-token-1")
	if err != nil || created {
		t.Fatalf("alice's old login: created %v, %v", created, err)
	}
	if name, err := s.BotByToken(ctx, "alice-token-1"); err != nil || name != "alice" {
		t.Fatalf("after her login, alice's token finds %q, %v", name, err)
	}
	// Opened again, it is not migrated twice.
	s.Close()
	s2, err := Open(path)
	if err != nil {
		t.Fatalf("reopening the migrated database: %v", err)
	}
	s2.Close()
}

// TestRefuseNewerSchema: a database from a newer release is refused with
// the reason, not misread.
func TestRefuseNewerSchema(t *testing.T) {
	path := copyFixture(t, "kalah.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.wdb.Exec(`PRAGMA user_version=99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(path); err == nil {
		t.Fatal("a database of schema 99 opened")
	}
}

// readToken returns the owned bot's token a fixture's README gives.
func readToken(t *testing.T, release string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", release, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "(token ")
	tok, _, ok2 := strings.Cut(after, ")")
	if !ok || !ok2 {
		t.Fatal("no token in the fixture's README")
	}
	return tok
}

// TestMigrateTournamentTables: migration 4 gives package tournament its
// tables in a database that had none (the release at 3ea50f4), renames
// those of a tournament file of that release, and adopts
// those tournament.OpenDataDir made itself in the release at 8b7ed32
// (schema 3), keeping their rows.
func TestMigrateTournamentTables(t *testing.T) {
	count := func(s *Store, table string) int {
		t.Helper()
		var n int
		if err := s.db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		return n
	}
	for _, tc := range []struct {
		fixture           string
		results, tourneys int
		games             int
	}{
		{"release-3ea50f4/kalah.db", 0, 0, 1},
		// A tournament file of that release: its tables are renamed
		// before the server's games and moves are made beside them.
		{"release-3ea50f4/tournaments.db", 2, 1, 0},
		{"release-8b7ed32/kalah.db", 3, 2, 1},
		{"release-8b7ed32/tournament-only.db", 4, 1, 0},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			dir, name := filepath.Split(tc.fixture)
			path := copyFixtureFrom(t, filepath.Clean(dir), name)
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var v int
			if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
				t.Fatalf("user_version %d (%v), want %d", v, err, schemaVersion)
			}
			if n := count(s, "tournament_results"); n != tc.results {
				t.Errorf("%d results, want %d", n, tc.results)
			}
			if n := count(s, "tournaments"); n != tc.tourneys {
				t.Errorf("%d tournaments, want %d", n, tc.tourneys)
			}
			if n := count(s, "tournament_imports"); n != 0 {
				t.Errorf("%d imports", n)
			}
			if n := count(s, "games"); n != tc.games {
				t.Errorf("%d server games, want %d", n, tc.games)
			}
		})
	}
}

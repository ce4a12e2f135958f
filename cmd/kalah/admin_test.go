package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server"
)

// TestAdminPairs: kalah admin pairs lists, with the admin token, the pair
// whose rated series one side won every game of, and refuses without it.
func TestAdminPairs(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "kalah.db"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: st, AdminToken: "admin-secret"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		st.Close()
	})
	ctx := context.Background()
	ids := [2]identity.ID{identity.Of(identity.Person, "ann"), identity.Of(identity.Person, "bob")}
	for _, id := range ids {
		if err := st.CreateUser(ctx, id.Name, "a long password"); err != nil {
			t.Fatal(err)
		}
	}
	// Five rated games ann won; one bob won against carl.
	for i := range 6 {
		pair := ids
		if i == 5 {
			pair = [2]identity.ID{ids[1], identity.Of(identity.Person, "carl")}
		}
		id, err := st.CreateGame(ctx, store.NewGame{Rules: kalah.Standard(), Tags: map[string]string{"Rated": "yes"},
			Seats: [2]store.Seat{{Name: pair[0].Name, Kind: "human", ID: pair[0]}, {Name: pair[1].Name, Kind: "human", ID: pair[1]}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.FinishGame(ctx, id, kalah.Record{Result: kalah.SouthWins, Termination: kalah.Resign}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.RateGame(ctx, id, "kalah/blitz", pair, 1); err != nil {
			t.Fatal(err)
		}
	}
	admin := func(args ...string) (int, string, string) {
		var out, errs bytes.Buffer
		code := run(ctx, append([]string{"admin", "pairs", "--server", hs.URL}, args...), strings.NewReader(""), &out, &errs)
		return code, out.String(), errs.String()
	}
	code, out, errs := admin("--server-token", "admin-secret", "--games", "5")
	if code != 0 || !strings.Contains(out, "user:ann") || !strings.Contains(out, "user:bob") || !strings.Contains(out, "5-0=0") || strings.Contains(out, "carl") {
		t.Errorf("kalah admin pairs: %d\n%s%s", code, out, errs)
	}
	if code, out, _ := admin("--server-token", "admin-secret"); code != 0 || !strings.HasPrefix(out, "no pair played 6 or more") {
		t.Errorf("six games or more: %d %q", code, out)
	}
	t.Setenv("KALAH_ADMIN_TOKEN", "")
	t.Setenv("KALAH_DATA", t.TempDir())
	if code, _, errs := admin("--server-token", "a guess"); code != 1 || !strings.Contains(errs, "401") || !strings.Contains(errs, "admin token") {
		t.Errorf("a wrong token: %d %q", code, errs)
	}
}

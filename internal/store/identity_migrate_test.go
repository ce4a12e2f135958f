package store

import (
	"context"
	"errors"
	"testing"

	"kalah/internal/identity"
)

// TestMigrateRelease8b7ed32 opens a copy of a database of the release
// before identities (testdata/release-8b7ed32/README.md says what is in
// it): every seat gets its identity, the squatters lose the names they
// took, the pages' "You" and "Guest" give way to account names, and the
// ratings follow identities.
func TestMigrateRelease8b7ed32(t *testing.T) {
	ctx := context.Background()
	path := copyFixtureFrom(t, "release-8b7ed32", "identities.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	user := func(n string) identity.ID { return identity.Of(identity.Person, n) }
	bot := func(n string) identity.ID { return identity.Of(identity.Bot, n) }
	prog := func(n string) identity.ID { return identity.Of(identity.Program, n) }
	// Who each seat is, and the reason in words.
	for _, tc := range []struct {
		id     int64
		names  [2]string
		ids    [2]identity.ID
		reason string
	}{
		{1, [2]string{"alice", "expert"}, [2]identity.ID{user("alice"), prog("expert")}, "alice resigned"},
		{2, [2]string{"alice", "bob"}, [2]identity.ID{user("alice"), user("bob")}, "bob resigned"},
		{3, [2]string{"carol", "BOBBOT-2"}, [2]identity.ID{bot("carol"), bot("BOBBOT-2")}, "BOBBOT-2 resigned"},
		{4, [2]string{"Anonymous", "greedy"}, [2]identity.ID{{}, prog("greedy")}, ""},
		{5, [2]string{"bobbot", "Zed"}, [2]identity.ID{bot("bobbot"), bot("Zed")}, ""},
		{6, [2]string{"kgp-Agent", "carol"}, [2]identity.ID{{}, bot("carol")}, "kgp-Agent resigned"},
		{7, [2]string{"Anonymous", ""}, [2]identity.ID{}, ""},
	} {
		g, err := s.Game(ctx, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if g.Seats[i].Name != tc.names[i] || g.Seats[i].ID != tc.ids[i] {
				t.Errorf("game %d seat %d: %q %v, want %q %v", tc.id, i, g.Seats[i].Name, g.Seats[i].ID, tc.names[i], tc.ids[i])
			}
		}
		if why := g.Record.Tags["Reason"]; why != tc.reason {
			t.Errorf("game %d reason %q, want %q", tc.id, why, tc.reason)
		}
		if _, err := Replay(g.Record); err != nil {
			t.Errorf("game %d does not replay: %v", tc.id, err)
		}
	}
	// The lists find a player's games by identity.
	for who, want := range map[identity.ID]int{user("ALICE"): 2, user("bob"): 1, bot("carol"): 2, bot("bobbot"): 1, bot("BOBBOT-2"): 1, bot("zed-2"): 0, bot("zed"): 1} {
		games, err := s.Games(ctx, Filter{Player: who})
		if err != nil || len(games) != want {
			t.Errorf("games of %v: %d (%v), want %d", who, len(games), err, want)
		}
	}
	// The squatters lost the names they took; the owners keep theirs.
	logins := []struct {
		name, token, as string
		err             error
	}{
		{"bobbot", readToken(t, "release-8b7ed32"), "bobbot", nil},
		{"BOBBOT", "squat-2", "", ErrBadToken},   // bobbot's name now: the squatter's token is wrong for it
		{"BOBBOT-2", "squat-2", "BOBBOT-2", nil}, // its new name
		{"ALICE", "squat-1", "", ErrBadToken},    // its new name is ALICE-2; ALICE is alice's
		{"ALICE-2", "squat-1", "ALICE-2", nil},
		{"zed", "zed-2", "", ErrBadToken},
		{"zed-2", "zed-2", "zed-2", nil},
		{"Zed", "zed-1", "Zed", nil},
		{"carol", "carol-token", "carol", nil},
	}
	for _, l := range logins {
		as, created, err := s.BotLogin(ctx, l.name, l.token)
		if l.err != nil && !errors.Is(err, l.err) && !errors.Is(err, ErrNameTaken) || l.err == nil && (err != nil || as != l.as || created) {
			t.Errorf("login %s %s: %q created %v, %v; want %q, %v", l.name, l.token, as, created, err, l.as, l.err)
		}
	}
	if _, err := s.CheckPassword(ctx, "alice", "alice-password"); err != nil {
		t.Errorf("alice's password: %v", err)
	}
	// Ratings by identity: bob's and the squatter's are their own rows.
	for who, want := range map[identity.ID]int{user("alice"): 1662, user("bob"): 1338, bot("carol"): 1662, bot("BOBBOT-2"): 1338, bot("bobbot"): 0} {
		rs, err := s.PlayerRatings(ctx, who)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if len(rs) == 1 {
			got = int(rs[0].Rating.Rating + 0.5)
			if !rs[0].ID.Is(who) {
				t.Errorf("%v's rating carries %v", who, rs[0].ID)
			}
		}
		if got != want || len(rs) > 1 {
			t.Errorf("%v's ratings %+v, want %d", who, rs, want)
		}
		if h, err := s.RatingHistory(ctx, who); err != nil || (want != 0) != (len(h) == 1) {
			t.Errorf("%v's history %+v, %v", who, h, err)
		}
	}
	if ch, err := s.GameRatings(ctx, 3); err != nil || len(ch) != 2 {
		t.Errorf("game 3's rating changes %+v, %v", ch, err)
	}
	// The one name space now holds: no new name a reader could take for
	// a taken one.
	for _, name := range []string{"Alice", "a1ice", "B0BB0T", "ZED", "caro1"} {
		if _, err := s.CreateBot(ctx, "bob", name); !errors.Is(err, ErrNameTaken) {
			t.Errorf("a new bot %q: %v, want ErrNameTaken", name, err)
		}
		if err := s.CreateUser(ctx, name, "password-x"); !errors.Is(err, ErrNameTaken) {
			t.Errorf("a new account %q: %v, want ErrNameTaken", name, err)
		}
	}
	if who, err := s.Identity(ctx, "BOBBOT-2"); err != nil || who != bot("BOBBOT-2") {
		t.Errorf("Identity(BOBBOT-2) = %v, %v", who, err)
	}
	if who, err := s.Identity(ctx, "ALICE"); err != nil || who != user("alice") {
		t.Errorf("Identity(ALICE) = %v, %v", who, err)
	}
	if _, err := s.Identity(ctx, "a1ice"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Identity(a1ice): %v, want ErrNotFound (only alice herself, in any case)", err)
	}
}

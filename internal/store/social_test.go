package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"kalah/internal/identity"
)

// TestChatKeptAndBounded: a game's chat lines come back in order, room by
// room, with who said them; a room holds at most its bound; lines outlive
// the store being closed and opened again (a finished game keeps its chat).
func TestChatKeptAndBounded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kalah.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := identity.Of(identity.Person, "Alice"), identity.Of(identity.Guest, "guest-0123456789abcdef")
	for i, c := range []ChatLine{
		{Game: 7, Room: "players", By: alice, Name: "Alice", Text: "good luck"},
		{Game: 7, Room: "spectators", By: bob, Name: "guest-0123456789abcdef", Text: "go alice"},
		{Game: 7, Room: "players", By: alice, Name: "Alice", Text: "well played"},
		{Game: 8, Room: "players", By: alice, Name: "Alice", Text: "another game"},
	} {
		got, err := s.AddChat(ctx, c, 2)
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if got.ID == 0 || got.At.IsZero() {
			t.Fatalf("line %d: %+v", i, got)
		}
	}
	if _, err := s.AddChat(ctx, ChatLine{Game: 7, Room: "players", By: alice, Name: "Alice", Text: "a third"}, 2); !errors.Is(err, ErrFull) {
		t.Fatalf("a third line in a room of two: %v", err)
	}
	s.Close()
	if s, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	players, err := s.Chat(ctx, 7, "players")
	if err != nil || len(players) != 2 || players[0].Text != "good luck" || players[1].Text != "well played" || !players[0].By.Is(alice) {
		t.Fatalf("players' room %+v, %v", players, err)
	}
	both, err := s.Chat(ctx, 7, "players", "spectators")
	if err != nil || len(both) != 3 || both[1].Room != "spectators" || both[1].By != bob || both[1].Name != "guest-0123456789abcdef" {
		t.Fatalf("both rooms %+v, %v", both, err)
	}
	if none, err := s.Chat(ctx, 9, "players"); err != nil || len(none) != 0 {
		t.Fatalf("a game without chat: %+v, %v", none, err)
	}
}

// TestFollows: an account follows players once each, up to a bound, lists
// them by name, and unfollows them.
func TestFollows(t *testing.T) {
	ctx := context.Background()
	s, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ann := identity.Of(identity.Person, "ann")
	bob, zed, deep := identity.Of(identity.Person, "Bob"), identity.Of(identity.Person, "zed"), identity.Of(identity.Bot, "deep")
	for _, who := range []identity.ID{zed, bob, bob, identity.Of(identity.Person, "BOB")} {
		if err := s.Follow(ctx, ann, who, 2); err != nil {
			t.Fatalf("follow %v: %v", who, err)
		}
	}
	if err := s.Follow(ctx, ann, deep, 2); !errors.Is(err, ErrFull) {
		t.Fatalf("a third: %v", err)
	}
	got, err := s.Following(ctx, ann)
	if err != nil || len(got) != 2 || got[0] != bob || got[1] != zed {
		t.Fatalf("following %v, %v", got, err)
	}
	if n, err := s.Followers(ctx, bob); err != nil || n != 1 {
		t.Fatalf("bob's followers %d, %v", n, err)
	}
	if err := s.Unfollow(ctx, ann, identity.Of(identity.Person, "bob")); err != nil {
		t.Fatal(err)
	}
	if err := s.Follow(ctx, ann, deep, 2); err != nil {
		t.Fatalf("after an unfollow: %v", err)
	}
	if got, _ := s.Following(ctx, ann); len(got) != 2 || got[0] != deep {
		t.Fatalf("following %v", got)
	}
}

// TestPoolsAndGamesRatings: the ladders with their players, the busiest
// first, and each game's rating changes.
func TestPoolsAndGamesRatings(t *testing.T) {
	ctx := context.Background()
	s, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, b, c := identity.Of(identity.Person, "a"), identity.Of(identity.Person, "b"), identity.Of(identity.Bot, "c")
	if _, err := s.RateGame(ctx, 1, "kalah/blitz", [2]identity.ID{a, b}, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RateGame(ctx, 2, "kalah/bullet", [2]identity.ID{a, c}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RateGame(ctx, 3, "kalah/blitz", [2]identity.ID{c, b}, 0.5); err != nil {
		t.Fatal(err)
	}
	pools, err := s.Pools(ctx, 110)
	if err != nil || len(pools) != 2 || pools[0] != (Pool{Pool: "kalah/blitz", Players: 3}) || pools[1] != (Pool{Pool: "kalah/bullet", Players: 2}) {
		t.Fatalf("pools %+v, %v", pools, err)
	}
	rs, err := s.GamesRatings(ctx, []int64{1, 2, 4})
	if err != nil || len(rs) != 2 || len(rs[1]) != 2 || len(rs[2]) != 2 || rs[4] != nil {
		t.Fatalf("ratings of games %+v, %v", rs, err)
	}
	for _, ch := range rs[1] {
		if ch.ID.Is(a) && ch.After.Rating <= ch.Before || ch.ID.Is(b) && ch.After.Rating >= ch.Before {
			t.Errorf("game 1: %+v", ch)
		}
	}
}

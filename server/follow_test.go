package server

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/referee"
)

// TestFollow: a person follows players by name (not themselves, not a
// name nobody has, not as a guest); the live games of those followed are
// theirs to see; a profile says how many follow and whether the reader
// does; unfollowing ends it.
func TestFollow(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ann, bob, guest := newWebClient(t, ts), newWebClient(t, ts), newWebClient(t, ts)
	ann.signUp("ann")
	bob.signUp("Bob")
	for path, code := range map[string]int{"/api/players/nobody/follow": 404, "/api/players/ann/follow": 400} {
		if got := ann.do("POST", path, "{}", nil); got != code {
			t.Errorf("%s: %d, want %d", path, got, code)
		}
	}
	if got := guest.do("POST", "/api/players/bob/follow", "{}", nil); got != http.StatusUnauthorized {
		t.Errorf("a guest follows: %d", got)
	}
	if got := ann.do("POST", "/api/players/BOB/follow", "{}", nil); got != 200 {
		t.Fatalf("ann follows bob: %d", got)
	}
	var f Following
	ann.do("GET", "/api/account/following", "", &f)
	if len(f.Players) != 1 || f.Players[0].String() != "user:Bob" || len(f.Games) != 0 {
		t.Fatalf("ann follows %+v", f)
	}
	var st Started
	if code := bob.do("POST", "/api/games", `{"south":"human","north":"random"}`, &st); code != 201 {
		t.Fatalf("bob's game: %d", code)
	}
	guest.do("POST", "/api/games", `{"south":"human","north":"random"}`, nil) // someone else's
	ann.do("GET", "/api/account/following", "", &f)
	if len(f.Games) != 1 || f.Games[0].ID != st.ID {
		t.Fatalf("the games of those ann follows: %+v", f.Games)
	}
	var p Profile
	ann.do("GET", "/api/players/bob", "", &p)
	if p.Followers != 1 || !p.Following {
		t.Errorf("bob's profile to ann: %d followers, following %v", p.Followers, p.Following)
	}
	guest.do("GET", "/api/players/bob", "", &p)
	if p.Followers != 1 || p.Following {
		t.Errorf("bob's profile to a guest: %d followers, following %v", p.Followers, p.Following)
	}
	if got := ann.do("POST", "/api/players/bob/unfollow", "{}", nil); got != 200 {
		t.Fatalf("unfollow: %d", got)
	}
	ann.do("GET", "/api/account/following", "", &f)
	if len(f.Players) != 0 || len(f.Games) != 0 {
		t.Fatalf("after unfollowing: %+v", f)
	}
}

// TestProfileArchive: a player's archive says of each game, from their
// side, whom they played at what rating, the clock, rated or casual, and
// won or lost; the ladders are listed one by one; an unknown player is
// 404.
func TestProfileArchive(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ann, bob, id := pairedGame(t, ts, "ann", "bob", true)
	var b Board
	bob.do("GET", fmt.Sprintf("/api/games/%d/board", id), "", &b)
	// Both make the moves a rated game needs, then the one to move second
	// resigns.
	first, second := ann, bob
	if b.Seats[0].Name == "bob" {
		first, second = bob, ann
	}
	playEach(t, id, [2]*webClient{first, second}, minMovesRated)
	second.do("POST", fmt.Sprintf("/api/games/%d/resign", id), "{}", nil)
	loser := map[*webClient]string{ann: "ann", bob: "bob"}[second]
	winner := map[*webClient]string{ann: "bob", bob: "ann"}[second]
	// Casual, against the computer, no clock.
	var casual Started
	ann.do("POST", "/api/games", `{"south":"human","north":"random","casual":true}`, &casual)
	ann.do("POST", fmt.Sprintf("/api/games/%d/abort", casual.ID), "{}", nil)

	var p Profile
	deadline := time.Now().Add(5 * time.Second)
	for {
		if code := ann.do("GET", "/api/players/"+loser, "", &p); code != 200 {
			t.Fatalf("profile: %d", code)
		}
		if rowOf(p, id).Rating != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	g := rowOf(p, id)
	if g.Opponent != winner || g.OpponentID.Name != winner || g.Outcome != "lost" || g.TimeControl != "10+0" || !g.Rated || g.Casual ||
		g.Rating == nil || g.Change == nil || *g.Change >= 0 || g.OpponentRating == nil || *g.OpponentRating <= 1500 || g.Created.IsZero() {
		t.Fatalf("the loser's archive row: %+v", g)
	}
	ann.do("GET", "/api/players/"+winner, "", &p)
	// Each row says the side its player played, for the score from it.
	if w := rowOf(p, id); w.Outcome != "won" || w.Opponent != loser || *w.Change <= 0 || w.Side == g.Side || w.Side != kalah.South && w.Side != kalah.North {
		t.Fatalf("the winner's archive row: %+v (the loser's side %v)", w, g.Side)
	}
	ann.do("GET", "/api/players/ann", "", &p)
	if row := rowOf(p, casual.ID); row.Outcome != "aborted" || !row.Casual || row.Rated || row.TimeControl != "no clock" || row.Opponent != "random" || row.Side != kalah.South {
		t.Fatalf("ann's casual game: %+v", row)
	}
	var pools []store.Pool
	ann.do("GET", "/api/ratings/pools", "", &pools)
	if len(pools) != 1 || pools[0].Players != 2 || pools[0].Pool != poolOf(kalah.Standard(), referee.Referee{Budget: 10 * time.Minute}) {
		t.Fatalf("pools %+v", pools)
	}
	if code := ann.do("GET", "/api/players/nosuchperson", "", nil); code != 404 {
		t.Fatalf("an unknown player: %d", code)
	}
}

// rowOf returns game id's row of a profile's archive.
func rowOf(p Profile, id int64) ArchiveGame {
	for _, g := range p.Games {
		if g.ID == id {
			return g
		}
	}
	return ArchiveGame{}
}

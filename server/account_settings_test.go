package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"kalah/internal/identity"
	"kalah/internal/store"
)

// whoIs is the name the server says c is signed in as, "" for nobody.
func whoIs(c *webClient) string {
	var v struct{ Name string }
	c.do("GET", "/api/account", "", &v)
	return v.Name
}

// signInAs signs c in as name with password.
func signInAs(t *testing.T, c *webClient, name, password string) {
	t.Helper()
	if code := c.do("POST", "/api/account/login", fmt.Sprintf(`{"name":%q,"password":%q}`, name, password), nil); code != 200 {
		t.Fatalf("sign-in of %s: %d", name, code)
	}
}

// TestSignOutOneDeviceOrEverywhere: signing out on one device ends that
// session only, the person's other devices stay signed in; signing out
// everywhere ends every one of them.
func TestSignOutOneDeviceOrEverywhere(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	phone, laptop, tablet := newWebClient(t, ts), newWebClient(t, ts), newWebClient(t, ts)
	phone.signUp("ann")
	signInAs(t, laptop, "ann", "a long password")
	signInAs(t, tablet, "ann", "a long password")
	if code := laptop.do("POST", "/api/account/logout", `{}`, nil); code != 200 {
		t.Fatalf("sign-out: %d", code)
	}
	if got := [3]string{whoIs(phone), whoIs(laptop), whoIs(tablet)}; got != [3]string{"ann", "", "ann"} {
		t.Fatalf("after the laptop signed out: phone, laptop, tablet are %q", got)
	}
	signInAs(t, laptop, "ann", "a long password")
	var v struct{ Sessions int }
	if code := tablet.do("POST", "/api/account/logout/everywhere", `{}`, &v); code != 200 || v.Sessions != 3 {
		t.Fatalf("sign-out everywhere: %d, %d sessions", code, v.Sessions)
	}
	if got := [3]string{whoIs(phone), whoIs(laptop), whoIs(tablet)}; got != [3]string{} {
		t.Fatalf("after signing out everywhere: phone, laptop, tablet are %q", got)
	}
	if code := tablet.do("POST", "/api/account/logout/everywhere", `{}`, nil); code != http.StatusUnauthorized {
		t.Fatalf("sign-out everywhere signed out: %d", code)
	}
}

// TestPasswordChange: a new password needs the current one (a wrong one is
// refused, and so is a new one too short, or a request from no one); after
// it the old password no longer signs in and the new one does, the
// session that changed it stays and the others end.
func TestPasswordChange(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ann, other, stranger := newWebClient(t, ts), newWebClient(t, ts), newWebClient(t, ts)
	ann.signUp("ann")
	signInAs(t, other, "ann", "a long password")
	for _, tc := range []struct {
		c    *webClient
		body string
		code int
	}{
		{stranger, `{"current":"a long password","new":"a newer password"}`, http.StatusUnauthorized},
		{ann, `{"current":"not the password","new":"a newer password"}`, http.StatusUnauthorized},
		{ann, `{"current":"a long password","new":"short"}`, http.StatusBadRequest},
		{ann, `{"current":"a long password","new":"a newer password"}`, http.StatusOK},
	} {
		var v struct{ Error string }
		if code := tc.c.do("POST", "/api/account/password", tc.body, &v); code != tc.code {
			t.Fatalf("%s: %d %q, want %d", tc.body, code, v.Error, tc.code)
		}
		if strings.Contains(tc.body, "not the password") && v.Error != "that is not the account's password" {
			t.Errorf("a wrong current password answered %q", v.Error)
		}
	}
	if got := [2]string{whoIs(ann), whoIs(other)}; got != [2]string{"ann", ""} {
		t.Fatalf("after the change: this session, the other are %q", got)
	}
	if code := stranger.do("POST", "/api/account/login", `{"name":"ann","password":"a long password"}`, nil); code != http.StatusUnauthorized {
		t.Fatalf("the old password: %d", code)
	}
	signInAs(t, stranger, "ann", "a newer password")
}

// TestDeleteAccount: deleting an account needs its password and no game
// of its own (or its bots') in play; it removes its sessions, follows both
// ways, ratings, bots and their tokens, and frees its name, and keeps its
// finished games for the others with its seat shown as "[deleted]" (its
// chat lines too); someone who takes the name afterwards gets none of it.
func TestDeleteAccount(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	ann, bob := newWebClient(t, ts), newWebClient(t, ts)
	ann.signUp("ann")
	bob.signUp("bob")
	var bot struct{ Token string }
	if code := ann.do("POST", "/api/account/bots", `{"name":"annbot"}`, &bot); code != http.StatusCreated {
		t.Fatalf("ann's bot: %d", code)
	}
	for _, f := range []struct {
		c    *webClient
		whom string
	}{{ann, "bob"}, {bob, "ann"}, {bob, "annbot"}} {
		if code := f.c.do("POST", "/api/players/"+f.whom+"/follow", `{}`, nil); code != 200 {
			t.Fatalf("follow %s: %d", f.whom, code)
		}
	}
	// A rated game between ann and bob, a line of chat, bob resigns.
	a, b := identity.Of(identity.Person, "ann"), identity.Of(identity.Person, "bob")
	g, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", ClockMS: 60_000, Rated: true, Seated: [2]identity.ID{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	playTokens(t, ts.srv, g.ID, g.Tokens, minMovesRated) // a game short of them is not rated
	if code := ann.do("POST", fmt.Sprintf("/api/games/%d/chat", g.ID), `{"text":"good game"}`, nil); code != http.StatusCreated {
		t.Fatalf("ann's chat: %d", code)
	}
	if code := bob.do("POST", fmt.Sprintf("/api/games/%d/resign", g.ID), `{}`, nil); code != 200 {
		t.Fatalf("bob resigns: %d", code)
	}
	waitStored(t, ts.st, g.ID)
	waitRated(t, ts, a, 1)

	// Refused: a game in play, the wrong password, no one signed in.
	var live Started
	if code := ann.do("POST", "/api/games", `{"south":"human","north":"random"}`, &live); code != http.StatusCreated {
		t.Fatalf("a game against the computer: %d", code)
	}
	var why struct{ Error string }
	if code := ann.do("DELETE", "/api/account", `{"password":"a long password"}`, &why); code != http.StatusConflict || !strings.Contains(why.Error, fmt.Sprint(live.ID)) {
		t.Fatalf("deleted with game %d in play: %d %q", live.ID, code, why.Error)
	}
	if code := ann.do("POST", fmt.Sprintf("/api/games/%d/resign", live.ID), `{}`, nil); code != 200 {
		t.Fatalf("ann resigns: %d", code)
	}
	waitStored(t, ts.st, live.ID)
	if code := ann.do("DELETE", "/api/account", `{"password":"not the password"}`, nil); code != http.StatusUnauthorized {
		t.Fatalf("deleted with a wrong password: %d", code)
	}
	if code := newWebClient(t, ts).do("DELETE", "/api/account", `{"password":"a long password"}`, nil); code != http.StatusUnauthorized {
		t.Fatalf("deleted by no one: %d", code)
	}
	var done struct {
		Deleted string
		Bots    []string
	}
	if code := ann.do("DELETE", "/api/account", `{"password":"a long password"}`, &done); code != 200 || done.Deleted != "ann" || len(done.Bots) != 1 {
		t.Fatalf("delete: %d %+v", code, done)
	}

	// Gone: the session, the sign-in, the profile, the bot and its token,
	// the follows, the ratings.
	if whoIs(ann) != "" {
		t.Errorf("still signed in")
	}
	if code := bob.do("POST", "/api/account/login", `{"name":"ann","password":"a long password"}`, nil); code != http.StatusUnauthorized {
		t.Errorf("signs in after deletion: %d", code)
	}
	for _, name := range []string{"ann", "annbot"} {
		if code := bob.do("GET", "/api/players/"+name, "", nil); code != http.StatusNotFound {
			t.Errorf("the profile of %s: %d", name, code)
		}
	}
	req, _ := http.NewRequest("GET", ts.http.URL+"/api/account", nil)
	req.Header.Set("Authorization", "Bearer "+bot.Token)
	hc := &http.Client{Transport: &http.Transport{}}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	hc.CloseIdleConnections()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the bot's token after deletion: %s", resp.Status)
	}
	var following struct {
		Players []identity.ID `json:"players"`
	}
	bob.do("GET", "/api/account/following", "", &following)
	if len(following.Players) != 0 {
		t.Errorf("bob still follows %v", following.Players)
	}
	if n, _ := ts.st.Followers(ctx, b); n != 0 {
		t.Errorf("bob still has %d followers", n)
	}
	if r := ratingsOf(t, ts, a); len(r) != 0 {
		t.Errorf("ann's ratings: %v", r)
	}
	if r := ratingsOf(t, ts, b); len(r) != 1 {
		t.Errorf("bob's ratings: %v", r)
	}

	// Kept: the game, ann's seat shown as deleted; the chat line.
	var gv GameView
	if code := bob.do("GET", fmt.Sprintf("/api/games/%d", g.ID), "", &gv); code != 200 {
		t.Fatalf("the game: %d", code)
	}
	if gv.South != store.DeletedName || !gv.SouthID.IsZero() || gv.North != "bob" || gv.Plies < 2*minMovesRated {
		t.Errorf("the game after deletion: %q (%v) against %q, %d plies", gv.South, gv.SouthID, gv.North, gv.Plies)
	}
	if _, lines := chatLines(t, bob, g.ID); strings.Join(lines, "|") != "players: [deleted]: good game" {
		t.Errorf("the chat after deletion: %q", lines)
	}

	// The name is free again, and the newcomer inherits nothing.
	newcomer := newWebClient(t, ts)
	newcomer.signUp("ann")
	var prof Profile
	if code := newcomer.do("GET", "/api/players/ann", "", &prof); code != 200 {
		t.Fatalf("the new ann's profile: %d", code)
	}
	if len(prof.Games) != 0 || len(prof.Ratings) != 0 || prof.Followers != 0 {
		t.Errorf("the new ann inherits %d games, ratings %v, %d followers", len(prof.Games), prof.Ratings, prof.Followers)
	}
}

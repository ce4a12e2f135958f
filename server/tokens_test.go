package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/protocol/kgp"
	"kalah/protocol/line"
)

// TestBotTokenRotation: the owner gives a bot a new token. A connection of
// the bot playing a game with the old token finishes it and is then
// closed; one waiting for a game (KGP) is closed at once. From then on the
// old token is refused over the line protocol (TCP and WebSocket), KGP
// and HTTP, by name or alone, and registers no bot either; the new one
// logs the bot in everywhere. Nobody but the owner may do it.
func TestBotTokenRotation(t *testing.T) {
	r, _ := kalah.PresetRules("kgp")
	r.Houses, r.Seeds = 4, 3
	e := newKGPEnvFor(t, newTestServer(t, "", Config{Rules: r, PerMove: 20 * time.Second}), &kgp.Server{})
	ts := e.ts
	bob, alice := newWebClient(t, ts), newWebClient(t, ts)
	bob.signUp("bob")
	alice.signUp("alice")
	var made struct{ Token string }
	if code := bob.do("POST", "/api/account/bots", `{"name":"bobbot"}`, &made); code != http.StatusCreated {
		t.Fatalf("bob's bot: %d", code)
	}
	first := made.Token
	ws := "ws" + strings.TrimPrefix(ts.http.URL, "http") + "/ws/bot"

	// First, bobbot waits for a game over KGP with its first token and is
	// logged in, idle, over the line protocol: both close at the renewal.
	k := e.dial("tcp")
	k.lenient = true
	k.hello(`1 set auth:token "` + first + `"`)
	e.waitQueue(1)
	idle := dial(t, ts.addr)
	idle.login("bobbot", first)
	// Only the owner, signed in, gives it a new token.
	if code := alice.do("POST", "/api/account/bots/bobbot/token", `{}`, nil); code != http.StatusNotFound {
		t.Errorf("alice renews bob's bot's token: %d, want 404", code)
	}
	if code := newWebClient(t, ts).do("POST", "/api/account/bots/bobbot/token", `{}`, nil); code != http.StatusUnauthorized {
		t.Errorf("a stranger renews bob's bot's token: %d, want 401", code)
	}
	var second struct{ Name, Token string }
	if code := bob.do("POST", "/api/account/bots/BobBot/token", `{}`, &second); code != http.StatusOK || second.Token == "" || second.Token == first || second.Name != "bobbot" {
		t.Fatalf("bob renews the token: %d %+v", code, second)
	}
	if er := k.expect("error"); !strings.Contains(er.Args[0].Text, "replaced") {
		t.Errorf("the waiting KGP client is told %v", er)
	}
	k.closed("goodbye")
	if m := idle.expect("error"); m.Arg(0) != line.CodeAuth || !strings.Contains(m.String(), "replaced") {
		t.Errorf("the idle connection is told %s", m)
	}
	if m, err := idle.next(); err == nil {
		t.Errorf("the idle connection stays open: %s", m)
	}
	e.waitQueue(0)

	// Then bobbot plays a game over the WebSocket with its second token
	// when that is replaced: the game goes on to its end, and then the
	// connection closes.
	a, other := dial(t, ws), dial(t, ts.addr)
	a.login("bobbot", second.Token)
	other.login("other", "other-token")
	a.send("queue")
	a.expect("ok")
	other.send("queue")
	a.expect("start")
	other.expect("start")
	var renewed struct{ Name, Token string }
	if code := bob.do("POST", "/api/account/bots/bobbot/token", `{}`, &renewed); code != http.StatusOK || renewed.Token == "" {
		t.Fatalf("bob renews the token again: %d %+v", code, renewed)
	}
	done := make(chan line.End, 1)
	go func() { _, end := other.playGame(); done <- end }()
	_, end := a.playGame()
	if end.Termination != kalah.Normal || (<-done) != end {
		t.Errorf("the game played across the renewal ended %+v", end)
	}
	if m := a.expect("error"); m.Arg(0) != line.CodeAuth || !strings.Contains(m.String(), "replaced") {
		t.Errorf("after its game the old token's connection is told %s", m)
	}
	if m, err := a.next(); err == nil {
		t.Errorf("the old token's connection stays open: %s", m)
	}

	// The old token is refused everywhere, the new one accepted.
	for _, addr := range []string{ts.addr, ws} {
		c := dial(t, addr)
		c.send("login bobbot " + first)
		if m := c.expect("error"); m.Arg(0) != line.CodeAuth {
			t.Errorf("%s: the first token: %s", addr, m)
		}
		old := second.Token
		c = dial(t, addr)
		c.send("login bobbot " + old)
		if m := c.expect("error"); m.Arg(0) != line.CodeAuth {
			t.Errorf("%s: the old token: %s", addr, m)
		}
		// Nor does it register a bot of another name.
		c = dial(t, addr)
		c.send("login thief " + old)
		if m := c.expect("error"); m.Arg(0) != line.CodeAuth || !strings.Contains(m.String(), "replaced") {
			t.Errorf("%s: the old token under a new name: %s", addr, m)
		}
		c = dial(t, addr)
		c.send("login bobbot " + renewed.Token)
		if m := c.expect("ok"); m.Arg(1) != "bobbot" {
			t.Errorf("%s: the new token logs in as %s", addr, m)
		}
		c.send("quit")
	}
	old := second.Token
	for _, how := range []string{"tcp", "ws"} {
		for _, sets := range [][]string{
			{`1 set auth:token "` + first + `"`},
			{`1 set auth:token "` + old + `"`},
			{`1 set info:name bobbot`, `3 set auth:token "` + old + `"`},
			{`1 set info:name thief`, `3 set auth:token "` + old + `"`},
		} {
			c := e.dial(how)
			c.lenient = true
			c.next()
			c.send(append(sets, "25 mode freeplay")...)
			if er := c.expect("error"); er.Ref != 25 {
				t.Errorf("KGP %s %v: the old token: %v", how, sets, er)
			}
			c.closed("goodbye")
		}
		c := e.dial(how)
		c.hello(`1 set auth:token "` + renewed.Token + `"`)
		e.waitQueue(1)
		c.close()
		e.waitQueue(0)
	}
	if id, err := ts.st.Identity(t.Context(), "thief"); err == nil {
		t.Errorf("the old token registered %v", id)
	}
	for _, tok := range []string{first, old} {
		if _, err := ts.st.BotByToken(t.Context(), tok); err == nil {
			t.Error("an old token still finds a bot")
		}
	}
	for tok, want := range map[string]int{old: http.StatusUnauthorized, renewed.Token: http.StatusOK} {
		req, _ := http.NewRequest("GET", ts.http.URL+"/api/account", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET /api/account with the %s token: %d, want %d", map[bool]string{true: "old", false: "new"}[tok == old], resp.StatusCode, want)
		}
	}
}

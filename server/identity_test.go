package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/protocol/kgp"
	"kalah/protocol/line"
)

// webClient is a browser's session with the test server: its cookies
// (a session, a guest's secret) kept between requests.
type webClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newWebClient(t *testing.T, ts *testServer) *webClient {
	jar, _ := cookiejar.New(nil)
	return &webClient{t: t, base: ts.http.URL, c: &http.Client{Jar: jar}}
}

// do sends a request with a JSON body (none if body is "") and decodes
// the answer into out, if not nil; it returns the status.
func (w *webClient) do(method, path, body string, out any) int {
	w.t.Helper()
	req, _ := http.NewRequest(method, w.base+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := w.c.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		json.Unmarshal(b, out)
	}
	return resp.StatusCode
}

// signUp makes an account and signs the client in.
func (w *webClient) signUp(name string) {
	w.t.Helper()
	if code := w.do("POST", "/api/account/signup", fmt.Sprintf(`{"name":%q,"password":"a long password"}`, name), nil); code != http.StatusCreated {
		w.t.Fatalf("sign-up of %s: %d", name, code)
	}
}

// TestOneNameSpace: people and bots share one name space, whatever the
// protocol: no bot takes a person's or another bot's name, in any case or
// by confusable characters, over our line protocol or KGP, and no account
// takes a bot's; the rightful owner still logs in, under any case.
func TestOneNameSpace(t *testing.T) {
	e := newKGPEnv(t, time.Second, &kgp.Server{})
	ts := e.ts
	alice, bob := newWebClient(t, ts), newWebClient(t, ts)
	alice.signUp("alice")
	bob.signUp("bob")
	var made struct{ Token string }
	if code := bob.do("POST", "/api/account/bots", `{"name":"bobbot"}`, &made); code != http.StatusCreated || made.Token == "" {
		t.Fatalf("bob's bot: %d", code)
	}
	// Our line protocol: each refusal is an error line, then the end.
	for _, name := range []string{"alice", "ALICE", "A1ice", "aIice", "bob", "BOBBOT", "B0BB0T", "bobb0t", "guest-4f2a", "kgp-alice"} {
		c := dial(t, ts.addr)
		c.send("login " + name + " some-token-of-mine")
		m := c.expect("error")
		if m.Arg(0) != line.CodeAuth && m.Arg(0) != line.CodeSyntax {
			t.Errorf("login %s: %s", name, m)
		}
		if _, err := c.next(); err == nil {
			t.Errorf("login %s: the connection stays open", name)
		}
	}
	// The owner's bot logs in under its name in any case, as itself.
	c := dial(t, ts.addr)
	c.send("login BobBot " + made.Token)
	if m := c.expect("ok"); m.Arg(1) != "bobbot" {
		t.Errorf("bobbot in other case logs in as %s", m)
	}
	// A new bot registers by its first login; the name is then its own.
	first := dial(t, ts.addr)
	first.send("login deep-kalah first-token")
	first.expect("ok")
	for _, name := range []string{"Deep-Kalah", "deep_kalah", "DEEP.KALAH"} {
		c := dial(t, ts.addr)
		c.send("login " + name + " another-token")
		c.expect("error")
	}
	// Accounts cannot take a bot's name either.
	for _, name := range []string{"BobBot", "deep.kalah", "Alice"} {
		w := newWebClient(t, ts)
		if code := w.do("POST", "/api/account/signup", fmt.Sprintf(`{"name":%q,"password":"a long password"}`, name), nil); code != http.StatusConflict {
			t.Errorf("an account named %s: %d, want 409", name, code)
		}
	}
	// KGP: a name by token is the same name space; the refusal is an
	// error, then goodbye.
	for _, name := range []string{"Alice", "BOBBOT", "a1ice"} {
		k := e.dial("tcp")
		k.lenient = true
		k.next()
		k.send(`1 set info:name "`+name+`"`, `3 set auth:token "a-token-of-`+strings.ToLower(name)+`-123"`, "5 mode freeplay")
		er := k.expect("error")
		if !strings.Contains(er.Args[0].Text, "name") {
			t.Errorf("KGP %s: %v", name, er)
		}
		if bye := k.next(); bye.Name != "goodbye" {
			t.Errorf("KGP %s: after the refusal %v", name, bye)
		}
	}
	// No other bot came to be.
	for _, name := range []string{"ALICE", "B0BB0T", "a1ice"} {
		if who, err := ts.st.Identity(context.Background(), name); err == nil && !who.Is(identity.Of(identity.Person, "alice")) && !who.Is(identity.Of(identity.Bot, "bobbot")) {
			t.Errorf("%s found %v", name, who)
		}
	}
}

// TestGuestsAreGuests: a guest plays under a name the server gives
// (guest-...), never one it chooses, and cannot wear an account's; the
// page's words ("You", "Guest") are never stored; the lists name the
// seats' identities.
func TestGuestsAreGuests(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	alice := newWebClient(t, ts)
	alice.signUp("alice")
	guest := newWebClient(t, ts)
	if code := guest.do("POST", "/api/games", `{"south":"human","north":"greedy","names":["alice",""]}`, nil); code != http.StatusBadRequest {
		t.Fatalf("a guest naming its seat alice: %d", code)
	}
	var g Started
	if code := guest.do("POST", "/api/games", `{"south":"human","north":"greedy"}`, &g); code != http.StatusCreated {
		t.Fatalf("a guest's game: %d", code)
	}
	var a Started
	if code := alice.do("POST", "/api/games", `{"south":"human","north":"greedy"}`, &a); code != http.StatusCreated {
		t.Fatalf("alice's game: %d", code)
	}
	var live []GameInfo
	guest.do("GET", "/api/games?status=live", "", &live)
	names := map[int64][2]string{}
	for _, gi := range live {
		names[gi.ID] = [2]string{gi.South, gi.SouthID.String()}
	}
	if n := names[g.ID]; !strings.HasPrefix(n[0], "guest-") || !strings.HasPrefix(n[1], "guest:guest-") || strings.EqualFold(n[0], "alice") {
		t.Errorf("the guest's seat: %v", n)
	}
	if n := names[a.ID]; n != [2]string{"alice", "user:alice"} {
		t.Errorf("alice's seat: %v", n)
	}
	// The guest's own account view says who it is; a stranger is nobody.
	var me map[string]string
	guest.do("GET", "/api/account", "", &me)
	if me["id"] != names[g.ID][1] {
		t.Errorf("the guest is %v, its seat %v", me, names[g.ID])
	}
	stranger := newWebClient(t, ts)
	var nobody map[string]string
	if code := stranger.do("GET", "/api/account", "", &nobody); code != http.StatusOK || len(nobody) != 0 {
		t.Errorf("a stranger's account view: %d %v", code, nobody)
	}
	// The stranger cannot move the guest's seat; the guest can, with its
	// cookie only.
	if code := stranger.do("POST", fmt.Sprintf("/api/games/%d/move", g.ID), `{"move":"1"}`, nil); code != http.StatusForbidden {
		t.Errorf("a stranger's move: %d", code)
	}
	if code := guest.do("POST", fmt.Sprintf("/api/games/%d/move", g.ID), `{"move":"1"}`, nil); code != http.StatusOK {
		t.Errorf("the guest's move by its cookie: %d", code)
	}
	sg, _ := ts.st.Game(context.Background(), g.ID)
	for _, s := range sg.Seats {
		if s.Name == "You" || s.Name == "Guest" || s.Name == "human" {
			t.Errorf("stored seat %+v", s)
		}
	}
}

// TestNoControlCharacters: text a client sends that others receive (a KGP
// client's name, here with a line break that would forge an "end" line)
// reaches no other client with a control character in it.
func TestNoControlCharacters(t *testing.T) {
	e := newKGPEnv(t, time.Second, &kgp.Server{})
	watcher := dial(t, e.ts.addr)
	a, b := e.dial("tcp"), e.dial("tcp")
	forged := `set info:name "a\nend 1-0 normal 48-0\r\u0085x"`
	done := make(chan struct{})
	var seen []string
	go func() {
		defer close(done)
		// Watch the game as soon as it is listed.
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if live := e.ts.srv.LiveGames(); len(live) > 0 {
				watcher.send(fmt.Sprintf("watch %d", live[0].ID))
				for {
					s, err := watcher.tr.ReadLine(10 * time.Second)
					if err != nil {
						return
					}
					seen = append(seen, s)
					if strings.HasPrefix(s, "end ") {
						return
					}
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	e.game("tcp", a, b, firstMove, firstMove, []string{forged}, []string{forged})
	<-done
	ends := 0
	for _, s := range seen {
		if _, err := line.Parse(s); err != nil {
			t.Errorf("a line the watcher cannot read: %q", s)
		}
		if strings.HasPrefix(s, "end ") {
			ends++
		}
		if strings.ContainsAny(s, "\r\n\u0085") {
			t.Errorf("a control character reached the watcher: %q", s)
		}
	}
	if ends > 1 {
		t.Errorf("%d end lines (one forged): %q", ends, seen)
	}
	// The line protocol itself writes one line whatever a message holds.
	if s := (line.Msg{Cmd: "watching", Args: []string{"1", "a\nend 1-0 normal 48-0"}}).String(); strings.ContainsAny(s, "\n\r") {
		t.Errorf("a message with a line break: %q", s)
	}
}

// TestCommandsInOrder: a takeback, a resignation and a move sent at once
// on one game, 200 times: each run ends in one consistent state, stored
// as it is shown, and no request is refused for being concurrent (each
// is applied in turn; a request is only refused for what the game is by
// then, such as over).
func TestCommandsInOrder(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	outcomes := map[string]int{}
	for run := range 200 {
		st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "first", Casual: true, By: ann})
		if err != nil {
			t.Fatal(err)
		}
		me := Actor{Token: st.Tokens[0]}
		// Both sides move first, so the person has a move to take back.
		moveWhenAsked(t, ts.srv, st.ID, st.Tokens[0], 2)
		waitTurn(t, ts.srv, st.ID, 0)
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for i, do := range []func() error{
			func() error { return ts.srv.TakeBack(ctx, st.ID, me) },
			func() error { return ts.srv.Resign(ctx, st.ID, me) },
			func() error { return ts.srv.Move(ctx, st.ID, me, 3) },
		} {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = do() }()
		}
		wg.Wait()
		for i, err := range errs {
			switch {
			case err == nil:
			case errorsIsAny(err, kalah.ErrGameOver, ErrNotYourTurn, kalah.ErrNoUndo, kalah.ErrIllegalMove):
				// refused for what the game had become
			default:
				t.Fatalf("run %d: request %d refused: %v", run, i, err)
			}
		}
		// The resignation is always applied: the game ends resigned (or,
		// taken back to before both moved, aborted).
		rec := waitStored(t, ts.st, st.ID)
		v, err := ts.srv.Game(ctx, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case rec.Termination == kalah.Resign && rec.Result == kalah.NorthWins:
		case rec.Termination == kalah.Aborted:
		default:
			t.Fatalf("run %d: ended %s %s", run, rec.Result, rec.Termination)
		}
		if len(rec.Moves) != v.Plies || v.Termination != rec.Termination {
			t.Fatalf("run %d: stored %d moves (%s), shown %d (%s)", run, len(rec.Moves), rec.Termination, v.Plies, v.Termination)
		}
		g, err := rec.Game()
		if err != nil {
			t.Fatalf("run %d: the stored game does not replay: %v", run, err)
		}
		outcomes[fmt.Sprintf("%s after %d moves", g.Termination(), g.Len())]++
	}
	t.Logf("outcomes: %v", outcomes)
}

func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// waitStored waits until game id is stored finished and returns its
// record.
func waitStored(t *testing.T, st *store.Store, id int64) kalah.Record {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g, err := st.Game(context.Background(), id)
		if err == nil && g.Status == store.Finished {
			return g.Record
		}
		if time.Now().After(deadline) {
			t.Fatalf("game %d is not stored finished: %v", id, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestEventsAfterTheView: a subscriber that looks at the game on hearing
// of a change sees it (a takeback asked, a move).
func TestEventsAfterTheView(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	for range 50 {
		st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", Casual: true, Seated: annBob})
		if err != nil {
			t.Fatal(err)
		}
		events, stop, err := ts.srv.Subscribe(st.ID, Actor{})
		if err != nil {
			t.Fatal(err)
		}
		go ts.srv.Move(ctx, st.ID, Actor{Token: st.Tokens[0]}, 1)
		for e := range events {
			if e.Kind == "move" {
				if v, _ := ts.srv.Game(ctx, st.ID); v.Plies != 1 {
					t.Fatalf("told of the move, the game shows %d moves", v.Plies)
				}
				break
			}
		}
		go ts.srv.TakeBack(ctx, st.ID, Actor{Token: st.Tokens[0]})
		for e := range events {
			if e.Kind == "takeback-ask" {
				if b, _ := ts.srv.BoardOf(ctx, st.ID); b.TakebackAsk != 0 {
					t.Fatalf("told of the ask, the board shows %d", b.TakebackAsk)
				}
				break
			}
		}
		stop()
		ts.srv.Abandon(ctx, st.ID, "done")
	}
}

package server

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/protocol/line"
)

// ratingsOf returns who's ratings, by ladder.
func ratingsOf(t *testing.T, ts *testServer, who identity.ID) map[string]int {
	t.Helper()
	rs, err := ts.st.PlayerRatings(context.Background(), who)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range rs {
		out[r.Pool] = r.Games
	}
	return out
}

// TestAbortIsNotRated: a rated game between two accounts ends with no
// result and no rating when it is aborted, or resigned, before both
// sides have moved; once both have, a resignation is rated.
func TestAbortIsNotRated(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	a, b := identity.Of(identity.Person, "ann"), identity.Of(identity.Person, "bob")
	for _, name := range []string{"ann", "bob"} {
		if err := ts.st.CreateUser(ctx, name, "a long password"); err != nil {
			t.Fatal(err)
		}
	}
	start := func() Started {
		st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", ClockMS: 60_000, Rated: true, Seated: [2]identity.ID{a, b}})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// Aborted by either before anyone moved.
	g1 := start()
	if err := ts.srv.Abort(ctx, g1.ID, Actor{ID: b}); err != nil {
		t.Fatal(err)
	}
	// Resigned after Ann's first move, before Bob's: aborted too.
	g2 := start()
	moveWhenAsked(t, ts.srv, g2.ID, g2.Tokens[0], 1)
	if err := ts.srv.Abort(ctx, g2.ID, Actor{ID: a}); err != nil {
		// either may abort while one side has not moved
		t.Fatal(err)
	}
	g3 := start()
	moveWhenAsked(t, ts.srv, g3.ID, g3.Tokens[0], 1)
	if err := ts.srv.Resign(ctx, g3.ID, Actor{ID: b}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{g1.ID, g2.ID, g3.ID} {
		rec := waitStored(t, ts.st, id)
		if rec.Termination != kalah.Aborted || rec.Result != kalah.NoResult {
			t.Errorf("game %d: %s %s, want aborted", id, rec.Result, rec.Termination)
		}
	}
	if r := ratingsOf(t, ts, a); len(r) != 0 {
		t.Fatalf("aborted games rated: %v", r)
	}
	// Once both have moved, abort is too late; once both have made the
	// moves a rated game needs, a resignation counts.
	g4 := start()
	moveWhenAsked(t, ts.srv, g4.ID, g4.Tokens[0], 1)
	moveWhenAsked(t, ts.srv, g4.ID, g4.Tokens[1], 1)
	if err := ts.srv.Abort(ctx, g4.ID, Actor{ID: a}); !errorsIsAny(err, ErrTooLate) {
		t.Fatalf("an abort after both moved: %v", err)
	}
	playTokens(t, ts.srv, g4.ID, g4.Tokens, minMovesRated-1)
	if err := ts.srv.Resign(ctx, g4.ID, Actor{ID: b}); err != nil {
		t.Fatal(err)
	}
	if rec := waitStored(t, ts.st, g4.ID); rec.Termination != kalah.Resign {
		t.Fatalf("game 4: %s", rec.Termination)
	}
	waitRated(t, ts, a, 1)
	waitRated(t, ts, b, 1)
}

// waitRated waits until who has played n rated games in all.
func waitRated(t *testing.T, ts *testServer, who identity.ID, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := 0
		for _, g := range ratingsOf(t, ts, who) {
			got += g
		}
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v has %d rated games, want %d", who, got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoRatingFromOnesOwnBots: a person's rated challenge to their own
// bot, and a queue game between two bots of one owner, count on no ladder
// (no one feeds their own rating); a stranger's bot is rated against.
func TestNoRatingFromOnesOwnBots(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ann := newWebClient(t, ts)
	ann.signUp("ann")
	bob := newWebClient(t, ts)
	bob.signUp("bob")
	token := func(w *webClient, name string) string {
		var made struct{ Token string }
		if code := w.do("POST", "/api/account/bots", fmt.Sprintf(`{"name":%q}`, name), &made); code != http.StatusCreated {
			t.Fatalf("bot %s: %d", name, code)
		}
		return made.Token
	}
	annbot, annbot2, bobbot := token(ann, "annbot"), token(ann, "annbot2"), token(bob, "bobbot")
	// A bot that accepts every challenge and resigns as soon as it may
	// (after the moves a rated game needs).
	accepter := func(name, tok string) *client {
		c := dial(t, ts.addr)
		c.login(name, tok)
		go func() {
			moved := 0
			for {
				m, err := c.next()
				if err != nil {
					return
				}
				switch m.Cmd {
				case "challenged":
					c.tr.WriteLine("accept "+m.Arg(0), time.Second)
				case "go":
					tn, _ := line.ParseTurn(m)
					if moved < minMovesRated {
						c.tr.WriteLine(line.MoveMsg(tn.Position.Moves()[0]).String(), time.Second)
						moved++
					} else {
						c.tr.WriteLine("resign", time.Second)
					}
				case "end":
					moved = 0
				}
			}
		}()
		return c
	}
	accepter("annbot", annbot)
	accepter("bobbot", bobbot)
	challenge := func(w *webClient, bot string) int64 {
		var st Started
		if code := w.do("POST", "/api/bots/"+bot+"/challenge", `{"rated":true,"clock_ms":60000}`, &st); code != http.StatusCreated {
			t.Fatalf("challenge %s: %d", bot, code)
		}
		// Each makes the moves a rated game needs; the bot then resigns
		// at its next turn.
		playTokens(t, ts.srv, st.ID, [2]string{st.Tokens[0]}, 0)
		waitStored(t, ts.st, st.ID)
		return st.ID
	}
	own := challenge(ann, "annbot")
	if b, _ := ts.srv.BoardOf(context.Background(), own); b.Rated {
		t.Errorf("ann's game against her own bot is rated")
	}
	stranger := challenge(ann, "bobbot")
	if b, _ := ts.srv.BoardOf(context.Background(), stranger); !b.Rated {
		t.Errorf("ann's game against bob's bot is not rated")
	}
	waitRated(t, ts, identity.Of(identity.Person, "ann"), 1)
	if r := ratingsOf(t, ts, identity.Of(identity.Bot, "annbot")); len(r) != 0 {
		t.Errorf("annbot rated: %v", r)
	}
	// Two bots of one owner in the queue: their game counts for neither.
	x, y := dial(t, ts.addr), dial(t, ts.addr)
	x.login("annbot2", annbot2)
	z := dial(t, ts.addr)
	z.send("login annbot " + annbot) // replaces the accepter's session
	z.expect("ok")
	x.send("queue")
	z.send("queue")
	_ = y
	done := make(chan line.End, 2)
	go func() { _, e := x.playGame(); done <- e }()
	go func() { _, e := z.playGame(); done <- e }()
	<-done
	<-done
	if r := ratingsOf(t, ts, identity.Of(identity.Bot, "annbot2")); len(r) != 0 {
		t.Errorf("a game between two of ann's bots rated: %v", r)
	}
}

// TestInviteGamesAreRated: a rated game by invitation between two
// accounts is rated once the second takes the seat; taken by a guest, it
// is not.
func TestInviteGamesAreRated(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ann, bob, guest := newWebClient(t, ts), newWebClient(t, ts), newWebClient(t, ts)
	ann.signUp("ann")
	bob.signUp("bob")
	invite := func() Started {
		var st Started
		if code := ann.do("POST", "/api/games", `{"south":"human","north":"human","invite":true,"rated":true,"clock_ms":60000}`, &st); code != http.StatusCreated {
			t.Fatalf("an invitation: %d", code)
		}
		return st
	}
	play := func(st Started, other *webClient) Board {
		var b Board
		if code := other.do("POST", fmt.Sprintf("/api/games/%d/join", st.ID), fmt.Sprintf(`{"invite":%q}`, st.Invite), nil); code != http.StatusOK {
			t.Fatalf("join: %d", code)
		}
		playEach(t, st.ID, [2]*webClient{ann, other}, minMovesRated)
		if code := other.do("POST", fmt.Sprintf("/api/games/%d/resign", st.ID), "{}", &b); code != http.StatusOK {
			t.Fatalf("resign: %d", code)
		}
		waitStored(t, ts.st, st.ID)
		other.do("GET", fmt.Sprintf("/api/games/%d/board", st.ID), "", &b)
		return b
	}
	st := invite()
	var before Board
	ann.do("GET", fmt.Sprintf("/api/games/%d/board", st.ID), "", &before)
	if before.Rated || !before.RatedAsked {
		t.Fatalf("before the seat is taken: rated %v, asked %v", before.Rated, before.RatedAsked)
	}
	if b := play(st, bob); !b.Rated || b.Seats[1].ID != identity.Of(identity.Person, "bob") {
		t.Fatalf("ann and bob's game: rated %v, seats %+v", b.Rated, b.Seats)
	}
	waitRated(t, ts, identity.Of(identity.Person, "bob"), 1)
	if b := play(invite(), guest); b.Rated {
		t.Errorf("a game with a guest is rated")
	}
	waitRated(t, ts, identity.Of(identity.Person, "ann"), 1)
}

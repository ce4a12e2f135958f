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
	"testing"

	"kalah"
	"kalah/internal/identity"
	"kalah/protocol/line"
)

// TestSeekAccept: Ann seeks a rated game with a clock and takebacks
// refused; a guest cannot accept it, nor Ann herself; Bob does; the game
// is between their accounts, each with the token of their own seat, rated,
// and refuses takebacks.
func TestSeekAccept(t *testing.T) {
	ts := newTestServer(t, "", Config{AdminToken: "admin"})
	person := func(name string) *http.Client {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		req, _ := http.NewRequest("POST", ts.http.URL+"/api/account/signup", strings.NewReader(`{"name":"`+name+`","password":"a long password"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("sign up %s: %v %v", name, resp.StatusCode, err)
		}
		resp.Body.Close()
		return c
	}
	call := func(c *http.Client, method, path, body string, out any) int {
		t.Helper()
		req, _ := http.NewRequest(method, ts.http.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if out != nil {
			json.Unmarshal(b, out)
		}
		return resp.StatusCode
	}
	ann, bob, guest := person("ann"), person("bob"), &http.Client{}
	if code := call(guest, "POST", "/api/seeks", `{"clock_ms":60000,"rated":true}`, nil); code != 401 {
		t.Fatalf("a guest's rated seek: %d", code)
	}
	var sk Seek
	if code := call(ann, "POST", "/api/seeks", `{"rules":{"houses":6,"seeds":4},"clock_ms":180000,"increment_ms":2000,"rated":true,"takebacks":false}`, &sk); code != 201 || sk.ID == 0 || !sk.NoTakebacks {
		t.Fatalf("ann's seek: %d %+v", code, sk)
	}
	var open []Seek
	call(guest, "GET", "/api/seeks", "", &open)
	if len(open) != 1 || open[0].By != "ann" || !open[0].NoTakebacks || open[0].Rating == nil || open[0].Rating.Rating != 1500 || !open[0].Rating.Provisional {
		t.Fatalf("open seeks %+v", open)
	}
	path := fmt.Sprintf("/api/seeks/%d/accept", sk.ID)
	if code := call(guest, "POST", path, "{}", nil); code != 401 {
		t.Fatalf("a guest accepts: %d", code)
	}
	if code := call(ann, "POST", path, "{}", nil); code != 403 {
		t.Fatalf("ann accepts her own: %d", code)
	}
	var bobs Started
	if code := call(bob, "POST", path, "{}", &bobs); code != 201 || bobs.ID == 0 {
		t.Fatalf("bob accepts: %d %+v", code, bobs)
	}
	if code := call(bob, "POST", path, "{}", nil); code != 409 {
		t.Fatalf("a second accept: %d", code)
	}
	var anns Seek
	call(ann, "GET", fmt.Sprintf("/api/seeks/%d", sk.ID), "", &anns)
	var peek Seek
	call(bob, "GET", fmt.Sprintf("/api/seeks/%d", sk.ID), "", &peek)
	if anns.Game != bobs.ID || anns.Token == "" || peek.Token != "" {
		t.Fatalf("ann's view %+v, bob's %+v", anns, peek)
	}
	var b Board
	call(guest, "GET", fmt.Sprintf("/api/games/%d/board", bobs.ID), "", &b)
	bobSeat := 0
	if bobs.Tokens[1] != "" {
		bobSeat = 1
	}
	if !b.Rated || b.Takebacks || b.ClockMS != 180000 || b.Seats[bobSeat].ID != identity.Of(identity.Person, "bob") || b.Seats[1-bobSeat].ID != identity.Of(identity.Person, "ann") || b.Seats[bobSeat].Name != "bob" {
		t.Fatalf("the game: rated %v clock %d seats %+v", b.Rated, b.ClockMS, b.Seats)
	}
	// Each moves their own seat, by the token they were given.
	if err := ts.srv.Move(context.Background(), bobs.ID, Actor{Token: bobs.Tokens[bobSeat]}, 1); bobSeat == 0 && err != nil {
		t.Fatalf("bob moves: %v", err)
	}
	if err := ts.srv.Move(context.Background(), bobs.ID, Actor{Token: anns.Token}, 1); bobSeat == 1 && err != nil {
		t.Fatalf("ann moves: %v", err)
	}
	open = nil
	call(guest, "GET", "/api/seeks", "", &open)
	if len(open) != 0 {
		t.Fatalf("the accepted seek is still open: %+v", open)
	}
}

// TestPersonChallengesBot: a bot online and free is listed; a signed-in
// person challenges it; the bot is asked as by a bot and plays only if it
// accepts; the person plays South with the token the answer gives; the
// two agree a draw over the API and the line protocol.
func TestPersonChallengesBot(t *testing.T) {
	ts := newTestServer(t, "", Config{AdminToken: "admin"})
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	ann := &http.Client{Jar: jar, Transport: tr}
	req, _ := http.NewRequest("POST", ts.http.URL+"/api/account/signup", strings.NewReader(`{"name":"ann","password":"a long password"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := ann.Do(req)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("sign up: %v", err)
	}
	resp.Body.Close()
	bot := dial(t, ts.addr)
	bot.login("robo", "robo-token")
	var online []string
	get(t, ts, "/api/bots/online", &online)
	if len(online) != 1 || online[0] != "robo" {
		t.Fatalf("online %v", online)
	}
	challenge := func(c *http.Client) (int, Started) {
		req, _ := http.NewRequest("POST", ts.http.URL+"/api/bots/robo/challenge", strings.NewReader(`{"rules":{"houses":4,"seeds":3}}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Error(err)
			return 0, Started{}
		}
		defer resp.Body.Close()
		var st Started
		json.NewDecoder(resp.Body).Decode(&st)
		return resp.StatusCode, st
	}
	if code, _ := challenge(&http.Client{Transport: tr}); code != 401 {
		t.Fatalf("a guest's challenge: %d", code)
	}
	// The bot declines the first, accepts the second.
	for i, answer := range []string{"decline", "accept"} {
		type result struct {
			code int
			st   Started
		}
		done := make(chan result, 1)
		go func() { code, st := challenge(ann); done <- result{code, st} }()
		m := bot.expect("challenged")
		if m.Arg(1) != "ann" {
			t.Fatalf("challenged by %s", m.Arg(1))
		}
		bot.send(answer + " " + m.Arg(0))
		r := <-done
		if i == 0 {
			if r.code != 409 {
				t.Fatalf("declined: %d", r.code)
			}
			continue
		}
		if r.code != 201 || r.st.Tokens[0] == "" {
			t.Fatalf("accepted: %d %+v", r.code, r.st)
		}
		bot.expect("start")
		moveWhenAsked(t, ts.srv, r.st.ID, r.st.Tokens[0], 1)
		goMsg := bot.expect("go")
		b, _ := ts.srv.BoardOf(context.Background(), r.st.ID)
		if b.Seats[0].Name != "ann" || b.Seats[1].Name != "robo" || b.Seats[0].ID != identity.Of(identity.Person, "ann") || b.Seats[1].ID != identity.Of(identity.Bot, "robo") {
			t.Fatalf("the game: %+v", b.Seats)
		}
		// Not rated is casual; but a bot is asked for no takeback, and
		// hints are against the computer only.
		if !b.Casual || b.Rated {
			t.Errorf("an unrated challenge: casual %v, rated %v", b.Casual, b.Rated)
		}
		ann := Actor{Token: r.st.Tokens[0]}
		if err := ts.srv.TakeBack(context.Background(), r.st.ID, ann); !errors.Is(err, ErrNotCasual) {
			t.Errorf("a takeback against a bot: %v", err)
		}
		if _, err := ts.srv.Hint(context.Background(), r.st.ID, ann); !errors.Is(err, ErrNotCasual) {
			t.Errorf("a hint against a bot: %v", err)
		}
		get(t, ts, "/api/bots/online", &online)
		if len(online) != 0 {
			t.Fatalf("a playing bot is listed as free: %v", online)
		}
		// A draw between a person and a bot of our protocol: the bot hears
		// the person's offer and declines it; then offers one, which the
		// person accepts.
		turn, err := line.ParseTurn(goMsg)
		if err != nil {
			t.Fatal(err)
		}
		bot.send(line.MoveMsg(turn.Position.Moves()[0]).String())
		waitPlies(t, ts.srv, r.st.ID, 2)
		if err := ts.srv.Draw(context.Background(), r.st.ID, ann, DrawOffer); err != nil {
			t.Fatalf("ann offers robo a draw: %v", err)
		}
		if m := bot.expect("draw"); m.String() != "draw offer S" {
			t.Fatalf("robo heard %q", m)
		}
		bot.send("draw decline")
		if m := bot.expect("draw"); m.String() != "draw decline N" {
			t.Fatalf("robo heard %q", m)
		}
		bot.send("draw offer")
		bot.expect("draw")
		if err := ts.srv.Draw(context.Background(), r.st.ID, ann, DrawAccept); err != nil {
			t.Fatalf("ann accepts: %v", err)
		}
		if e, err := line.ParseEnd(bot.expect("end")); err != nil || e.Result != kalah.Draw || e.Termination != kalah.Agreement {
			t.Fatalf("robo's end: %+v %v", e, err)
		}
	}
	waitFinished(t, ts.srv)
	get(t, ts, "/api/bots/online", &online)
	if len(online) != 1 {
		t.Fatalf("the bot is not free again after its game: %v", online)
	}
}

package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah/server/gate"
)

// waitAdmitted waits until the gate has admitted a game by path.
func waitAdmitted(t *testing.T, srv *Server, path gate.Path) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for srv.gate.Stats().Admitted[path] == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no game admitted by path %s: %+v", path, srv.gate.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// guestFrom is a fresh guest (a cookie jar of its own) whose connections
// come from loopback address ip.
func guestFrom(ip string) *http.Client {
	jar, _ := cookiejar.New(nil)
	return from(ip, jar)
}

// TestEveryGameStartPassesTheGate starts a game by each way there is and
// checks the gate counted it under that way, with the game's place given
// back at its end.
func TestEveryGameStartPassesTheGate(t *testing.T) {
	type starter func(t *testing.T, ts *testServer)
	computer := func(t *testing.T, ts *testServer) {
		if code, v := post(t, guestFrom("127.0.0.2"), ts.http.URL+"/api/games", `{"south":"human","north":"first"}`); code != http.StatusCreated {
			t.Fatalf("computer game: %d %v", code, v)
		}
	}
	for _, tc := range []struct {
		path  gate.Path
		cfg   Config
		start starter
	}{
		{gate.Computer, Config{}, computer},
		{gate.Invite, Config{}, func(t *testing.T, ts *testServer) {
			host := guestFrom("127.0.0.2")
			code, v := post(t, host, ts.http.URL+"/api/games", `{"south":"human","north":"human","invite":true}`)
			if code != http.StatusCreated {
				t.Fatalf("invitation: %d %v", code, v)
			}
			// The invitee is counted when they take the seat.
			id := int64(v["id"].(float64))
			if code, v := post(t, guestFrom("127.0.0.3"), fmt.Sprintf("%s/api/games/%d/join", ts.http.URL, id), fmt.Sprintf(`{"invite":%q}`, v["invite"])); code != http.StatusOK {
				t.Fatalf("join: %d %v", code, v)
			}
		}},
		{gate.Quick, Config{}, func(t *testing.T, ts *testServer) {
			for _, ip := range []string{"127.0.0.2", "127.0.0.3"} {
				if code, v := post(t, guestFrom(ip), ts.http.URL+"/api/seeks", `{"clock_ms":60000}`); code != http.StatusCreated {
					t.Fatalf("seek: %d %v", code, v)
				}
			}
		}},
		{gate.Seek, Config{}, func(t *testing.T, ts *testServer) {
			code, v := post(t, guestFrom("127.0.0.2"), ts.http.URL+"/api/seeks", `{"clock_ms":60000}`)
			if code != http.StatusCreated {
				t.Fatalf("seek: %d %v", code, v)
			}
			if code, v := post(t, guestFrom("127.0.0.3"), fmt.Sprintf("%s/api/seeks/%d/accept", ts.http.URL, int64(v["id"].(float64))), `{}`); code != http.StatusCreated {
				t.Fatalf("accept: %d %v", code, v)
			}
		}},
		{gate.Rematch, Config{}, func(t *testing.T, ts *testServer) {
			g := guestFrom("127.0.0.2")
			code, v := post(t, g, ts.http.URL+"/api/games", `{"south":"human","north":"first"}`)
			if code != http.StatusCreated {
				t.Fatalf("game: %d %v", code, v)
			}
			id := int64(v["id"].(float64))
			if code, v := post(t, g, fmt.Sprintf("%s/api/games/%d/move", ts.http.URL, id), `{"move":"resign"}`); code != http.StatusOK {
				t.Fatalf("resign: %d %v", code, v)
			}
			waitFinished(t, ts.srv)
			if code, v := post(t, g, fmt.Sprintf("%s/api/games/%d/rematch", ts.http.URL, id), `{}`); code != http.StatusCreated {
				t.Fatalf("rematch: %d %v", code, v)
			}
		}},
		{gate.Queue, Config{}, func(t *testing.T, ts *testServer) {
			a, b := queuePair(t, ts.addr, "qa", "qb")
			a.expect("start")
			b.expect("start")
		}},
		{gate.Challenge, Config{}, func(t *testing.T, ts *testServer) {
			a, b := dial(t, ts.addr), dial(t, ts.addr)
			a.login("chal", "a")
			b.login("lenger", "b")
			a.send("challenge lenger")
			id := a.expect("ok").Arg(1)
			b.expect("challenged")
			b.send("accept " + id)
			a.expect("start")
		}},
		{gate.House, Config{PerMove: time.Second, HouseBotAfter: 50 * time.Millisecond}, func(t *testing.T, ts *testServer) {
			c := dial(t, ts.addr)
			c.login("loner", "loner-token")
			c.send("queue")
			c.expect("start")
		}},
		{gate.Tournament, Config{AdminToken: "admin"}, func(t *testing.T, ts *testServer) {
			tours, err := ts.srv.StartTournaments(context.Background(), TournamentOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ts.stop(); tours.Wait() })
			if _, err := tours.Create(context.Background(), Organizer{Admin: true}, NewTournament{Players: []string{"first", "random"}, Rules: ts.srv.cfg.Rules}); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(string(tc.path), func(t *testing.T) {
			ts := newTestServer(t, "", tc.cfg)
			tc.start(t, ts)
			waitAdmitted(t, ts.srv, tc.path)
		})
	}
}

// TestGuestsOfOneAddressMeetTheCap: twelve fresh guests of one address,
// each seeking the same casual game, pair at once, but the address's
// guests get at most MaxGuestGamesPerAddr live games; guests of another
// address still play.
func TestGuestsOfOneAddressMeetTheCap(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	var wg sync.WaitGroup
	codes := make([]int, 12)
	for i := range codes {
		wg.Go(func() {
			codes[i], _ = post(t, guestFrom("127.0.0.7"), ts.http.URL+"/api/seeks", `{"clock_ms":300000}`)
		})
	}
	wg.Wait()
	if live := ts.srv.gate.Live(); live > 5 {
		t.Fatalf("%d live games from one address's guests (codes %v), want at most 5", live, codes)
	}
	refused := 0
	for _, c := range codes {
		if c == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused == 0 || ts.srv.gate.Live() == 0 {
		t.Fatalf("codes %v, %d live", codes, ts.srv.gate.Live())
	}
	if code, v := post(t, guestFrom("127.0.0.8"), ts.http.URL+"/api/games", `{"south":"human","north":"first"}`); code != http.StatusCreated {
		t.Fatalf("a guest of another address: %d %v", code, v)
	}
}

// TestLeftGamesDoNotLockOutAnAddress: a guest who started five games
// against the computer and closed the tabs does not stop another guest of
// the same address from playing: the oldest left game is ended (aborted:
// no move was made in it) to make room. While the tabs are open, the cap
// holds.
func TestLeftGamesDoNotLockOutAnAddress(t *testing.T) {
	ts := newTestServer(t, "", Config{LeftAfter: 200 * time.Millisecond, NoClock: true})
	pupil := guestFrom("127.0.0.9")
	var ids []int64
	var tabs []*stream
	for range 5 {
		code, v := post(t, pupil, ts.http.URL+"/api/games", `{"south":"human","north":"first"}`)
		if code != http.StatusCreated {
			t.Fatalf("game: %d %v", code, v)
		}
		id := int64(v["id"].(float64))
		ids = append(ids, id)
		tabs = append(tabs, openStream(t, pupil, fmt.Sprintf("%s/api/games/%d/board/events", ts.http.URL, id)))
	}
	other := guestFrom("127.0.0.9")
	time.Sleep(400 * time.Millisecond)
	if code, v := post(t, other, ts.http.URL+"/api/games", `{"south":"human","north":"first"}`); code != http.StatusTooManyRequests {
		t.Fatalf("with five games open in tabs, a sixth: %d %v", code, v)
	} else if msg, _ := v["error"].(string); !strings.Contains(msg, "sign in") {
		t.Fatalf("the refusal does not say what to do: %q", msg)
	}
	for _, s := range tabs {
		s.close()
	}
	time.Sleep(400 * time.Millisecond) // longer than LeftAfter
	code, v := post(t, other, ts.http.URL+"/api/games", `{"south":"human","north":"first"}`)
	if code != http.StatusCreated {
		t.Fatalf("after the tabs closed, another guest: %d %v", code, v)
	}
	// One of the left games was aborted for it, the oldest.
	rec := waitStored(t, ts.st, ids[0])
	if rec.Termination.String() != "aborted" {
		t.Fatalf("the oldest left game ended %v (%s)", rec.Termination, rec.Result)
	}
}

// TestTournamentsAreCosted: a tournament whose games would take the
// server's computers far beyond a person's budget is refused with its cost
// and the budget; a small one is taken.
func TestTournamentsAreCosted(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	tours, err := ts.srv.StartTournaments(context.Background(), TournamentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.stop(); tours.Wait() })
	org := Organizer{Account: "ann"}
	big := NewTournament{Rounds: 20, Rules: ts.srv.cfg.Rules}
	big.Rules.Houses, big.Rules.Seeds = 16, 64
	for range 12 {
		big.Players = append(big.Players, "alphabeta:depth=20")
	}
	_, err = tours.Create(context.Background(), org, big)
	if err == nil || !strings.Contains(err.Error(), "2640 games") || !strings.Contains(err.Error(), "computer time") {
		t.Fatalf("the 2,640-game depth-20 tournament: %v", err)
	}
	if code := Errors().StatusOf(err); code != http.StatusTooManyRequests {
		t.Fatalf("answered %d", code)
	}
	t.Log(err)
	small := NewTournament{Rules: ts.srv.cfg.Rules, Players: []string{"alphabeta:depth=4", "minimax:depth=4", "pekar-tree:4", "kbab:depth=4"}}
	if _, err := tours.Create(context.Background(), org, small); err != nil {
		t.Fatalf("a 4-player depth-4 tournament: %v", err)
	}
}

package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/protocol/kgp"
)

// checkHouseGame checks that game id is a finished house game, unrated
// and tagged, with bot in one seat and the house level in the other.
func checkHouseGame(t *testing.T, st *store.Store, id int64, bot string) {
	t.Helper()
	g, err := st.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != store.Finished {
		t.Fatalf("game %d is %s", id, g.Status)
	}
	names := g.Seats[0].Name + " " + g.Seats[1].Name
	if !strings.Contains(names, bot) || !strings.Contains(names, "house:"+DefaultHouseBot) {
		t.Errorf("seats %q, want %s against house:%s", names, bot, DefaultHouseBot)
	}
	if g.Record.Tags[tagHouse] != "yes" || g.Record.Tags[tagRated] != "" {
		t.Errorf("tags %v, want House yes and not rated", g.Record.Tags)
	}
}

// A line-protocol bot that queues alone gets a house game after
// HouseBotAfter, not before, and plays it to the end.
func TestHouseGameForALoneLineBot(t *testing.T) {
	const after = 300 * time.Millisecond
	ts := newTestServer(t, "", Config{PerMove: time.Second, HouseBotAfter: after})
	c := dial(t, ts.addr)
	c.login("loner", "loner-token")
	queued := time.Now()
	c.send("queue")
	c.expect("ok")
	st, end := c.playGame()
	waited := time.Since(queued)
	if waited < after {
		t.Errorf("the house game came after %v, before the %v wait", waited, after)
	}
	if st.Opponent != "house:"+DefaultHouseBot {
		t.Errorf("opponent %q", st.Opponent)
	}
	id, _ := strconv.ParseInt(st.Game, 10, 64)
	waitFinished(t, ts.srv)
	checkStored(t, ts.st, id, &end)
	checkHouseGame(t, ts.st, id, "loner")
}

// Two bots that queue within the wait play each other, not the house; and
// with HouseBotAfter zero a lone bot just waits.
func TestNoHouseGameWhenNotAlone(t *testing.T) {
	ts := newTestServer(t, "", Config{PerMove: time.Second, HouseBotAfter: 300 * time.Millisecond})
	a, b := dial(t, ts.addr), dial(t, ts.addr)
	a.login("ann", "ann-token-1")
	b.login("bob", "bob-token-1")
	a.send("queue")
	a.expect("ok")
	b.send("queue")
	b.expect("ok")
	done := make(chan line2, 1)
	go func() { s, _ := b.playGame(); done <- line2{s.Opponent} }()
	s, _ := a.playGame()
	if s.Opponent != "bob" || (<-done).opponent != "ann" {
		t.Errorf("ann played %q", s.Opponent)
	}
	time.Sleep(500 * time.Millisecond) // past the wait: no house game comes
	if live := ts.srv.LiveGames(); len(live) != 0 {
		t.Errorf("live games %+v", live)
	}

	off := newTestServer(t, "", Config{PerMove: time.Second})
	c := dial(t, off.addr)
	c.login("alone", "alone-token")
	c.send("queue")
	c.expect("ok")
	time.Sleep(300 * time.Millisecond)
	if live := off.srv.LiveGames(); len(live) != 0 {
		t.Errorf("without HouseBotAfter: live games %+v", live)
	}
}

type line2 struct{ opponent string }

// A KGP client alone in freeplay gets a house game in time and hears its
// result; the game is stored unrated and marked.
func TestHouseGameForALoneKGPClient(t *testing.T) {
	for _, how := range []string{"tcp", "ws"} {
		t.Run(how, func(t *testing.T) {
			const after = 300 * time.Millisecond
			r, _ := kalah.PresetRules("kgp")
			r.Houses, r.Seeds = 4, 3
			ts := newTestServer(t, "", Config{Rules: r, PerMove: time.Second, HouseBotAfter: after})
			ks := &kgp.Server{}
			e := newKGPEnvFor(t, ts, ks)
			c := e.dial(how)
			start := time.Now()
			c.hello(`set info:name "lonely bot"`)
			o := c.play(firstMove)
			if o.err != nil {
				t.Fatal(o.err)
			}
			if time.Since(start) < after {
				t.Errorf("the game ended %v after the client came, within the %v wait", time.Since(start), after)
			}
			if o.result == "" || o.termination != "normal" {
				t.Errorf("the client heard %q/%q", o.result, o.termination)
			}
			waitFinished(t, ts.srv)
			games, err := ts.st.Games(context.Background(), store.Filter{})
			if err != nil || len(games) != 1 {
				t.Fatalf("games %v, %v", games, err)
			}
			checkHouseGame(t, ts.st, games[0].ID, "kgp-lonely-bot")
		})
	}
}

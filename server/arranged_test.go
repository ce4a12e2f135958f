package server

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
)

// arrange runs PlayArranged in the background.
func arrange(ts *testServer, a Arranged) <-chan arrangedOut {
	out := make(chan arrangedOut, 1)
	go func() {
		r, err := ts.srv.PlayArranged(context.Background(), a)
		out <- arrangedOut{r, err}
	}()
	return out
}

type arrangedOut struct {
	res ArrangedResult
	err error
}

func await(t *testing.T, ch <-chan arrangedOut) ArrangedResult {
	t.Helper()
	select {
	case o := <-ch:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.res
	case <-time.After(20 * time.Second):
		t.Fatal("the arranged game did not end")
	}
	return ArrangedResult{}
}

func TestArrangedGameBetweenTwoBots(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	small := kalah.Rules{Houses: 4, Seeds: 3}
	alice, bob := dial(t, ts.addr), dial(t, ts.addr)
	alice.login("alice", "a")
	bob.login("bob", "b")
	for _, c := range []*client{alice, bob} {
		c.send("wait")
		if m := c.expect("ok"); m.Arg(0) != "wait" {
			t.Fatalf("wait answered %s", m)
		}
	}
	if got := ts.srv.WaitingBots(); len(got) != 2 || got[0] != "alice" || got[1] != "bob" {
		t.Fatalf("waiting bots %v", got)
	}
	// A waiting bot is not queued too, and the other way round.
	alice.send("queue")
	if m := alice.expect("error"); m.Arg(0) != line.CodeBusy {
		t.Fatalf("queue while waiting: %s", m)
	}
	tags := map[string]string{"Tournament": "7", "Game": "3"}
	started := make(chan int64, 1)
	ch := arrange(ts, Arranged{Rules: small, South: "bot:alice", North: "bot:bob", Opening: []kalah.Move{2},
		PerMove: 5 * time.Second, Tags: tags, OnStart: func(id int64) { started <- id }})
	type told struct {
		st line.Start
		e  line.End
	}
	got := make(chan told, 2)
	for _, c := range []*client{alice, bob} {
		go func() {
			st, e := c.playGame()
			got <- told{st, e}
		}()
	}
	res := await(t, ch)
	a, b := <-got, <-got
	if a.e != b.e || a.st.Game != b.st.Game || a.st.Game != itoa(res.ID) || <-started != res.ID {
		t.Fatalf("the bots were told %+v and %+v; game %d", a, b, res.ID)
	}
	if res.Reason != "" || res.Record.Players.South != "bot:alice" || res.Record.Players.North != "bot:bob" {
		t.Fatalf("result %+v", res)
	}
	if len(res.Record.Moves) < 2 || res.Record.Moves[0].House != 2 || res.Record.Tags["Game"] != "3" {
		t.Fatalf("record %+v", res.Record)
	}
	// The game is the server's: stored with its opening and tags, ending
	// as the bots were told.
	stored := checkStored(t, ts.st, res.ID, &a.e)
	if len(stored.Moves) != len(res.Record.Moves) || stored.Tags["Tournament"] != "7" || stored.Players.South != "alice" {
		t.Fatalf("stored %+v", stored)
	}
	kg, err := res.Record.Game()
	if err != nil {
		t.Fatal(err)
	}
	if line.EndOf(kg) != a.e {
		t.Fatalf("result %+v, told %+v", line.EndOf(kg), a.e)
	}
	// Waiting lasts from game to game: alice plays a server-side player
	// without asking again.
	ch = arrange(ts, Arranged{Rules: small, South: "greedy", North: "bot:alice", PerMove: 5 * time.Second})
	st, e := alice.playGame()
	res = await(t, ch)
	if st.Opponent != "greedy" || st.Side != kalah.North || st.Game != itoa(res.ID) {
		t.Fatalf("second game %+v", st)
	}
	checkStored(t, ts.st, res.ID, &e)
	// leave ends the waiting.
	alice.send("leave")
	if m := alice.expect("ok"); m.Arg(0) != "leave" {
		t.Fatalf("leave answered %s", m)
	}
	if got := ts.srv.WaitingBots(); len(got) != 1 || got[0] != "bob" {
		t.Fatalf("waiting bots %v", got)
	}
}

func TestArrangedGameAbsentBotForfeits(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	small := kalah.Rules{Houses: 4, Seeds: 3}
	alice, bob := dial(t, ts.addr), dial(t, ts.addr)
	alice.login("alice", "a")
	alice.send("wait")
	alice.expect("ok")
	// bob is logged in but queued, not waiting; carol never comes.
	bob.login("bob", "b")
	bob.send("queue")
	bob.expect("ok")
	bob.send("wait")
	if m := bob.expect("error"); m.Arg(0) != line.CodeBusy {
		t.Fatalf("wait while queued: %s", m)
	}
	wait := 300 * time.Millisecond
	for _, absentee := range []string{"carol", "bob"} {
		start := time.Now()
		ch := arrange(ts, Arranged{Rules: small, South: "bot:" + absentee, North: "bot:alice", PerMove: 5 * time.Second, Wait: wait})
		st, e := alice.playGame()
		res := await(t, ch)
		if el := time.Since(start); el < wait || el > wait+5*time.Second {
			t.Errorf("%s's game took %v, waiting %v", absentee, el, wait)
		}
		if e.Result != kalah.NorthWins || e.Termination != kalah.Disconnect || st.Opponent != absentee {
			t.Fatalf("%s absent: alice was told %+v, %+v", absentee, st, e)
		}
		if !strings.Contains(res.Reason, absentee) || !strings.Contains(res.Reason, "not free") {
			t.Fatalf("reason %q", res.Reason)
		}
		checkStored(t, ts.st, res.ID, &e)
	}
	// Neither bot: a draw by adjudication, stored.
	res := await(t, arrange(ts, Arranged{Rules: small, South: "bot:carol", North: "bot:dave", Wait: wait}))
	if res.Record.Result != kalah.Draw || res.Record.Termination != kalah.Adjudicated || !strings.Contains(res.Reason, "neither") {
		t.Fatalf("neither bot: %+v", res)
	}
	g, err := ts.st.Game(context.Background(), res.ID)
	if err != nil || g.Status != store.Finished || g.Record.Result != kalah.Draw {
		t.Fatalf("stored %+v %v", g, err)
	}
	// A bot that comes while its game waits plays it.
	ch := arrange(ts, Arranged{Rules: small, South: "bot:carol", North: "bot:alice", PerMove: 5 * time.Second, Wait: 10 * time.Second})
	time.Sleep(50 * time.Millisecond)
	carol := dial(t, ts.addr)
	carol.login("carol", "c")
	carol.send("wait")
	aliceDone := make(chan line.End, 1)
	go func() { _, e := alice.playGame(); aliceDone <- e }()
	_, e := carol.playGame()
	res = await(t, ch)
	if e.Termination != kalah.Normal || res.Reason != "" || <-aliceDone != e {
		t.Fatalf("carol came: %+v %q", e, res.Reason)
	}
}

func TestArrangedGameErrors(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	for _, a := range []Arranged{
		{South: "bot:alice", North: "bot:alice"},
		{South: "bot:", North: "greedy"},
		{South: "bot:a:b", North: "greedy"},
		{South: "greedy", North: "first", Opening: []kalah.Move{9}},
		{South: "greedy", North: "first", Rules: kalah.Rules{Houses: 99, Seeds: 1}},
	} {
		if _, err := ts.srv.PlayArranged(ctx, a); err == nil {
			t.Errorf("%+v: no error", a)
		}
	}
	// A bot that is not there when ctx ends: the caller stops waiting.
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := ts.srv.PlayArranged(cctx, Arranged{South: "bot:nobody", North: "greedy"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ctx ended: %v", err)
	}
	// Outside a server, bot:NAME explains where it plays.
	_, err := player.New("bot:alice", player.Options{Rules: kalah.Standard()})
	if !errors.Is(err, ErrServerOnly) || !errors.Is(err, player.ErrUnknownPlayer) || !strings.Contains(err.Error(), "kalah serve") {
		t.Errorf("bot:alice outside a server: %v", err)
	}
	if _, _, err := player.Lookup("bot:alice"); err != nil {
		t.Errorf("lookup: %v", err)
	}
	if _, err := player.New("bot:no good", player.Options{Rules: kalah.Standard()}); err == nil || errors.Is(err, ErrServerOnly) {
		t.Errorf("bad name: %v", err)
	}
	// A server-side exec: player is refused unless allowed, as a crash.
	res, err := ts.srv.PlayArranged(ctx, Arranged{South: "exec:true", North: "greedy"})
	if err != nil || res.Record.Termination != kalah.Crash || !strings.Contains(res.Reason, "exec") {
		t.Errorf("exec: %+v %v", res, err)
	}
}

func TestArrangedGameAbandonedAtRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kalah.db")
	ts := newTestServer(t, path, Config{})
	alice := dial(t, ts.addr)
	alice.login("alice", "a")
	alice.send("wait")
	alice.expect("ok")
	ch := arrange(ts, Arranged{South: "bot:alice", North: "greedy", Tags: map[string]string{"Tournament": "1"}})
	st := alice.expect("start")
	alice.expect("go") // and never answers: the server stops mid-game
	ts.stop()
	if o := <-ch; !errors.Is(o.err, ErrClosed) {
		t.Fatalf("arranged game at shutdown: %+v", o)
	}
	ts2 := newTestServer(t, path, Config{})
	id, _ := strconv.ParseInt(st.Arg(0), 10, 64)
	rec := checkStored(t, ts2.st, id, nil)
	if rec.Termination != kalah.Adjudicated || rec.Result != kalah.Draw || rec.Tags["Tournament"] != "1" {
		t.Fatalf("after restart: %s %s %v", rec.Result, rec.Termination, rec.Tags)
	}
	if live := ts2.srv.LiveGames(); len(live) != 0 {
		t.Fatalf("live after restart: %+v", live)
	}
	// alice, back, is free for the game played again.
	a2 := dial(t, ts2.addr)
	a2.login("alice", "a")
	a2.send("wait")
	ch = arrange(ts2, Arranged{South: "bot:alice", North: "greedy", PerMove: 5 * time.Second, Wait: 5 * time.Second})
	_, e := a2.playGame()
	if res := await(t, ch); res.Reason != "" || e.Termination != kalah.Normal {
		t.Fatalf("played again: %+v %+v", res, e)
	}
}

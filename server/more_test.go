package server

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/protocol/line"
)

// TestSpectatorOverWebSocket follows a server-side game from a browser's
// transport.
func TestSpectatorOverWebSocket(t *testing.T) {
	ts := newTestServer(t, "", Config{Delay: 3 * time.Millisecond})
	st, err := ts.srv.StartGame(context.Background(), GameRequest{South: "greedy", North: "random"})
	if err != nil {
		t.Fatal(err)
	}
	w := dial(t, "ws"+strings.TrimPrefix(ts.http.URL, "http")+"/ws/bot")
	w.send("watch " + itoa(st.ID))
	w.expect("watching")
	moves := 0
	for {
		m, err := w.next()
		if err != nil {
			t.Fatal(err)
		}
		if m.Cmd == "moved" {
			moves++
		}
		if m.Cmd == "end" {
			e, _ := line.ParseEnd(m)
			if rec := checkStored(t, ts.st, st.ID, &e); len(rec.Moves) != moves {
				t.Fatalf("spectator saw %d moves, %d stored", moves, len(rec.Moves))
			}
			return
		}
	}
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }

// TestBudgetClock runs a Manchester-style game budget: each go tells the
// bot what is left, and a bot that overspends loses on time.
func TestBudgetClock(t *testing.T) {
	ts := newTestServer(t, "", Config{Budget: 400 * time.Millisecond, Grace: 20 * time.Millisecond})
	a, b := dial(t, ts.addr), dial(t, ts.addr)
	a.login("spender", "s")
	b.login("saver", "s")
	a.send("queue")
	a.expect("ok")
	b.send("queue")
	bEnd := make(chan line.End, 1)
	go func() { _, e := b.playGame(); bEnd <- e }()
	turn, _ := line.ParseTurn(a.expect("go"))
	if turn.PerMove != 0 || turn.Remaining != 400*time.Millisecond {
		t.Fatalf("first turn %+v", turn)
	}
	time.Sleep(150 * time.Millisecond)
	a.send(line.MoveMsg(turn.Position.Moves()[len(turn.Position.Moves())-1]).String())
	for {
		m := a.expect("go")
		tn, _ := line.ParseTurn(m)
		if tn.Remaining >= 400*time.Millisecond-140*time.Millisecond {
			t.Fatalf("budget not charged: %+v", tn)
		}
		break
	}
	// Now stall: the rest of the budget runs out.
	m := a.expect("end")
	e, _ := line.ParseEnd(m)
	if e.Termination != kalah.Timeout {
		t.Fatalf("end %s", m)
	}
	if be := <-bEnd; be != e {
		t.Fatalf("the opponent was told %+v", be)
	}
}

// TestIdleClientDropped: a logged-in client that never answers pings is
// closed after the idle timeout.
func TestIdleClientDropped(t *testing.T) {
	ts := newTestServer(t, "", Config{IdleTimeout: 300 * time.Millisecond})
	c := dial(t, ts.addr)
	c.login("sleepy", "s")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s, err := c.tr.ReadLine(5 * time.Second) // read, never answer
		if err != nil {
			return
		}
		if strings.HasPrefix(s, "error timeout") {
			if _, err := c.tr.ReadLine(time.Second); err == nil {
				t.Fatal("connection open after the idle timeout")
			}
			return
		}
	}
	t.Fatal("idle client not dropped")
}

// TestRestartResumesServerSideGame stops the server in the middle of a
// game between two server-side players and checks the next server
// finishes it from where it stood.
func TestRestartResumesServerSideGame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kalah.db")
	ts := newTestServer(t, path, Config{Delay: 5 * time.Millisecond})
	st, err := ts.srv.StartGame(context.Background(), GameRequest{South: "greedy", North: "pekar"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		v, err := ts.srv.Game(context.Background(), st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Plies >= 4 {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	ts.stop()
	s, _ := store.Open(path)
	before, _ := s.Game(context.Background(), st.ID)
	s.Close()
	if before.Status != store.Live || len(before.Record.Moves) < 4 {
		t.Fatalf("stopped game: %s with %d moves", before.Status, len(before.Record.Moves))
	}
	ts2 := newTestServer(t, path, Config{})
	waitFinished(t, ts2.srv)
	after := checkStored(t, ts2.st, st.ID, nil)
	if after.Termination != kalah.Normal {
		t.Fatalf("resumed game ended %s", after.Termination)
	}
	for i, m := range before.Record.Moves {
		if after.Moves[i] != m {
			t.Fatalf("move %d changed across the restart: %+v then %+v", i+1, m, after.Moves[i])
		}
	}
}

// TestChallenge: a bot challenges another by name, which declines once and
// then accepts; the challenger plays South under the rules it asked for.
func TestChallenge(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	a, b := dial(t, ts.addr), dial(t, ts.addr)
	a.login("chal", "a")
	b.login("lenger", "b")
	a.send("challenge nobody")
	if m := a.expect("error"); m.Arg(0) != line.CodeNotFound {
		t.Fatalf("challenging nobody: %s", m)
	}
	a.send("challenge lenger gamelink")
	id := a.expect("ok").Arg(1)
	m := b.expect("challenged")
	if m.Arg(0) != id || m.Arg(1) != "chal" || m.Arg(2) != "gamelink" {
		t.Fatalf("challenged %s", m)
	}
	b.send("decline " + id)
	b.expect("ok")
	if m := a.expect("declined"); m.Arg(0) != id {
		t.Fatalf("declined %s", m)
	}
	a.send("challenge lenger gamelink")
	id = a.expect("ok").Arg(1)
	b.expect("challenged")
	a.send("accept " + id) // not a's to accept
	if m := a.expect("error"); m.Arg(0) != line.CodeNotFound {
		t.Fatalf("accepting one's own challenge: %s", m)
	}
	b.send("accept " + id)
	done := make(chan line.Start, 1)
	go func() { st, _ := b.playGame(); done <- st }()
	st, e := a.playGame()
	bst := <-done
	if st.Side != kalah.South || bst.Side != kalah.North || st.Rules.Name != "gamelink" || e.Termination != kalah.Normal {
		t.Fatalf("starts %+v %+v, end %+v", st, bst, e)
	}
}

// TestMaxGames refuses a game beyond the limit, telling both bots.
func TestMaxGames(t *testing.T) {
	ts := newTestServer(t, "", Config{MaxGames: 1, Delay: time.Second})
	if _, err := ts.srv.StartGame(context.Background(), GameRequest{South: "greedy", North: "greedy"}); err != nil {
		t.Fatal(err)
	}
	a, b := queuePair(t, ts.addr, "one", "two")
	for _, c := range []*client{a, b} {
		if m := c.expect("error"); m.Arg(0) != line.CodeBusy {
			t.Fatalf("over the limit: %s", m)
		}
	}
	// Refused entries leave the queue, so the bots may queue again.
	a.send("leave")
	if m := a.expect("error"); m.Arg(0) != line.CodeState {
		t.Fatalf("leave after refusal: %s", m)
	}
}

// TestMaxConns turns away a connection beyond the limit.
func TestMaxConns(t *testing.T) {
	ts := newTestServer(t, "", Config{MaxConns: 2})
	dial(t, ts.addr)
	dial(t, ts.addr)
	tr, err := line.Dial(context.Background(), ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	s, err := tr.ReadLine(5 * time.Second)
	if err != nil || !strings.HasPrefix(s, "error busy") {
		t.Fatalf("third connection got %q, %v", s, err)
	}
}

// TestResumedBudget: after a restart each bot's budget is what it had
// left, not a fresh one.
func TestResumedBudget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kalah.db")
	cfg := Config{Budget: 10 * time.Second}
	ts := newTestServer(t, path, cfg)
	a, b := queuePair(t, ts.addr, "slow", "fast")
	turn, _ := line.ParseTurn(a.expect("go"))
	time.Sleep(300 * time.Millisecond)
	moves := turn.Position.Moves()
	a.send(line.MoveMsg(moves[len(moves)-1]).String()) // no extra turn
	b.expect("go")
	ts.stop()
	a.tr.Close()
	b.tr.Close()

	ts2 := newTestServer(t, path, cfg)
	b2 := dial(t, ts2.addr)
	b2.login("fast", "b")
	a2 := dial(t, ts2.addr)
	a2.login("slow", "a")
	bt, _ := line.ParseTurn(b2.expect("go"))
	b2.send(line.MoveMsg(bt.Position.Moves()[0]).String())
	for {
		at, _ := line.ParseTurn(a2.expect("go"))
		if at.Position.ToMove() != kalah.South {
			continue
		}
		if at.Remaining > 10*time.Second-300*time.Millisecond || at.Remaining < 9*time.Second {
			t.Fatalf("slow's budget after the restart: %v", at.Remaining)
		}
		break
	}
}

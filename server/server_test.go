package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"kalah"
	_ "kalah/heuristic"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/remote"
	"kalah/server/bots"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv("KALAH_OPENLOOP_BOTS"); addr != "" {
		os.Exit(openLoopBots(addr))
	}
	goleak.VerifyTestMain(m)
}

// testServer runs a server on a fresh store with a TCP listener.
type testServer struct {
	t     *testing.T
	srv   *Server
	st    *store.Store
	addr  string
	http  *httptest.Server
	path  string
	ldone chan error
}

func newTestServer(t *testing.T, path string, cfg Config) *testServer {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "kalah.db")
	}
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = st
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{t: t, srv: srv, st: st, addr: l.Addr().String(), path: path, ldone: make(chan error, 1)}
	go func() { ts.ldone <- srv.Serve(l) }()
	ts.http = httptest.NewServer(srv.Handler())
	t.Cleanup(ts.stop)
	return ts
}

func (ts *testServer) stop() {
	if ts.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ts.http.CloseClientConnections()
	if err := ts.srv.Shutdown(ctx); err != nil {
		ts.t.Errorf("shutdown: %v", err)
	}
	ts.http.Close()
	if err := <-ts.ldone; err != nil && !errors.Is(err, ErrClosed) {
		ts.t.Errorf("serve: %v", err)
	}
	ts.st.Close()
	ts.srv = nil
}

// confirmCount returns how many moves kalah_move_confirm_seconds holds.
func confirmCount(t *testing.T, ts *testServer) uint64 {
	t.Helper()
	mfs, err := ts.srv.metrics.Reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "kalah_move_confirm_seconds" {
			return mf.GetMetric()[0].GetHistogram().GetSampleCount()
		}
	}
	t.Fatal("no kalah_move_confirm_seconds in the metrics")
	return 0
}

// client is a raw protocol client for tests.
type client struct {
	t  *testing.T
	tr line.Transport
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	tr, err := line.Dial(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, tr: tr}
	t.Cleanup(func() { tr.Close() })
	c.expect("kalah")
	return c
}

func (c *client) send(s string) {
	c.t.Helper()
	if err := c.tr.WriteLine(s, 5*time.Second); err != nil {
		c.t.Fatalf("send %q: %v", s, err)
	}
}

// next returns the next message other than ping (answered). It waits up
// to 30 s: on a shared machine under the whole suite's load the server has
// once been silent for over 10 s (two tests waiting for go failed
// together), a stall of the machine's, not of the protocol's.
func (c *client) next() (line.Msg, error) {
	for {
		s, err := c.tr.ReadLine(30 * time.Second)
		if err != nil {
			return line.Msg{}, err
		}
		m, err := line.Parse(s)
		if err != nil {
			return m, err
		}
		if m.Cmd == "ping" {
			c.tr.WriteLine("pong", time.Second)
			continue
		}
		return m, nil
	}
}

// expect reads until a message with command cmd.
func (c *client) expect(cmd string) line.Msg {
	c.t.Helper()
	for {
		m, err := c.next()
		if err != nil {
			c.t.Fatalf("waiting for %q: %v", cmd, err)
		}
		if m.Cmd == cmd {
			return m
		}
		if m.Cmd == "error" && cmd != "error" {
			c.t.Fatalf("waiting for %q: %s", cmd, m)
		}
	}
}

func (c *client) login(name, token string) {
	c.t.Helper()
	c.send("login " + name + " " + token)
	c.expect("ok")
}

// queuePair dials two bots, logs them in and queues them one after the
// other (the second once the first is queued): the first plays South.
func queuePair(t *testing.T, addr, south, north string) (a, b *client) {
	t.Helper()
	a, b = dial(t, addr), dial(t, addr)
	a.login(south, "a")
	b.login(north, "b")
	a.send("queue")
	a.expect("ok")
	b.send("queue")
	return a, b
}

// playGame answers every go with the first legal move until the end.
func (c *client) playGame() (line.Start, line.End) {
	c.t.Helper()
	var st line.Start
	for {
		m, err := c.next()
		if err != nil {
			c.t.Fatalf("playing: %v", err)
		}
		switch m.Cmd {
		case "start":
			st, _ = line.ParseStart(m)
		case "go":
			turn, err := line.ParseTurn(m)
			if err != nil {
				c.t.Fatalf("bad go %q: %v", m, err)
			}
			mv := turn.Position.Moves()[0]
			c.send(line.MoveMsg(mv).String())
		case "end":
			e, err := line.ParseEnd(m)
			if err != nil {
				c.t.Fatal(err)
			}
			return st, e
		case "error":
			c.t.Fatalf("error while playing: %s", m)
		}
	}
}

// checkStored checks that game id is stored finished and its record
// replays to the given end.
func checkStored(t *testing.T, st *store.Store, id int64, want *line.End) kalah.Record {
	t.Helper()
	g, err := st.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != store.Finished {
		t.Fatalf("game %d is %s", id, g.Status)
	}
	kg, err := g.Record.Game()
	if err != nil {
		t.Fatalf("game %d does not replay: %v", id, err)
	}
	if want != nil {
		if got := line.EndOf(kg); got != *want {
			t.Fatalf("game %d stored end %+v, players were told %+v", id, got, *want)
		}
	}
	return g.Record
}

func waitFinished(t *testing.T, srv *Server) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.LiveGames()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("games still live: %+v", srv.LiveGames())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTwoBotsPlayOverTCPAndWebSocket(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	for _, via := range []string{"tcp", "ws"} {
		t.Run(via, func(t *testing.T) {
			addr := ts.addr
			if via == "ws" {
				addr = "ws" + strings.TrimPrefix(ts.http.URL, "http") + "/ws/bot"
			}
			confirmed := confirmCount(t, ts)
			a, b := dial(t, addr), dial(t, addr)
			a.login("alice-"+via, "ta")
			b.login("bob-"+via, "tb")
			a.send("queue kalah")
			a.expect("ok")
			b.send("queue")
			var wg sync.WaitGroup
			var ends [2]line.End
			var starts [2]line.Start
			for i, c := range []*client{a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					starts[i], ends[i] = c.playGame()
				}()
			}
			wg.Wait()
			if ends[0] != ends[1] || ends[0].Termination != kalah.Normal {
				t.Fatalf("ends %+v", ends)
			}
			if starts[0].Side != kalah.South || starts[1].Side != kalah.North || starts[0].Opponent != "bob-"+via {
				t.Fatalf("starts %+v", starts)
			}
			var id int64
			fmt.Sscan(starts[0].Game, &id)
			rec := checkStored(t, ts.st, id, &ends[0])
			if rec.Players.South != "alice-"+via || len(rec.Moves) == 0 {
				t.Fatalf("record %+v", rec)
			}
			// Every move's confirmation was timed from its line read.
			if n := confirmCount(t, ts) - confirmed; n != uint64(len(rec.Moves)) {
				t.Errorf("kalah_move_confirm_seconds counted %d moves, the game has %d", n, len(rec.Moves))
			}
			// Both may play again at once.
			a.send("queue")
			a.expect("ok")
			a.send("leave")
			a.expect("ok")
		})
	}
}

func TestTokenProtectsName(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	a := dial(t, ts.addr)
	a.login("carol", "right")
	b := dial(t, ts.addr)
	b.send("login CAROL wrong")
	if m := b.expect("error"); m.Arg(0) != line.CodeAuth || !strings.HasSuffix(m.String(), "wrong token for carol") {
		t.Fatalf("wrong token: %s (want it to name the bot)", m)
	}
	c := dial(t, ts.addr)
	c.send("move 3")
	if m := c.expect("error"); m.Arg(0) != line.CodeAuth {
		t.Fatalf("move before login: %s", m)
	}
}

func TestSpectatorAndAPIGame(t *testing.T) {
	ts := newTestServer(t, "", Config{Delay: 2 * time.Millisecond})
	st, err := ts.srv.StartGame(context.Background(), GameRequest{South: "greedy", North: "human"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Tokens[0] != "" || st.Tokens[1] == "" {
		t.Fatalf("tokens %+v", st.Tokens)
	}
	events, cancel, err := ts.srv.Subscribe(st.ID, Actor{})
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	w := dial(t, ts.addr)
	w.send(fmt.Sprintf("watch %d", st.ID))
	w.expect("watching")
	// Spectators may not move.
	w.send("move 1")
	if m := w.expect("error"); m.Arg(0) != line.CodeAuth {
		t.Fatalf("spectator move: %s", m)
	}
	if _, err := ts.srv.StartGame(context.Background(), GameRequest{South: "exec:true", North: "greedy"}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("exec from the API: %v", err)
	}
	ctx := context.Background()
	for {
		v, err := ts.srv.Game(ctx, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status == store.Finished {
			break
		}
		if !v.Human[1] || v.Plies > 0 && v.Position == "" {
			t.Fatalf("view %+v", v)
		}
		seat := 0
		if v.ToMove == kalah.North != v.Swapped {
			seat = 1
		}
		if seat == 1 && len(v.Legal) > 0 {
			if err := ts.srv.Move(context.Background(), st.ID, Actor{Token: "guess"}, kalah.Move(v.Legal[0])); !errors.Is(err, ErrForbidden) {
				t.Fatalf("move with a wrong token: %v", err)
			}
			err := ts.srv.Move(context.Background(), st.ID, Actor{Token: st.Tokens[1]}, kalah.Move(v.Legal[0]))
			if err != nil && !errors.Is(err, ErrNotYourTurn) && !errors.Is(err, ErrNotFound) {
				t.Fatalf("human move: %v", err)
			}
		}
		time.Sleep(time.Millisecond)
	}
	m := w.expect("end")
	e, _ := line.ParseEnd(m)
	var last Event
	for ev := range events {
		last = ev
	}
	if last.Kind != "end" || last.Result != e.Result {
		t.Fatalf("last event %+v, spectator saw %s", last, m)
	}
	checkStored(t, ts.st, st.ID, &e)
	list, err := ts.srv.FinishedGames(ctx, 10, 0, identity.ID{})
	if err != nil || len(list) != 1 || list[0].ID != st.ID {
		t.Fatalf("finished games %+v %v", list, err)
	}
}

func TestHostileClients(t *testing.T) {
	ts := newTestServer(t, "", Config{MaxLine: 64, HandshakeTimeout: 200 * time.Millisecond, IdleTimeout: 400 * time.Millisecond, LoginRate: 0.001, LoginBurst: 3})
	// Garbage is answered with an error, and the connection lives on.
	g := dial(t, ts.addr)
	for _, junk := range []string{"\x01\x02", "hello there", "login", "move x", "queue nonsense-rules", "watch abc"} {
		g.send(junk)
		g.expect("error")
	}
	g.send("ping")
	g.expect("pong")
	// An overlong line closes the connection with an error.
	long := dial(t, ts.addr)
	long.send(strings.Repeat("x", 200))
	if m := long.expect("error"); m.Arg(0) != line.CodeTooLong {
		t.Fatalf("overlong: %s", m)
	}
	if _, err := long.next(); err == nil {
		t.Fatal("connection open after an overlong line")
	}
	// A client that never logs in is dropped.
	stall := dial(t, ts.addr)
	if m := stall.expect("error"); m.Arg(0) != line.CodeTimeout {
		t.Fatalf("stall: %s", m)
	}
	// Logins are rate limited an address.
	for i := range 3 {
		c := dial(t, ts.addr)
		c.login(fmt.Sprintf("r%d", i), "t")
	}
	c := dial(t, ts.addr)
	c.send("login r9 t")
	if m := c.expect("error"); m.Arg(0) != line.CodeRate {
		t.Fatalf("rate limit: %s", m)
	}
}

func TestDisconnectLosesOnClockAndReconnectContinues(t *testing.T) {
	ts := newTestServer(t, "", Config{PerMove: 300 * time.Millisecond, Grace: 50 * time.Millisecond})
	// A bot that vanishes mid-game loses on its clock; the other is told.
	a, b := dial(t, ts.addr), dial(t, ts.addr)
	a.login("quitter", "q")
	b.login("stayer", "s")
	a.send("queue")
	a.expect("ok")
	b.send("queue")
	a.expect("go")
	a.tr.Close()
	if m := b.expect("away"); m.Arg(0) != "S" {
		t.Fatalf("away %s", m)
	}
	m := b.expect("end")
	e, _ := line.ParseEnd(m)
	if e.Termination != kalah.Disconnect || e.Result != kalah.NorthWins {
		t.Fatalf("end %s", m)
	}
	waitFinished(t, ts.srv)
	games, _ := ts.st.Games(context.Background(), store.Filter{})
	checkStored(t, ts.st, games[0].ID, &e)

	// A bot that comes back in time carries on.
	c, d := dial(t, ts.addr), dial(t, ts.addr)
	c.login("flaky", "f")
	d.login("steady", "d")
	c.send("queue")
	c.expect("ok")
	d.send("queue")
	c.expect("go")
	c.tr.Close()
	d.expect("away")
	c2 := dial(t, ts.addr)
	c2.login("flaky", "f")
	var wg sync.WaitGroup
	var ends [2]line.End
	wg.Add(2)
	go func() { defer wg.Done(); _, ends[0] = c2.playGame() }()
	go func() { defer wg.Done(); _, ends[1] = d.playGame() }()
	wg.Wait()
	if ends[0].Termination != kalah.Normal || ends[0] != ends[1] {
		t.Fatalf("after reconnecting: %+v", ends)
	}
	games, _ = ts.st.Games(context.Background(), store.Filter{})
	checkStored(t, ts.st, games[0].ID, &ends[0])
}

func TestExecPlayers(t *testing.T) {
	ts := newTestServer(t, "", Config{AllowExec: true})
	// A shell bot: it answers every go with the first non-empty house.
	bot := `while read cmd a b houses rest; do case "$cmd" in go) side=$(echo "$rest" | cut -d' ' -f2); ` +
		`if [ "$side" = N ]; then houses=$(echo "$houses" | cut -d/ -f2); else houses=$(echo "$houses" | cut -d/ -f1); fi; ` +
		`i=1; for n in $(echo "$houses" | tr , ' '); do if [ "$n" != 0 ]; then echo "move $i"; break; fi; i=$((i+1)); done;; end) exit 0;; esac; done`
	st, err := ts.srv.StartGame(context.Background(), GameRequest{South: "exec:" + bot, North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	waitFinished(t, ts.srv)
	rec := checkStored(t, ts.st, st.ID, nil)
	if rec.Termination != kalah.Normal {
		t.Fatalf("exec game ended by %s", rec.Termination)
	}
	// A program that dies loses by crash; one that writes nonsense by
	// protocol error.
	for spec, want := range map[string]kalah.Termination{"exec:exit 3": kalah.Crash, "exec:echo hello; sleep 5": kalah.ProtocolError} {
		st, err := ts.srv.StartGame(context.Background(), GameRequest{South: spec, North: "greedy"})
		if err != nil {
			t.Fatal(err)
		}
		waitFinished(t, ts.srv)
		if rec := checkStored(t, ts.st, st.ID, nil); rec.Termination != want || rec.Result != kalah.NorthWins {
			t.Errorf("%s: %s %s, want %s", spec, rec.Result, rec.Termination, want)
		}
	}
}

func TestRestartResumesAndAdjudicates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kalah.db")
	ts := newTestServer(t, path, Config{NoClock: true, Reconnect: 5 * time.Second})
	// A bot game stopped mid-way by the server going down.
	a, b := queuePair(t, ts.addr, "ann", "ben")
	turn := a.expect("go")
	tn, _ := line.ParseTurn(turn)
	a.send(line.MoveMsg(tn.Position.Moves()[0]).String())
	b.expect("moved")
	// A game with a person through the API: the person's token moves it
	// after the restart too.
	hg, err := ts.srv.StartGame(context.Background(), GameRequest{South: "human", North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	ts.stop()
	a.tr.Close()
	b.tr.Close()

	ts2 := newTestServer(t, path, Config{NoClock: true, Reconnect: 5 * time.Second})
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := ts2.srv.Move(context.Background(), hg.ID, Actor{Token: hg.Tokens[0]}, 1)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrNotYourTurn) || time.Now().After(deadline) {
			t.Fatalf("the person's move after the restart: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := ts2.srv.Move(context.Background(), hg.ID, Actor{Token: "not-the-token"}, 2); !errors.Is(err, ErrForbidden) {
		t.Fatalf("a wrong token: %v", err)
	}
	waitTurn(t, ts2.srv, hg.ID, 0) // the computer's reply: both have moved
	if err := ts2.srv.Resign(context.Background(), hg.ID, Actor{Token: hg.Tokens[0]}); err != nil {
		t.Fatal(err)
	}
	for time.Now().Before(deadline) && len(ts2.srv.LiveGames()) > 1 {
		time.Sleep(10 * time.Millisecond)
	}
	if rec := checkStored(t, ts2.st, hg.ID, nil); rec.Termination != kalah.Resign || rec.Result != kalah.NorthWins || len(rec.Moves) < 1 {
		t.Fatalf("human game after restart: %s %s %d moves", rec.Result, rec.Termination, len(rec.Moves))
	}
	live := ts2.srv.LiveGames()
	if len(live) != 1 || live[0].Plies < 1 {
		t.Fatalf("live after restart: %+v", live)
	}
	a2, b2 := dial(t, ts2.addr), dial(t, ts2.addr)
	a2.login("ann", "a")
	b2.login("ben", "b")
	var wg sync.WaitGroup
	var ends [2]line.End
	wg.Add(2)
	go func() { defer wg.Done(); _, ends[0] = a2.playGame() }()
	go func() { defer wg.Done(); _, ends[1] = b2.playGame() }()
	wg.Wait()
	if ends[0] != ends[1] || ends[0].Termination != kalah.Normal {
		t.Fatalf("resumed game ended %+v", ends)
	}
	checkStored(t, ts2.st, live[0].ID, &ends[0])
}

// TestQueueOkMeansQueued: "ok queue" says the entry is in the queue, so a
// second bot that queues after it is paired behind it and the first plays
// South, however long the first entry took to reach the queue (here a
// pause of 100 ms; the ok used to be sent before, and the second bot could
// be queued first: TestRestartResumesAndAdjudicates then waited for a go
// that went to the other bot).
func TestQueueOkMeansQueued(t *testing.T) {
	pause := func(key string) {
		if strings.HasSuffix(key, "ann") {
			time.Sleep(100 * time.Millisecond)
		}
	}
	bots.SetTestHooks(pause, nil)
	defer bots.SetTestHooks(nil, nil)
	ts := newTestServer(t, "", Config{NoClock: true})
	a, _ := queuePair(t, ts.addr, "ann", "ben")
	st, err := line.ParseStart(a.expect("start"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Side != kalah.South {
		t.Fatalf("ann, queued first, plays %v", st.Side)
	}
	a.expect("go")
}

func TestRemoteClient(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, spec := range []string{"greedy", "random"} {
		p, err := player.New(spec, player.Options{Rules: kalah.Standard(), Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		c := &remote.Client{Addr: ts.addr, Name: spec + "-bot", Token: "t", Player: p, Games: 2}
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.Run(ctx) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	waitFinished(t, ts.srv)
	games, _ := ts.st.Games(ctx, store.Filter{Status: store.Finished})
	if len(games) != 2 {
		t.Fatalf("%d games stored", len(games))
	}
	for _, g := range games {
		checkStored(t, ts.st, g.ID, nil)
	}
}

// TestGameStartIsOneWrite: a bot that is to move hears its game, the
// position and its first turn in one write (one read of its socket), not
// three; the other bot hears the game and the position together.
func TestGameStartIsOneWrite(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	raw := func(name string) (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		r := bufio.NewReader(c)
		fmt.Fprintf(c, "login %s tok-%s-123\nqueue\n", name, name)
		for _, want := range []string{"kalah", "ok login", "ok queue"} {
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			l, err := r.ReadString('\n')
			if err != nil || !strings.HasPrefix(l, want) {
				t.Fatalf("%s: %q %v, want %s", name, l, err, want)
			}
		}
		return c, r
	}
	south, sr := raw("onewrite-s")
	north, nr := raw("onewrite-n")
	// What a bot is sent next arrives in one write: read it whole (a
	// loopback write of a few lines lands in the socket at once).
	chunk := func(c net.Conn, r *bufio.Reader) string {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := r.Peek(1); err != nil {
			t.Fatal(err)
		}
		b, _ := r.Peek(r.Buffered())
		return string(b)
	}
	if got := chunk(south, sr); !strings.HasPrefix(got, "start ") || !strings.Contains(got, "\nstate ") || !strings.Contains(got, "\ngo ") {
		t.Errorf("South's first read: %q, want its start, state and go together", got)
	}
	if got := chunk(north, nr); !strings.HasPrefix(got, "start ") || !strings.Contains(got, "\nstate ") {
		t.Errorf("North's first read: %q, want its start and state together", got)
	}
}

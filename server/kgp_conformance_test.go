package server

// The KGP conformance suite: one test per section of the KGP draft
// (KWARC/kalah-game, spec/) that the server implements, each a scripted
// conversation run over every transport a client may use: TCP written a
// line at a time or a token at a time, and WebSocket with a message a
// line, a message a token, or several commands in one message. Every
// command the server sends is checked against section 012: its id, if
// any, is even and never used twice on the connection.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"kalah"
	"kalah/internal/store"
	"kalah/protocol/kgp"
)

var transports = []string{"tcp", "tcp-split", "ws", "ws-split", "ws-merged"}

type kgpEnv struct {
	t   *testing.T
	ts  *testServer
	ks  *kgp.Server
	tcp string
	ws  string
}

// newKGPEnv runs our server on Kalah(4,3) under the kgp preset with a KGP
// front end wired as kalah serve wires it.
func newKGPEnv(t *testing.T, perMove time.Duration, ks *kgp.Server) *kgpEnv {
	t.Helper()
	r, _ := kalah.PresetRules("kgp")
	r.Houses, r.Seeds = 4, 3
	return newKGPEnvFor(t, newTestServer(t, "", Config{Rules: r, PerMove: perMove}), ks)
}

// newKGPEnvFor puts a KGP front end, wired as kalah serve wires it, on a
// test server.
func newKGPEnvFor(t *testing.T, ts *testServer, ks *kgp.Server) *kgpEnv {
	t.Helper()
	ks.Logger = slog.New(slog.DiscardHandler)
	ks.Join, ks.Admit = ts.srv.KGPJoin, ts.srv.KGPAdmit
	ks.Auth = ts.srv.TokenLogin
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- ks.Serve(l) }()
	hs := httptest.NewServer(ks.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.CloseClientConnections()
		ks.Shutdown(ctx)
		hs.Close()
		<-served
	})
	return &kgpEnv{t: t, ts: ts, ks: ks, tcp: l.Addr().String(), ws: "ws" + strings.TrimPrefix(hs.URL, "http")}
}

// waitQueue waits until n entrants wait in the server's queue.
func (e *kgpEnv) waitQueue(n int) {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := len(e.ts.srv.bots.Queued())
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("queue holds %d, want %d", got, n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// kc is a scripted KGP client.
type kc struct {
	t     *testing.T
	how   string
	tcp   net.Conn
	ws    *websocket.Conn
	lines chan string
	mu    sync.Mutex
	ids   map[uint64]bool
	// lenient: the server may close the connection while we still write
	// (after a refusal), so a failed write is no error.
	lenient bool
}

func (e *kgpEnv) dial(how string) *kc {
	e.t.Helper()
	c := &kc{t: e.t, how: how, lines: make(chan string, 256), ids: map[uint64]bool{}}
	var r io.Reader
	if strings.HasPrefix(how, "ws") {
		ws, _, err := websocket.Dial(context.Background(), e.ws, nil)
		if err != nil {
			e.t.Fatal(err)
		}
		c.ws = ws
		r = websocket.NetConn(context.Background(), ws, websocket.MessageText)
	} else {
		conn, err := net.Dial("tcp", e.tcp)
		if err != nil {
			e.t.Fatal(err)
		}
		c.tcp = conn
		r = conn
	}
	e.t.Cleanup(c.close)
	go func() {
		defer close(c.lines)
		br := bufio.NewReader(r)
		for {
			s, err := br.ReadString('\n')
			if err != nil {
				return
			}
			c.lines <- s
		}
	}()
	return c
}

func (c *kc) close() {
	if c.ws != nil {
		c.ws.CloseNow()
	} else {
		c.tcp.Close()
	}
}

// send writes the lines the way the transport says.
func (c *kc) send(lines ...string) {
	var msgs []string
	switch c.how {
	case "tcp", "ws":
		for _, l := range lines {
			msgs = append(msgs, l+"\r\n")
		}
	case "tcp-split", "ws-split":
		for _, l := range lines {
			toks := strings.Split(l, " ")
			for i, tok := range toks {
				if i < len(toks)-1 {
					tok += " "
				}
				msgs = append(msgs, tok)
			}
			msgs = append(msgs, "\r\n")
		}
	case "ws-merged":
		msgs = []string{strings.Join(lines, "\r\n") + "\r\n"}
	}
	for _, m := range msgs {
		var err error
		if c.ws != nil {
			err = c.ws.Write(context.Background(), websocket.MessageText, []byte(m))
		} else {
			_, err = io.WriteString(c.tcp, m)
			if c.how == "tcp-split" {
				time.Sleep(time.Millisecond) // separate segments
			}
		}
		if err != nil {
			if !c.lenient {
				c.t.Errorf("%s: send %q: %v", c.how, m, err)
			}
			return
		}
	}
}

var errClosed = errors.New("connection closed")

// recv returns the server's next command, checking it against 012.
func (c *kc) recv() (kgp.Command, error) {
	select {
	case s, ok := <-c.lines:
		if !ok {
			return kgp.Command{}, errClosed
		}
		if !strings.HasSuffix(s, "\r\n") {
			c.t.Errorf("%s: line %q does not end in CRLF", c.how, s)
		}
		cmd, err := kgp.Parse(s)
		if err != nil {
			return kgp.Command{}, fmt.Errorf("server sent %q: %v", s, err)
		}
		if cmd.ID != 0 {
			c.mu.Lock()
			if cmd.ID%2 != 0 {
				c.t.Errorf("%s: server id %d in %q is odd: clients use those", c.how, cmd.ID, s)
			}
			if c.ids[cmd.ID] {
				c.t.Errorf("%s: server reused id %d in %q", c.how, cmd.ID, s)
			}
			c.ids[cmd.ID] = true
			c.mu.Unlock()
		}
		return cmd, nil
	case <-time.After(10 * time.Second):
		return kgp.Command{}, fmt.Errorf("nothing from the server for 10s")
	}
}

// expect reads until a command of the given name.
func (c *kc) expect(name string) kgp.Command {
	c.t.Helper()
	for {
		cmd, err := c.recv()
		if err != nil {
			c.t.Fatalf("%s: waiting for %s: %v", c.how, name, err)
		}
		if cmd.Name == name {
			return cmd
		}
	}
}

// next returns the next command, failing the test on error.
func (c *kc) next() kgp.Command {
	c.t.Helper()
	cmd, err := c.recv()
	if err != nil {
		c.t.Fatalf("%s: %v", c.how, err)
	}
	return cmd
}

// closed waits for the server to close the connection, allowing only the
// named commands before it.
func (c *kc) closed(allowed ...string) {
	c.t.Helper()
	for {
		cmd, err := c.recv()
		if errors.Is(err, errClosed) {
			return
		}
		if err != nil {
			c.t.Fatalf("%s: waiting for the close: %v", c.how, err)
		}
		ok := false
		for _, a := range allowed {
			ok = ok || cmd.Name == a
		}
		if !ok {
			c.t.Fatalf("%s: got %v while waiting for the close", c.how, cmd)
		}
	}
}

// hello reads the greeting and sends the given set commands and mode
// freeplay (id 1001), checking the server's ok to it.
func (c *kc) hello(sets ...string) {
	c.t.Helper()
	g := c.next()
	if g.Name != "kgp" || len(g.Args) != 3 || g.Args[0].Int != 1 {
		c.t.Fatalf("%s: first command %v, want the greeting kgp 1 x y", c.how, g)
	}
	c.send(append(sets, "1001 mode freeplay")...)
	ok := c.expect("ok")
	if ok.Ref != 1001 {
		c.t.Fatalf("%s: ok %v does not reference mode (id 1001)", c.how, ok)
	}
}

// policy answers a state: the lines to send (nil: stay silent).
type policy func(state kgp.Command, pos kalah.Position, n int) []string

// firstMove plays the first legal house and yields.
func firstMove(st kgp.Command, pos kalah.Position, n int) []string {
	ref := fmt.Sprintf("@%d ", st.ID)
	return []string{ref + "move " + pos.Moves()[0].String(), ref + "yield"}
}

// outcome is what a client heard of its game.
type outcome struct {
	states      []kgp.Command
	stops       []kgp.Command
	result      string
	termination string
	errors      []kgp.Command
	err         error
}

// play answers states with p until goodbye and reports what it heard.
func (c *kc) play(p policy) outcome {
	var o outcome
	for {
		cmd, err := c.recv()
		if err != nil {
			o.err = err
			return o
		}
		switch cmd.Name {
		case "state":
			pos, err := kalah.ParseKGPBoard(cmd.Args[0].Text)
			if err != nil {
				o.err = err
				return o
			}
			o.states = append(o.states, cmd)
			if lines := p(cmd, pos, len(o.states)); lines != nil {
				c.send(lines...)
			}
		case "stop":
			o.stops = append(o.stops, cmd)
		case "error":
			o.errors = append(o.errors, cmd)
		case "ping":
			c.send(fmt.Sprintf("@%d pong", cmd.ID))
		case "set":
			switch cmd.Args[0].Text {
			case "game:result":
				o.result = cmd.Args[1].Text
			case "game:termination":
				o.termination = cmd.Args[1].Text
			}
		case "goodbye":
			return o
		}
	}
}

// game plays a against b, a as South (it joins first), and returns what
// each heard and the stored game.
func (e *kgpEnv) game(how string, a, b *kc, pa, pb policy, setsA, setsB []string) (outcome, outcome, store.Game) {
	e.t.Helper()
	a.hello(setsA...)
	e.waitQueue(1)
	b.hello(setsB...)
	var oa, ob outcome
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); oa = a.play(pa) }()
	go func() { defer wg.Done(); ob = b.play(pb) }()
	wg.Wait()
	for _, o := range []outcome{oa, ob} {
		if o.err != nil {
			e.t.Fatalf("%s: %v", how, o.err)
		}
	}
	waitFinished(e.t, e.ts.srv)
	games, err := e.ts.st.Games(context.Background(), store.Filter{})
	if err != nil || len(games) == 0 {
		e.t.Fatalf("%s: stored games %v, %v", how, games, err)
	}
	g, err := e.ts.st.Game(context.Background(), games[0].ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return oa, ob, g
}

func forEachTransport(t *testing.T, f func(t *testing.T, how string)) {
	for _, how := range transports {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			f(t, how)
		})
	}
}

// 012: ids and references. Errors reference the command they answer,
// even a malformed one; ping is answered by a pong referencing it.
func TestKGP012Grammar(t *testing.T) {
	forEachTransport(t, func(t *testing.T, how string) {
		e := newKGPEnv(t, time.Second, &kgp.Server{})
		c := e.dial(how)
		g := c.next()
		if g.Name != "kgp" || g.ID == 0 {
			t.Fatalf("greeting %v: want an id from the server's range", g)
		}
		c.send(`1 set info:name "grammar bot"`, "3 frobnicate 1 2", "5 move 3", `7 set info:authors "unterminated`, "9 ping")
		for _, want := range []struct {
			name string
			ref  uint64
		}{{"error", 3}, {"error", 5}, {"error", 7}, {"pong", 9}} {
			got := c.next()
			if got.Name != want.name || got.Ref != want.ref {
				t.Fatalf("got %v, want %s referencing %d", got, want.name, want.ref)
			}
		}
	})
}

// 013: the greeting comes first; mode is confirmed with ok or refused
// with an error referencing it, goodbye and a close; unknown options do
// no harm; a silent client is told why before it is dropped.
func TestKGP013Overview(t *testing.T) {
	forEachTransport(t, func(t *testing.T, how string) {
		e := newKGPEnv(t, time.Second, &kgp.Server{IdleTimeout: 300 * time.Millisecond, PingInterval: time.Hour})
		c := e.dial(how)
		c.next() // the greeting
		c.send("11 mode evaluation")
		er := c.next()
		if er.Name != "error" || er.Ref != 11 || !strings.Contains(er.Args[0].Text, "Unsupported activity") {
			t.Fatalf("unsupported mode answered %v", er)
		}
		if bye := c.next(); bye.Name != "goodbye" {
			t.Fatalf("after the error: %v, want goodbye", bye)
		}
		c.closed()

		idle := e.dial(how)
		idle.hello("set some:option 42", "set weird")
		er = idle.next()
		if er.Name != "error" || !strings.Contains(er.Args[0].Text, "idle") {
			t.Fatalf("idle client told %v", er)
		}
		if bye := idle.next(); bye.Name != "goodbye" {
			t.Fatalf("idle client: %v, want goodbye", bye)
		}
		idle.closed()
	})
}

// 021: states carry ids, moves and yields reference them, the last move
// counts, stop references the state, and a client that sent no move gets
// a random one and plays on: after yield without a move and after silence
// until the clock.
func TestKGP021Freeplay(t *testing.T) {
	forEachTransport(t, func(t *testing.T, how string) {
		// SendForced: South is asked about every move, so its states and
		// its moves in the record pair up.
		e := newKGPEnv(t, 400*time.Millisecond, &kgp.Server{SendForced: true})
		a, b := e.dial(how), e.dial(how)
		var want []kalah.Move // South's final choices, nil where random
		pa := func(st kgp.Command, pos kalah.Position, n int) []string {
			ref := fmt.Sprintf("@%d ", st.ID)
			moves := pos.Moves()
			switch n {
			case 1: // yield without a move
				want = append(want, kalah.NoMove)
				return []string{ref + "yield"}
			case 2: // silence until the clock
				want = append(want, kalah.NoMove)
				return nil
			}
			last := moves[len(moves)-1]
			want = append(want, last)
			// Two moves: the last one counts.
			return []string{ref + "move " + moves[0].String(), ref + "move " + last.String(), ref + "yield"}
		}
		oa, ob, g := e.game(how, a, b, pa, firstMove, nil, nil)
		if g.Record.Termination != kalah.Normal {
			t.Fatalf("game ended %v: the random moves should have kept it going", g.Record.Termination)
		}
		if len(oa.states) < 3 {
			t.Fatalf("South saw %d states", len(oa.states))
		}
		for _, st := range oa.states {
			if st.ID == 0 {
				t.Errorf("state without an id: %v", st)
			}
		}
		// The silent state got a stop referencing it.
		stopped := false
		for _, s := range oa.stops {
			stopped = stopped || s.Ref == oa.states[1].ID
		}
		if !stopped {
			t.Errorf("no stop referenced the state South kept silent on (%d); stops %v", oa.states[1].ID, oa.stops)
		}
		// Replay: South's moves are its last choices where it chose.
		i := 0
		for _, m := range g.Record.Moves {
			if m.Side != kalah.South || i >= len(want) {
				continue
			}
			if want[i] != kalah.NoMove && kalah.Move(m.House) != want[i] {
				t.Errorf("South's move %d is %d, want its last choice %v", i+1, m.House, want[i])
			}
			i++
		}
		if oa.result == "" || ob.result == "" || oa.termination != "normal" || ob.termination != "normal" {
			t.Errorf("results: South %q/%q, North %q/%q", oa.result, oa.termination, ob.result, ob.termination)
		}
	})
}

// 021 with a client that never moves: the server moves at random for it
// a few times, then adjudicates that it has abandoned the game.
func TestKGP021Abandoned(t *testing.T) {
	forEachTransport(t, func(t *testing.T, how string) {
		e := newKGPEnv(t, 200*time.Millisecond, &kgp.Server{MaxRandomMoves: 2})
		a, b := e.dial(how), e.dial(how)
		silent := func(kgp.Command, kalah.Position, int) []string { return nil }
		oa, ob, g := e.game(how, a, b, silent, firstMove, nil, nil)
		if g.Record.Termination != kalah.Disconnect {
			t.Fatalf("termination %v, want disconnect (abandoned)", g.Record.Termination)
		}
		if oa.result != "loss" || ob.result != "win" || oa.termination != "disconnect" {
			t.Errorf("told South %q/%q, North %q/%q", oa.result, oa.termination, ob.result, ob.termination)
		}
		if len(oa.states) != 3 {
			t.Errorf("South was asked %d times, want 3 (two random moves, then abandoned)", len(oa.states))
		}
	})
}

// 041: info:name is a codename, not an identity: two anonymous clients
// with one name play each other, and are shown under distinct labels.
func TestKGP041SameName(t *testing.T) {
	forEachTransport(t, func(t *testing.T, how string) {
		e := newKGPEnv(t, time.Second, &kgp.Server{})
		a, b := e.dial(how), e.dial(how)
		name := []string{`set info:name "template bot"`}
		oa, ob, g := e.game(how, a, b, firstMove, firstMove, name, name)
		if g.Record.Termination != kalah.Normal {
			t.Fatalf("termination %v", g.Record.Termination)
		}
		if g.Seats[0].Name != "kgp-template-bot" || g.Seats[1].Name != "kgp-template-bot-2" {
			t.Errorf("seats %q and %q, want kgp-template-bot and kgp-template-bot-2", g.Seats[0].Name, g.Seats[1].Name)
		}
		if oa.result == "" || ob.result == "" {
			t.Errorf("results %q and %q", oa.result, ob.result)
		}
	})
}

// 043: auth:token is the identity. A new token registers a bot under the
// client's name, the same token logs in as it again whatever the name,
// the token of a bot made on our line protocol logs it in too, weak tokens
// and a name held by another token are refused with the reason, and
// auth:forget makes the server forget the token.
func TestKGP043Auth(t *testing.T) {
	forEachTransport(t, func(t *testing.T, how string) {
		e := newKGPEnv(t, time.Second, &kgp.Server{})
		ctx := context.Background()
		token := "tok-" + how + "-0123456789"
		_, _, g := e.game(how, e.dial(how), e.dial(how), firstMove, firstMove,
			[]string{"set info:name alpha", `set auth:token "` + token + `"`}, nil)
		if g.Seats[0].Name != "alpha" || g.Seats[0].Kind != "kgp" {
			t.Fatalf("South seat %q (%s), want the bot alpha", g.Seats[0].Name, g.Seats[0].Kind)
		}
		if name, err := e.ts.st.BotByToken(ctx, token); err != nil || name != "alpha" {
			t.Fatalf("token finds %q, %v", name, err)
		}

		// Refusals: each an error referencing the command, then goodbye.
		for _, tc := range []struct{ sets, want string }{
			{`21 set auth:token "short"`, "too short"},
			{`21 set info:name alpha` + "\n" + `23 set auth:token "another-token-99"`, "belongs to a bot with another token"},
		} {
			c := e.dial(how)
			c.lenient = true
			c.next()
			c.send(append(strings.Split(tc.sets, "\n"), "25 mode freeplay")...)
			er := c.expect("error")
			if !strings.Contains(er.Args[0].Text, tc.want) || er.Ref == 0 {
				t.Errorf("%s: error %v, want %q with a reference", tc.sets, er, tc.want)
			}
			if bye := c.next(); bye.Name != "goodbye" {
				t.Errorf("after the refusal: %v", bye)
			}
			c.closed()
		}

		// A bot made on our line protocol logs in by its token over KGP.
		lb := dial(t, e.ts.addr)
		lb.login("liner-"+strings.ReplaceAll(how, "-", ""), "line-token-12345")
		lb.tr.Close()
		c := e.dial(how)
		c.hello(`set auth:token "line-token-12345"`)
		e.waitQueue(1)
		deadline := time.Now().Add(5 * time.Second)
		for {
			seat := e.ts.srv.bots.Queued()[0].Seat()
			if seat.St.Name == "liner-"+strings.ReplaceAll(how, "-", "") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("line bot's token seated %q", seat.St.Name)
			}
		}
		c.close()
		e.waitQueue(0)

		// auth:forget: the token finds no bot any more.
		f := e.dial(how)
		f.hello(`set auth:token "`+token+`"`, "set auth:forget true")
		f.close()
		if _, err := e.ts.st.BotByToken(ctx, token); !errors.Is(err, store.ErrNoBot) {
			t.Errorf("after auth:forget the token still finds a bot: %v", err)
		}
	})
}

// 044 (set game:*): every player hears how its game ended, even one that
// was never asked to move because its opponent forfeited the first move.
func TestKGP044ResultForAPlayerThatNeverMoved(t *testing.T) {
	forEachTransport(t, func(t *testing.T, how string) {
		e := newKGPEnv(t, time.Second, &kgp.Server{})
		illegal := func(st kgp.Command, pos kalah.Position, n int) []string {
			return []string{fmt.Sprintf("@%d move 9", st.ID), fmt.Sprintf("@%d yield", st.ID)}
		}
		never := func(kgp.Command, kalah.Position, int) []string {
			t.Error("North was asked to move")
			return nil
		}
		oa, ob, g := e.game(how, e.dial(how), e.dial(how), illegal, never, nil, nil)
		if g.Record.Termination != kalah.IllegalMove {
			t.Fatalf("termination %v", g.Record.Termination)
		}
		if len(ob.states) != 0 || ob.result != "win" || ob.termination != "illegal-move" {
			t.Errorf("North (never moved) heard %q/%q after %d states", ob.result, ob.termination, len(ob.states))
		}
		if oa.result != "loss" || oa.termination != "illegal-move" {
			t.Errorf("South heard %q/%q", oa.result, oa.termination)
		}
		if len(oa.errors) != 1 || !strings.Contains(oa.errors[0].Args[0].Text, "illegal move 9") ||
			!strings.Contains(oa.errors[0].Args[0].Text, "no house 9") || oa.errors[0].Ref != oa.states[0].ID {
			t.Errorf("South was told %v, want an error naming the illegal move 9, referencing its state", oa.errors)
		}
	})
}

// An illegal move is named in an error before the result, referencing the
// move command when it has an id: here a house emptied by the client's own
// first move.
func TestKGPIllegalMoveIsNamed(t *testing.T) {
	forEachTransport(t, func(t *testing.T, how string) {
		e := newKGPEnv(t, time.Second, &kgp.Server{})
		sowFirstTwice := func(st kgp.Command, pos kalah.Position, n int) []string {
			return []string{fmt.Sprintf("71@%d move 1", st.ID), fmt.Sprintf("73@%d yield", st.ID)}
		}
		oa, _, g := e.game(how, e.dial(how), e.dial(how), sowFirstTwice, firstMove, nil, nil)
		if g.Record.Termination != kalah.IllegalMove {
			t.Fatalf("termination %v after %d moves", g.Record.Termination, len(g.Record.Moves))
		}
		if len(oa.errors) != 1 {
			t.Fatalf("South was told %v, want one error", oa.errors)
		}
		er := oa.errors[0]
		if er.Ref != 71 || !strings.Contains(er.Args[0].Text, "illegal move 1") || !strings.Contains(er.Args[0].Text, "house 1 is empty") {
			t.Errorf("error %v, want one referencing 71 that names the move and why", er)
		}
		// The error comes before the stop of the state the move answered
		// (ids grow in the order the server sends).
		last := oa.states[len(oa.states)-1]
		for _, st := range oa.stops {
			if st.Ref == last.ID && st.ID < er.ID {
				t.Errorf("stop %v of state %d came before the error %v", st, last.ID, er)
			}
		}
		if oa.result != "loss" || oa.termination != "illegal-move" {
			t.Errorf("South heard %q/%q", oa.result, oa.termination)
		}
	})
}

// A second connection of one bot (the same auth:token, two copies
// started) while the first waits for a game is refused with the reason:
// an error referencing its mode, then goodbye, never ok.
func TestKGPSecondLoginIsRefused(t *testing.T) {
	forEachTransport(t, func(t *testing.T, how string) {
		e := newKGPEnv(t, time.Second, &kgp.Server{})
		token := `set auth:token "twin-token-` + how + `"`
		first := e.dial(how)
		first.hello("set info:name twin", token)
		e.waitQueue(1)
		second := e.dial(how)
		second.lenient = true
		second.next()
		second.send("set info:name twin", token, "1001 mode freeplay")
		er := second.next()
		if er.Name != "error" || er.Ref != 1001 || !strings.Contains(er.Args[0].Text, "already waiting for a game") {
			t.Fatalf("second login answered %v, want an error referencing mode that gives the reason", er)
		}
		if bye := second.next(); bye.Name != "goodbye" {
			t.Fatalf("after the refusal: %v", bye)
		}
		second.closed()
		e.waitQueue(1) // the first still waits
	})
}

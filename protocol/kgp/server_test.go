package kgp_test

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"kalah"
	_ "kalah/heuristic"
	"kalah/player"
	"kalah/protocol/kgp"
	"kalah/referee"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pairer is a tiny matchmaker: it pairs clients as they join and plays
// each pair through the referee, the first to join as South.
type pairer struct {
	t       *testing.T
	rules   kalah.Rules
	ref     referee.Referee
	mu      sync.Mutex
	waiting *seat
	results chan *referee.Outcome
}

type seat struct {
	c    *kgp.Client
	done chan struct{}
}

func newPairer(t *testing.T, r kalah.Rules) *pairer {
	return &pairer{t: t, rules: r, results: make(chan *referee.Outcome, 4)}
}

func (p *pairer) join(ctx context.Context, c *kgp.Client) {
	p.mu.Lock()
	if p.waiting == nil {
		s := &seat{c: c, done: make(chan struct{})}
		p.waiting = s
		p.mu.Unlock()
		select {
		case <-s.done:
		case <-ctx.Done():
		}
		return
	}
	first := p.waiting
	p.waiting = nil
	p.mu.Unlock()
	defer close(first.done)
	g, err := kalah.NewGame(p.rules)
	if err != nil {
		p.t.Error(err)
		return
	}
	g.Players = [2]string{first.c.Name(), c.Name()}
	out, err := p.ref.Play(ctx, g, [2]player.Player{first.c, c})
	if err != nil {
		p.t.Errorf("referee: %v", err)
	}
	p.results <- out
}

func startServer(t *testing.T, s *kgp.Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, kgp.ErrServerClosed) {
			t.Errorf("serve returned %v", err)
		}
	})
	return l.Addr().String()
}

func newPlayer(t *testing.T, spec string, r kalah.Rules) player.Player {
	t.Helper()
	p, err := player.New(spec, player.Options{Rules: r, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkChoices replays the game and checks that every move a seat made is
// the one its deterministic player picks in that position: proof that the
// boards went out mirrored correctly and the moves came back unchanged.
func checkChoices(t *testing.T, out *referee.Outcome, r kalah.Rules, specs [2]string) {
	t.Helper()
	g, _ := kalah.NewGame(r)
	for i, m := range out.Moves {
		p := newPlayer(t, specs[m.Seat], r)
		if len(g.Legal()) > 1 {
			want, err := p.Move(context.Background(), g.Clone(), player.Clock{})
			if err != nil {
				t.Fatal(err)
			}
			if want != m.Move {
				t.Fatalf("move %d by seat %d (%s): got %s, %s would play %s in %s", i+1, m.Seat, specs[m.Seat], m.Move, specs[m.Seat], want, g.Position())
			}
		}
		if _, err := g.Play(m.Move); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTwoBotsPlayAGameOverTCP(t *testing.T) {
	r, _ := kalah.PresetRules("kgp")
	r.Houses, r.Seeds = 6, 4 // a shorter game
	pr := newPairer(t, r)
	srv := &kgp.Server{Logger: quiet, Join: pr.join, MoveTime: 2 * time.Second}
	addr := startServer(t, srv)
	specs := [2]string{"greedy", "pekar"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	errs := make(chan error, 2)
	for i, spec := range specs {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		b := &kgp.Bot{Name: "bot-" + spec, Authors: "the tests", Player: newPlayer(t, spec, r), Rules: r}
		go func() { errs <- b.Play(ctx, conn) }()
		if i == 0 {
			waitFor(t, func() bool { pr.mu.Lock(); defer pr.mu.Unlock(); return pr.waiting != nil })
		}
	}
	var out *referee.Outcome
	select {
	case out = <-pr.results:
	case <-ctx.Done():
		t.Fatal("no game played")
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("bot: %v", err)
		}
	}
	g := out.Game
	if !g.Over() || g.Termination() != kalah.Normal {
		t.Fatalf("game ended %v (%v): %v", g.Termination(), out.Reason, g)
	}
	if g.Players != [2]string{"bot-greedy", "bot-pekar"} {
		t.Errorf("players %q, want the names the bots set", g.Players)
	}
	if len(out.Moves) < 10 {
		t.Errorf("only %d moves", len(out.Moves))
	}
	checkChoices(t, out, r, specs)
}

func TestBotsPlayOverWebSocket(t *testing.T) {
	r, _ := kalah.PresetRules("kgp")
	r.Houses, r.Seeds = 4, 3
	pr := newPairer(t, r)
	srv := &kgp.Server{Logger: quiet, Join: pr.join}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	specs := [2]string{"pekar", "greedy"}
	errs := make(chan error, 2)
	for i, spec := range specs {
		ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
		if err != nil {
			t.Fatal(err)
		}
		conn := websocket.NetConn(ctx, ws, websocket.MessageText)
		b := &kgp.Bot{Name: spec, Player: newPlayer(t, spec, r), Rules: r}
		go func() { errs <- b.Play(ctx, conn) }()
		if i == 0 {
			waitFor(t, func() bool { pr.mu.Lock(); defer pr.mu.Unlock(); return pr.waiting != nil })
		}
	}
	out := <-pr.results
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("bot: %v", err)
		}
	}
	if out.Game.Termination() != kalah.Normal {
		t.Fatalf("game ended %v: %v", out.Game.Termination(), out.Reason)
	}
	checkChoices(t, out, r, specs)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// raw is a hand-driven client for hostile tests.
type raw struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *raw {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &raw{t: t, conn: c, r: bufio.NewReader(c)}
}

func (r *raw) send(s string) {
	r.t.Helper()
	if _, err := r.conn.Write([]byte(s)); err != nil {
		r.t.Fatal(err)
	}
}

// expect reads lines until one starts with (after any id) the given
// command text, and returns it parsed.
func (r *raw) expect(name string) kgp.Command {
	r.t.Helper()
	r.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		line, err := r.r.ReadString('\n')
		if err != nil {
			r.t.Fatalf("waiting for %q: %v", name, err)
		}
		if !strings.HasSuffix(line, "\r\n") {
			r.t.Fatalf("line %q does not end in CRLF", line)
		}
		c, err := kgp.Parse(line)
		if err != nil {
			r.t.Fatalf("server sent %q: %v", line, err)
		}
		if c.Name == name {
			return c
		}
	}
}

// closed reports whether the server closed the connection (after reading
// whatever was left).
func (r *raw) closed() bool {
	r.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, err := r.r.ReadString('\n'); err != nil {
			var ne net.Error
			return !(errors.As(err, &ne) && ne.Timeout())
		}
	}
}

func TestHandshake(t *testing.T) {
	joined := make(chan *kgp.Client, 1)
	srv := &kgp.Server{Logger: quiet, Join: func(ctx context.Context, c *kgp.Client) { joined <- c }, HandshakeTimeout: 300 * time.Millisecond}
	addr := startServer(t, srv)

	t.Run("greeting and name", func(t *testing.T) {
		c := dialRaw(t, addr)
		g := c.expect("kgp")
		if g.ID == 0 || g.ID%2 != 0 || len(g.Args) != 3 || g.Args[0].Int != 1 {
			t.Fatalf("greeting %v", g)
		}
		c.send("set info:name \"Deep \\\"Kalah\\\"\"\r\nset info:authors \"A. N. Author\"\r\nset some:option 3\r\nmode freeplay\r\n")
		cl := <-joined
		if cl.Name() != `Deep "Kalah"` || cl.Authors() != "A. N. Author" {
			t.Errorf("name %q authors %q", cl.Name(), cl.Authors())
		}
		c.expect("goodbye")
		if !c.closed() {
			t.Error("connection left open after goodbye")
		}
	})
	t.Run("quoted words and ids, as the KWARC Python client sends them", func(t *testing.T) {
		c := dialRaw(t, addr)
		c.expect("kgp")
		c.send("1 set \"info:name\" \"py bot\"\r\n3 set \"info:authors\" \"A,B\"\r\n5 mode \"freeplay\"\r\n")
		cl := <-joined
		if cl.Name() != "py bot" || cl.Authors() != "A,B" {
			t.Errorf("name %q authors %q", cl.Name(), cl.Authors())
		}
		c.expect("goodbye")
	})
	t.Run("unsupported mode", func(t *testing.T) {
		c := dialRaw(t, addr)
		c.expect("kgp")
		c.send("mode evaluate\r\n")
		e := c.expect("error")
		if len(e.Args) != 1 || !strings.Contains(e.Args[0].Text, "Unsupported activity") {
			t.Errorf("error %v", e)
		}
		c.expect("goodbye")
		if !c.closed() {
			t.Error("connection left open")
		}
	})
	t.Run("no mode in time", func(t *testing.T) {
		c := dialRaw(t, addr)
		c.expect("kgp")
		c.expect("error")
		c.expect("goodbye")
		if !c.closed() {
			t.Error("connection left open")
		}
	})
	t.Run("garbage", func(t *testing.T) {
		// A server of its own, so that the short handshake timeout above
		// cannot end the connection while the garbage is still arriving.
		c := dialRaw(t, startServer(t, &kgp.Server{Logger: quiet}))
		c.expect("kgp")
		c.send("\x00\xff\xfe garbage\r\n")
		c.expect("error")
		c.send(strings.Repeat("x", 3*kgp.MaxLine) + "\r\n")
		c.expect("error")
		c.send("12@ move\r\nmove 3\r\n\"unterminated\r\n")
		for range 3 {
			c.expect("error")
		}
		// The connection survives bad lines until too many.
		c.send(strings.Repeat("!!\r\n", 40))
		if !c.closed() {
			t.Error("a client sending only garbage is never dropped")
		}
	})
	t.Run("vanish", func(t *testing.T) {
		c := dialRaw(t, addr)
		c.expect("kgp")
		c.conn.Close()
	})
}

// TestHostileInGame plays a well-behaved bot against a scripted client that
// misbehaves in a given way, and checks how the game ends.
func TestHostileInGame(t *testing.T) {
	r, _ := kalah.PresetRules("kgp")
	r.Houses, r.Seeds = 4, 3
	tests := []struct {
		name string
		act  func(c *raw, state kgp.Command) bool // false: stop acting
		term kalah.Termination
	}{
		{"illegal move", func(c *raw, st kgp.Command) bool {
			c.send("@" + itoa(st.ID) + " move 9\r\n@" + itoa(st.ID) + " yield\r\n")
			return true
		}, kalah.IllegalMove},
		// Without a move of its own the server moves at random (021); a
		// client that never sends one has abandoned its game.
		{"silence", func(c *raw, st kgp.Command) bool { return true }, kalah.Disconnect},
		{"yield without move", func(c *raw, st kgp.Command) bool {
			c.send("@" + itoa(st.ID) + " yield\r\n")
			return true
		}, kalah.Disconnect},
		{"disconnect", func(c *raw, st kgp.Command) bool {
			c.conn.Close()
			return false
		}, kalah.Disconnect},
		{"wrong reference", func(c *raw, st kgp.Command) bool {
			c.send("@" + itoa(st.ID+100) + " move 1\r\n")
			return true
		}, kalah.Disconnect},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr := newPairer(t, r)
			srv := &kgp.Server{Logger: quiet, Join: pr.join, MoveTime: time.Second, MaxRandomMoves: 1}
			addr := startServer(t, srv)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// The hostile client joins first and so plays South, moving first.
			c := dialRaw(t, addr)
			c.expect("kgp")
			c.send("set info:name hostile\r\nmode freeplay\r\n")
			waitFor(t, func() bool { pr.mu.Lock(); defer pr.mu.Unlock(); return pr.waiting != nil })
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			b := &kgp.Bot{Name: "good", Player: newPlayer(t, "greedy", r), Rules: r}
			botErr := make(chan error, 1)
			go func() { botErr <- b.Play(ctx, conn) }()
			st := c.expect("state")
			if got, want := st.Args[0].Text, kalah.KGPBoard(r.Start()); got != want {
				t.Errorf("first state %s, want %s", got, want)
			}
			for tc.act(c, st) {
				// Act on every state until the game is over.
				next := c.expectOneOf("state", "goodbye")
				if next.Name == "goodbye" {
					break
				}
				st = next
			}
			out := <-pr.results
			if got := out.Game.Termination(); got != tc.term {
				t.Errorf("termination %v (%v), want %v", got, out.Reason, tc.term)
			}
			if w, _ := out.Game.Result().Winner(); w != kalah.North {
				t.Errorf("result %v, want the good bot (North) to win", out.Game.Result())
			}
			if err := <-botErr; err != nil {
				t.Errorf("good bot: %v", err)
			}
		})
	}
}

// TestOpponentIsToldOfTheForfeit checks that the bot that stays learns the
// game's end through set game:result.
func TestOpponentIsToldOfTheForfeit(t *testing.T) {
	r, _ := kalah.PresetRules("kgp")
	r.Houses, r.Seeds = 4, 3
	pr := newPairer(t, r)
	srv := &kgp.Server{Logger: quiet, Join: pr.join, MoveTime: 2 * time.Second}
	addr := startServer(t, srv)
	a := dialRaw(t, addr)
	a.expect("kgp")
	a.send("mode freeplay\r\n")
	waitFor(t, func() bool { pr.mu.Lock(); defer pr.mu.Unlock(); return pr.waiting != nil })
	b := dialRaw(t, addr)
	b.expect("kgp")
	b.send("mode freeplay\r\n")
	st := a.expect("state")
	a.send("@" + itoa(st.ID) + " move 1\r\n@" + itoa(st.ID) + " yield\r\n")
	// South's house 1 of 3 seeds: 4 houses, no extra turn, so North moves.
	st = b.expect("state")
	if got := st.Args[0].Text; got != "<4,0,0,3,3,3,3,0,4,4,4>" {
		t.Errorf("North sees %s, want the board mirrored: <4,0,0,3,3,3,3,0,4,4,4>", got)
	}
	a.conn.Close()
	b.send("@" + itoa(st.ID) + " move 1\r\n@" + itoa(st.ID) + " yield\r\n")
	res := b.expect("set")
	for res.Args[0].Text != "game:result" {
		res = b.expect("set")
	}
	if res.Args[1].Text != "win" {
		t.Errorf("survivor told %v", res)
	}
	out := <-pr.results
	if out.Game.Termination() != kalah.Disconnect {
		t.Errorf("termination %v", out.Game.Termination())
	}
	b.expect("goodbye")
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

var quiet = slog.New(slog.DiscardHandler)

func TestIdleClientIsDropped(t *testing.T) {
	joined := make(chan *kgp.Client, 2)
	srv := &kgp.Server{Logger: quiet, IdleTimeout: 500 * time.Millisecond, PingInterval: 50 * time.Millisecond,
		Join: func(ctx context.Context, c *kgp.Client) {
			joined <- c
			<-c.Done()
		}}
	addr := startServer(t, srv)

	// A client that answers pings stays on past the idle timeout.
	live := dialRaw(t, addr)
	live.expect("kgp")
	live.send("mode freeplay\r\n")
	lc := <-joined
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		p := live.expect("ping")
		if p.ID == 0 {
			t.Fatal("ping without an id")
		}
		live.send("@" + itoa(p.ID) + " pong\r\n")
	}
	select {
	case <-lc.Done():
		t.Fatal("a client answering pings was dropped")
	default:
	}

	// One that says nothing is dropped.
	dead := dialRaw(t, addr)
	dead.expect("kgp")
	dead.send("mode freeplay\r\n")
	dc := <-joined
	select {
	case <-dc.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a silent client was never dropped")
	}
	live.conn.Close()
}

// TestBudgetIsShared checks that a client that never yields, as anytime
// bots do, is stopped after a share of its budget each move rather than
// losing it all on the first.
func TestBudgetIsShared(t *testing.T) {
	r, _ := kalah.PresetRules("kgp")
	r.Houses, r.Seeds = 4, 3
	pr := newPairer(t, r)
	pr.ref.Budget = 4 * time.Second
	pr.ref.Grace = 100 * time.Millisecond
	srv := &kgp.Server{Logger: quiet, Join: pr.join}
	addr := startServer(t, srv)
	c := dialRaw(t, addr)
	c.expect("kgp")
	c.send("mode freeplay\r\n")
	waitFor(t, func() bool { pr.mu.Lock(); defer pr.mu.Unlock(); return pr.waiting != nil })
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b := &kgp.Bot{Name: "good", Player: newPlayer(t, "greedy", r), Rules: r}
	botErr := make(chan error, 1)
	go func() { botErr <- b.Play(ctx, conn) }()
	states := 0
	for {
		cmd := c.expectAny()
		if cmd.Name == "goodbye" {
			break
		}
		if cmd.Name != "state" {
			continue
		}
		states++
		pos, err := kalah.ParseKGPBoard(cmd.Args[0].Text)
		if err != nil {
			t.Fatal(err)
		}
		c.send("@" + itoa(cmd.ID) + " move " + pos.Moves()[0].String() + "\r\n")
	}
	out := <-pr.results
	if out.Game.Termination() != kalah.Normal {
		t.Fatalf("game ended %v (%v) after %d states", out.Game.Termination(), out.Reason, states)
	}
	if states < 2 || out.Remaining[0] <= 0 {
		t.Errorf("%d states, %v left", states, out.Remaining[0])
	}
	if err := <-botErr; err != nil {
		t.Error(err)
	}
}

// expectOneOf reads lines until a command with one of the names.
func (r *raw) expectOneOf(names ...string) kgp.Command {
	r.t.Helper()
	for {
		c := r.expectAny()
		for _, n := range names {
			if c.Name == n {
				return c
			}
		}
	}
}

// expectAny reads the next command.
func (r *raw) expectAny() kgp.Command {
	r.t.Helper()
	r.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := r.r.ReadString('\n')
	if err != nil {
		r.t.Fatalf("reading: %v", err)
	}
	c, err := kgp.Parse(line)
	if err != nil {
		r.t.Fatalf("server sent %q: %v", line, err)
	}
	return c
}

func TestServerFull(t *testing.T) {
	srv := &kgp.Server{Logger: quiet, MaxClients: 1, Join: func(ctx context.Context, c *kgp.Client) { <-c.Done() }}
	addr := startServer(t, srv)
	first := dialRaw(t, addr)
	first.expect("kgp")
	second := dialRaw(t, addr)
	e := second.expect("error")
	if !strings.HasPrefix(e.Args[0].Text, "server full") {
		t.Errorf("second client told %v", e)
	}
	second.expect("goodbye")
	if !second.closed() {
		t.Error("second connection left open")
	}
	first.conn.Close()
}

func TestWebSocketGarbage(t *testing.T) {
	srv := &kgp.Server{Logger: quiet, HandshakeTimeout: 2 * time.Second}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	read := func() string {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return string(b)
	}
	if got := read(); got != "2 kgp 1 0 1\r\n" {
		t.Fatalf("greeting %q", got)
	}
	ws.Write(ctx, websocket.MessageText, []byte("@@@\r\n"))
	if got := read(); !strings.HasPrefix(got, "4 error ") {
		t.Errorf("garbage answered %q", got)
	}
	// A message beyond the size limit ends the connection.
	ws.Write(ctx, websocket.MessageText, []byte(strings.Repeat("x", 5*kgp.MaxLine)))
	for {
		if _, _, err := ws.Read(ctx); err != nil {
			break
		}
	}
}

package kgp_test

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"kalah"
	"kalah/protocol/kgp"
	"kalah/protocol/kgp/kgptest"
)

// dialBoth connects to the reference stand-in over TCP or WebSocket.
func dial(t *testing.T, ctx context.Context, addr string) io.ReadWriteCloser {
	t.Helper()
	if strings.HasPrefix(addr, "ws://") {
		ws, _, err := websocket.Dial(ctx, addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		return websocket.NetConn(context.WithoutCancel(ctx), ws, websocket.MessageText)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// playRef plays one bot against a kgptest.RefServer and returns what the
// server saw and what the bot reported.
func playRef(t *testing.T, ref *kgptest.RefServer, ws bool, b *kgp.Bot) (kgptest.Result, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tcp, wsURL, results, stop := ref.Start(ctx)
	defer stop()
	addr := tcp
	if ws {
		addr = wsURL
	}
	var mu sync.Mutex
	var reports []string
	b.OnError = func(msg string) {
		mu.Lock()
		reports = append(reports, msg)
		mu.Unlock()
	}
	if err := b.Play(ctx, dial(t, ctx, addr)); err != nil {
		t.Fatalf("play: %v", err)
	}
	res := <-results
	mu.Lock()
	defer mu.Unlock()
	return res, reports
}

// TestBotWaitsForTheServerToRegister plays a bot whose player answers at
// once against a server that registers each state 5 ms after sending it,
// as the reference server may on a busy machine: without the hold, moves
// arrive first and are lost.
func TestBotWaitsForTheServerToRegister(t *testing.T) {
	r, _ := kalah.PresetRules("kgp")
	for _, ws := range []bool{false, true} {
		name := map[bool]string{false: "tcp", true: "websocket"}[ws]
		t.Run(name, func(t *testing.T) {
			ref := &kgptest.RefServer{Register: 5 * time.Millisecond, States: 60, Seed: 3, Timeout: 500 * time.Millisecond, Late: kgp.DefaultHold}
			b := &kgp.Bot{Name: "quick", Player: newPlayer(t, "greedy", r), Rules: r, Logger: quiet}
			res, reports := playRef(t, ref, ws, b)
			if len(res.Late) > 0 {
				// The stand-in's sleep overshot the hold (a loaded
				// machine): what those states lost is the server's delay.
				t.Logf("%d states registered after the hold (%v); server errors %q; bot reported %q", len(res.Late), res.Late, res.Errors, reports)
				res, reports = res.Excused(), nil
			}
			if err := res.Check(); err != nil {
				t.Errorf("%v; server errors %q", err, res.Errors)
			}
			if res.Answered != 60 || res.Yielded != 60 || len(res.Errors) != 0 || len(reports) != 0 {
				t.Errorf("answered %d, yielded %d of 60; server errors %q; bot reported %q", res.Answered, res.Yielded, res.Errors, reports)
			}
		})
	}
}

// TestBotSendsAgainWhatTheServerLost: a server slower to register than the
// bot's hold refuses the first answers; the bot sends them again while the
// state is open, so no move is lost, and tells the user of every error.
// The bot once sent a refused move again with its yield right behind it:
// on a loaded machine the server registered the state between the two now
// and then, refused the move and took the yield ("the server lost our move
// 6 for state 126"); now the yield waits for the move's refusal, if any.
func TestBotSendsAgainWhatTheServerLost(t *testing.T) {
	r, _ := kalah.PresetRules("kgp")
	for _, ws := range []bool{false, true} {
		name := map[bool]string{false: "tcp", true: "websocket"}[ws]
		t.Run(name, func(t *testing.T) {
			ref := &kgptest.RefServer{Register: 70 * time.Millisecond, States: 12, Seed: 4, Timeout: 500 * time.Millisecond}
			b := &kgp.Bot{Name: "quick", Player: newPlayer(t, "greedy", r), Rules: r, Logger: quiet}
			res, reports := playRef(t, ref, ws, b)
			if err := res.Check(); err != nil {
				t.Errorf("%v; server errors %q", err, res.Errors)
			}
			if len(res.Errors) == 0 {
				t.Fatal("the server refused nothing: the test does not test the resend")
			}
			said := strings.Join(reports, "\n")
			if !strings.Contains(said, "No state associated with id") || !strings.Contains(said, " again in ") {
				t.Errorf("the bot reported %q", reports)
			}
			if strings.Contains(said, "lost our move") {
				t.Errorf("a move was lost: %q", reports)
			}
		})
	}
}

// TestBotReportsALostMove: the bot sends a move the server refused again
// before its yield; when the server refuses it every time and then takes
// the yield, the server decided without the bot, which says so when the
// state stops.
func TestBotReportsALostMove(t *testing.T) {
	r, _ := kalah.PresetRules("kgp")
	var mu sync.Mutex
	var reports []string
	b := &kgp.Bot{Name: "quick", Player: newPlayer(t, "greedy", r), Rules: r, Logger: quiet, Hold: time.Millisecond,
		OnError: func(msg string) {
			mu.Lock()
			reports = append(reports, msg)
			mu.Unlock()
		}}
	srv, cli := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- b.Play(context.Background(), cli) }()
	rd := newLineReader(srv)
	send := func(s string) { io.WriteString(srv, s+"\r\n") }
	send("2 kgp 1 0 1")
	mode := rd.until(t, "mode")
	send("4@" + itoa(mode.ID) + " ok")
	send("6 state <6,0,0,4,4,4,4,4,4,4,4,4,4,4,4>")
	for id := 8; ; id += 2 {
		c := rd.until(t, "") // the next command
		if c.Name == "yield" {
			break // taken: the server decides without the move
		}
		if c.Name == "move" {
			send(itoa(uint64(id)) + "@" + itoa(c.ID) + ` error "No state associated with id"`)
		}
	}
	send("100@6 stop")
	send("102 goodbye")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	said := strings.Join(reports, "\n")
	if !strings.Contains(said, "lost our move") || !strings.Contains(said, "state 6") {
		t.Errorf("the bot reported %q", reports)
	}
}

// TestBotYieldsOnlyAfterItsMoveWasTaken plays the server of the flake a
// loaded machine showed: it refuses the bot's first answers (the state not
// registered yet), its second move too, and registers the state right
// after, so a yield right behind that move is taken and the move lost (the
// bot sent a refused move again with its yield right behind). The bot
// waits for the move's refusal before its yield, sends the move again, and
// the server takes it: nothing is lost.
func TestBotYieldsOnlyAfterItsMoveWasTaken(t *testing.T) {
	r, _ := kalah.PresetRules("kgp")
	var mu sync.Mutex
	var reports []string
	b := &kgp.Bot{Name: "quick", Player: newPlayer(t, "greedy", r), Rules: r, Logger: quiet, Hold: 5 * time.Millisecond,
		OnError: func(msg string) {
			mu.Lock()
			reports = append(reports, msg)
			mu.Unlock()
		}}
	srv, cli := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- b.Play(context.Background(), cli) }()
	rd := newLineReader(srv)
	send := func(s string) { io.WriteString(srv, s+"\r\n") }
	send("2 kgp 1 0 1")
	mode := rd.until(t, "mode")
	send("4@" + itoa(mode.ID) + " ok")
	send("6 state <6,0,0,4,4,4,4,4,4,4,4,4,4,4,4>")
	id := uint64(8)
	refuse := func(c kgp.Command) {
		send(itoa(id) + "@" + itoa(c.ID) + ` error "No state associated with id"`)
		id += 2
	}
	var seq []string
	movesRefused, taken := 0, false
	for {
		c := rd.until(t, "")
		if c.Name != "move" && c.Name != "yield" {
			continue
		}
		seq = append(seq, c.Name)
		registered := movesRefused >= 2
		switch {
		case !registered && c.Name == "move":
			movesRefused++
			refuse(c)
		case !registered:
			refuse(c)
		case c.Name == "move":
			taken = true
		}
		if registered && c.Name == "yield" {
			break
		}
	}
	send(itoa(id) + "@6 stop")
	send(itoa(id+2) + " goodbye")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !taken {
		t.Errorf("the server took the yield and no move (the bot sent %v); the bot reported %q", seq, reports)
	}
	if strings.Contains(strings.Join(reports, "\n"), "lost our move") {
		t.Errorf("a move was lost: %q", reports)
	}
}

// TestBotShowsEveryServerError: any error the server sends reaches the
// user, not only a debug log.
func TestBotShowsEveryServerError(t *testing.T) {
	var mu sync.Mutex
	var reports []string
	b := &kgp.Bot{Name: "x", Logger: quiet, OnError: func(msg string) {
		mu.Lock()
		reports = append(reports, msg)
		mu.Unlock()
	}}
	srv, cli := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- b.Play(context.Background(), cli) }()
	rd := newLineReader(srv)
	io.WriteString(srv, "2 kgp 1 0 1\r\n")
	mode := rd.until(t, "mode")
	io.WriteString(srv, "4@"+itoa(mode.ID)+" error \"already playing or queued\"\r\n6 goodbye\r\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 1 || !strings.Contains(reports[0], "already playing or queued") {
		t.Errorf("the bot reported %q", reports)
	}
}

// lineReader reads a client's commands from the server's end of a pipe.
type lineReader struct {
	lines chan string
}

func newLineReader(c net.Conn) *lineReader {
	r := &lineReader{lines: make(chan string, 64)}
	go func() {
		defer close(r.lines)
		buf := make([]byte, 4096)
		var acc string
		for {
			n, err := c.Read(buf)
			acc += string(buf[:n])
			for {
				i := strings.IndexByte(acc, '\n')
				if i < 0 {
					break
				}
				r.lines <- strings.TrimRight(acc[:i], "\r")
				acc = acc[i+1:]
			}
			if err != nil {
				return
			}
		}
	}()
	return r
}

// until returns the next command called name, skipping others (any
// command if name is empty).
func (r *lineReader) until(t *testing.T, name string) kgp.Command {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case l, ok := <-r.lines:
			if !ok {
				t.Fatalf("connection closed before %s", name)
			}
			c, err := kgp.Parse(l)
			if err == nil && (c.Name == name || name == "") {
				return c
			}
		case <-timeout:
			t.Fatalf("no %s within 5s", name)
		}
	}
}

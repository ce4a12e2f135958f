package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah/internal/store"
	"kalah/server"
)

// TestKillNineGraceForEverySeat: after kill -9, each seat of a resumed
// game has the whole resume grace before its clock runs, whichever of
// the two comes back first and whichever is to move. 100 live games
// between kalah bot clients; after the restart one bot of each game is
// back at once and the other only at half the grace, later than a move
// may take (3 s). The bot back first plays on if it is to move; the
// other's clock waits for it, exactly as stored; every game ends
// normally, nobody charged for the time away.
func TestKillNineGraceForEverySeat(t *testing.T) {
	const games = 100
	const grace = 12 * time.Second
	const perMove = 3 * time.Second
	const budget = 60 * time.Second
	// A bot answers in milliseconds (a loaded machine's slowest, over a
	// second): a move's time beyond this after the restart is the
	// server's downtime or an absence charged.
	const slack = 1500
	bin := buildKalah(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	httpPort, botPort := freePort(t), freePort(t)
	start := func() (*exec.Cmd, chan error, *syncBuffer) {
		var stderr syncBuffer
		cmd := exec.Command(bin, "serve", "--data", data, "--addr", fmt.Sprintf("127.0.0.1:%d", httpPort),
			"--bot-addr", fmt.Sprintf("127.0.0.1:%d", botPort), "--kgp-addr", "0", "--time", perMove.String(),
			"--budget", budget.String(), "--delay", "150ms", "--resume-grace", grace.String(),
			"--login-rate", "100", "--login-burst", "1000")
		cmd.Env = append(os.Environ(), "KALAH_LOG=warn")
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			cmd.Process.Kill()
			<-exited
			exited <- nil
		})
		return cmd, exited, &stderr
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	live := func() ([]server.GameInfo, bool) {
		var gs []server.GameInfo
		if err := getJSONErr(base+"/api/games?status=live&limit=1000", &gs); err != nil {
			return nil, false
		}
		return gs, true
	}
	// Each bot reaches the server through a gate of its own, so the test
	// says when each comes back.
	gates := make([]*gate, 2*games)
	for i := range gates {
		gates[i] = newGate(t, fmt.Sprintf("127.0.0.1:%d", botPort))
		gates[i].open()
	}
	cmd, exited, first := start()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, ok := live(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start\n%s", first.String())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	outs := make([]syncBuffer, 2*games)
	codes := make([]int, 2*games)
	for i := range 2 * games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = run(ctx, []string{"bot", "--server", gates[i].addr, "--name", fmt.Sprintf("bot%03d", i),
				"--token", fmt.Sprintf("token-%03d-secret", i), "--player", []string{"greedy", "first"}[i%2], "--games", "1"},
				strings.NewReader(""), &outs[i], &outs[i])
		}()
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if gs, _ := live(); len(gs) == games {
			break
		}
		if time.Now().After(deadline) {
			gs, _ := live()
			t.Fatalf("%d of %d games live", len(gs), games)
		}
	}
	time.Sleep(time.Second) // a few moves into every game
	for _, g := range gates {
		g.shut()
	}
	cmd.Process.Kill() // kill -9
	<-exited
	exited <- nil

	want := storedClocks(t, filepath.Join(data, "kalah.db"), budget)
	if len(want) != games {
		t.Fatalf("%d games stored live, want %d", len(want), games)
	}
	plies, bots := storedSeats(t, filepath.Join(data, "kalah.db"))
	// One bot of each game comes back at once, the other at half the
	// grace: the seat back first is South's in half the games, North's in
	// the others, so that it is the one to move in some and not in others.
	early := map[int64]int{}
	for id := range want {
		early[id] = int(id % 2)
	}
	_, _, stderr := start()
	restarted := time.Now()
	for deadline := time.Now().Add(grace / 4); ; time.Sleep(20 * time.Millisecond) {
		if _, ok := live(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start again\n%s", stderr.String())
		}
	}
	for id, e := range early {
		gates[bots[id][e]].open()
	}
	// The early bots are back and play on where they are to move; the
	// others' clocks wait.
	time.Sleep(grace / 4)
	boards := liveBoards(base)
	if len(boards) != games {
		t.Fatalf("%d of %d games live after the restart\n%s", len(boards), games, stderr.String())
	}
	earlyMoved := 0
	for id, b := range boards {
		e, late := early[id], 1-early[id]
		if b.Running == late || b.RemainingMS[late] != want[id][late] {
			t.Errorf("game %d, %v after the restart, the seat not back yet (%d): running %d, clocks %v; stored %v",
				id, time.Since(restarted).Round(time.Millisecond), late, b.Running, b.RemainingMS, want[id])
		}
		if left := b.RemainingMS[e]; left > want[id][e] || left < want[id][e]-slack {
			t.Errorf("game %d: the seat back at once (%d) has %d ms, stored %d", id, e, left, want[id][e])
		}
		if len(b.Moves) > plies[id] {
			earlyMoved++
		}
	}
	t.Logf("%d games moved on with only the early bot back", earlyMoved)
	if earlyMoved == 0 {
		t.Error("no bot back at once was to move: the test shows nothing")
	}
	if time.Since(restarted) >= grace/2 {
		t.Fatalf("the check took until %v after the restart, more than half the grace", time.Since(restarted))
	}
	time.Sleep(grace/2 - time.Since(restarted))
	for id, e := range early {
		gates[bots[id][1-e]].open() // half the grace late
	}
	wg.Wait()
	for i := range codes {
		if codes[i] != 0 {
			t.Errorf("bot %d exited %d:\n%s", i, codes[i], outs[i].String())
		}
	}
	var gs []server.GameInfo
	if err := getJSONErr(base+"/api/games?status=finished&limit=1000", &gs); err != nil {
		t.Fatal(err)
	}
	finished := map[int64]server.GameInfo{}
	for _, g := range gs {
		finished[g.ID] = g
	}
	bad := 0
	for id := range want {
		g, ok := finished[id]
		if !ok {
			bad++
			t.Errorf("game %d did not finish", id)
		} else if g.Termination.String() != "normal" {
			bad++
			t.Errorf("game %d ended %s (%s)", g.ID, g.Termination, g.Tags[server.ReasonTag])
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d resumed games did not end normally", bad, games)
	}
	if len(gs) != games {
		t.Errorf("%d games finished, want %d (a bot that lost a resumed game played another)", len(gs), games)
	}
	// No move after the restart was charged the downtime or an absence.
	for id := range want {
		var b server.Board
		if err := getJSONErr(fmt.Sprintf("%s/api/games/%d/board", base, id), &b); err != nil {
			t.Fatal(err)
		}
		for ply := plies[id]; ply < len(b.Moves); ply++ {
			if ms := b.Moves[ply].Millis; ms > slack {
				t.Errorf("game %d, ply %d after the restart: charged %d ms", id, ply, ms)
			}
		}
	}
}

// storedSeats reads the live games of the database at path (the server
// is down): each game's stored moves, and the number of each seat's bot
// (botNNN).
func storedSeats(t *testing.T, path string) (plies map[int64]int, bots map[int64][2]int) {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	games, err := st.Unfinished(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	plies, bots = map[int64]int{}, map[int64][2]int{}
	for _, g := range games {
		plies[g.ID] = len(g.Record.Moves)
		var b [2]int
		for i, s := range g.Seats {
			n, err := strconv.Atoi(strings.TrimPrefix(s.Name, "bot"))
			if err != nil {
				t.Fatalf("game %d: seat %q", g.ID, s.Name)
			}
			b[i] = n
		}
		bots[g.ID] = b
	}
	return plies, bots
}

// gate is a TCP relay to a server that the test opens and shuts. Shut,
// it cuts every connection through it and holds new ones, unanswered,
// until it opens: a client trying meanwhile is let through the moment it
// opens, whatever its pause between tries.
type gate struct {
	addr   string
	to     string
	mu     sync.Mutex
	opened chan struct{} // closed while open
	conns  map[net.Conn]struct{}
}

func newGate(t *testing.T, to string) *gate {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{addr: l.Addr().String(), to: to, opened: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	quit := make(chan struct{})
	t.Cleanup(func() { close(quit); l.Close(); g.shut() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				g.mu.Lock()
				opened := g.opened
				g.conns[c] = struct{}{}
				g.mu.Unlock()
				select {
				case <-opened:
					g.relay(c)
				case <-quit:
					c.Close()
				}
			}()
		}
	}()
	return g
}

func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.opened:
	default:
		close(g.opened)
	}
}

func (g *gate) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.opened:
		g.opened = make(chan struct{})
	default:
	}
	for c := range g.conns {
		c.Close()
	}
	clear(g.conns)
}

func (g *gate) relay(c net.Conn) {
	s, err := net.Dial("tcp", g.to)
	if err != nil {
		c.Close()
		return
	}
	g.mu.Lock()
	g.conns[s] = struct{}{}
	g.mu.Unlock()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}

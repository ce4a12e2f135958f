package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kalah/internal/store"
	"kalah/server"
)

// TestKillNineResumesEveryGame: live games between kalah bot clients, all
// behind one address, survive kill -9 of the server, and the bots come
// back only after half the resume grace (their way in is shut until
// then), later than a move may take (3 s). The restarted server resumes every game with each clock exactly
// as the store had it at its last move, runs no clock until a game's bot
// to move is back, and every game ends normally, though the address's
// login allowance is far smaller than the crowd coming back: 100 games,
// 200 bots.
func TestKillNineResumesEveryGame(t *testing.T) {
	const games = 100
	const grace = 8 * time.Second
	const budget = 60 * time.Second
	bin := buildKalah(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	httpPort, botPort := freePort(t), freePort(t)
	start := func(burst int) (*exec.Cmd, chan error, *syncBuffer) {
		var stderr syncBuffer
		cmd := exec.Command(bin, "serve", "--data", data, "--addr", fmt.Sprintf("127.0.0.1:%d", httpPort),
			"--bot-addr", fmt.Sprintf("127.0.0.1:%d", botPort), "--kgp-addr", "0", "--time", "3s", "--budget", budget.String(),
			"--delay", "150ms", "--resume-grace", grace.String(), "--login-rate", "0.5", "--login-burst", fmt.Sprint(burst))
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
	// The bots reach the server through a door the test keeps: shut, it
	// takes a connection and closes it at once, as a server that is down.
	door := newDoor(t, fmt.Sprintf("127.0.0.1:%d", botPort))
	door.open(true)
	// Enough logins for the first arrival, one at a time.
	cmd, exited, _ := start(2*games + 10)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, ok := live(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not start")
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
			codes[i] = run(ctx, []string{"bot", "--server", door.addr, "--name", fmt.Sprintf("bot%03d", i),
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
	door.open(false)
	cmd.Process.Kill() // kill -9
	<-exited
	exited <- nil

	// Each seat's time as the store has it: the budget less the stored
	// moves' times.
	want := storedClocks(t, filepath.Join(data, "kalah.db"), budget)
	if len(want) != games {
		t.Fatalf("%d games stored live, want %d", len(want), games)
	}
	// The restarted server lets only 5 logins a burst through from this
	// address: the bots of live games come back on their own allowance.
	_, _, stderr := start(5)
	restarted := time.Now()
	var boards map[int64]server.Board
	for deadline := time.Now().Add(grace / 4); ; time.Sleep(50 * time.Millisecond) {
		if boards = liveBoards(base); len(boards) == games || time.Now().After(deadline) {
			break
		}
	}
	if len(boards) != games {
		t.Fatalf("%d of %d games resumed\n%s", len(boards), games, stderr.String())
	}
	// Nobody is back yet: no clock runs, each stands exactly as stored.
	for id, b := range boards {
		if b.Running != -1 || b.RemainingMS != want[id] {
			t.Errorf("game %d after the restart: running %d, clocks %v; stored %v", id, b.Running, b.RemainingMS, want[id])
		}
	}
	if time.Since(restarted) >= grace/2 {
		t.Fatalf("the check took %v, more than half the grace", time.Since(restarted))
	}
	time.Sleep(grace/2 - time.Since(restarted))
	door.open(true) // the bots come back, half the grace late
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
	if len(gs) != games {
		t.Fatalf("%d games finished, want %d\n%s", len(gs), games, stderr.String())
	}
	for _, g := range gs {
		if g.Termination.String() != "normal" {
			t.Errorf("game %d ended %s (%s)", g.ID, g.Termination, g.Tags[server.ReasonTag])
		}
	}
}

// storedClocks reads the live games of the database at path (the server
// is down) and returns each seat's time left as its stored moves say.
func storedClocks(t *testing.T, path string, budget time.Duration) map[int64][2]int64 {
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
	out := map[int64][2]int64{}
	for _, g := range games {
		left := [2]int64{budget.Milliseconds(), budget.Milliseconds()}
		kg, err := store.Replay(g.Record)
		if err != nil {
			t.Fatal(err)
		}
		if kg.Rules().Pie {
			t.Fatalf("game %d: the test counts seats without the pie rule", g.ID)
		}
		for _, m := range g.Record.Moves {
			left[kg.Seat(m.Side)] -= m.Millis // no swap in these rules
		}
		out[g.ID] = left
	}
	return out
}

// liveBoards returns the boards of the server's live games.
func liveBoards(base string) map[int64]server.Board {
	var gs []server.GameInfo
	if err := getJSONErr(base+"/api/games?status=live&limit=1000", &gs); err != nil {
		return nil
	}
	out := map[int64]server.Board{}
	for _, g := range gs {
		var b server.Board
		if err := getJSONErr(fmt.Sprintf("%s/api/games/%d/board", base, g.ID), &b); err == nil {
			out[g.ID] = b
		}
	}
	return out
}

// door is a TCP relay to a server that the test opens and shuts: shut,
// it cuts every connection through it and closes new ones at once.
type door struct {
	t      *testing.T
	addr   string
	to     string
	opened atomic.Bool
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
}

func newDoor(t *testing.T, to string) *door {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &door{t: t, addr: l.Addr().String(), to: to, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { l.Close(); d.open(false) })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if !d.opened.Load() {
				c.Close()
				continue
			}
			go d.relay(c)
		}
	}()
	return d
}

func (d *door) open(open bool) {
	d.opened.Store(open)
	if open {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for c := range d.conns {
		c.Close()
	}
	clear(d.conns)
}

func (d *door) relay(c net.Conn) {
	s, err := net.Dial("tcp", d.to)
	if err != nil {
		c.Close()
		return
	}
	d.mu.Lock()
	d.conns[c], d.conns[s] = struct{}{}, struct{}{}
	d.mu.Unlock()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}

// getJSONErr is getJSON for polling: it reports errors instead of failing.
func getJSONErr(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// TestSecondServerRefused: a second kalah serve on a data directory a
// server has exits at once, saying which process holds it, and takes
// nothing of the first's: its live game plays on.
func TestSecondServerRefused(t *testing.T) {
	bin := buildKalah(t)
	data := filepath.Join(t.TempDir(), "data")
	httpPort := freePort(t)
	first := exec.Command(bin, "serve", "--data", data, "--addr", fmt.Sprintf("127.0.0.1:%d", httpPort), "--bot-addr", "0", "--kgp-addr", "0")
	first.Stdout, first.Stderr = io.Discard, io.Discard
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Process.Kill(); first.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	var gs []server.GameInfo
	for deadline := time.Now().Add(10 * time.Second); getJSONErr(base+"/api/games", &gs) != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first server did not start")
		}
	}
	// A game of a person against the computer, live.
	resp, err := http.Post(base+"/api/games", "application/json", strings.NewReader(`{"south":"human","north":"greedy"}`))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("a game on the first server: %v %v", resp, err)
	}
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	second := exec.CommandContext(ctx, bin, "serve", "--data", data, "--addr", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--bot-addr", "0", "--kgp-addr", "0")
	var out syncBuffer
	second.Stdout, second.Stderr = &out, &out
	began := time.Now()
	err = second.Run()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("the second server: %v after %v\n%s", err, time.Since(began), out.String())
	}
	if msg := out.String(); !strings.Contains(msg, "in use") || !strings.Contains(msg, fmt.Sprintf("pid %d", first.Process.Pid)) {
		t.Errorf("the second server said:\n%s", msg)
	}
	if err := getJSONErr(base+"/api/games?status=live", &gs); err != nil || len(gs) != 1 {
		t.Errorf("the first server's live games: %v %v", gs, err)
	}
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/protocol/kgp"
	"kalah/protocol/kgp/kgptest"
)

// refBoard is the reference server's board, written here from its rules
// and independent of package kalah: pits 0..n-1 are South's houses, n its
// store, n+1..2n North's houses, 2n+1 its store.
type refBoard struct {
	n     int
	pits  []int
	south bool // South to move
	over  bool
}

func newRefBoard(n, seeds int) *refBoard {
	b := &refBoard{n: n, pits: make([]int, 2*n+2), south: true}
	for i := range b.pits {
		if i != n && i != 2*n+1 {
			b.pits[i] = seeds
		}
	}
	return b
}

// view is the KGP board literal the mover is sent: the mover as South.
func (b *refBoard) view() string {
	n := b.n
	own, opp := b.pits[:n+1], b.pits[n+1:]
	if !b.south {
		own, opp = opp, own
	}
	v := []int{n, own[n], opp[n]}
	v = append(v, own[:n]...)
	v = append(v, opp[:n]...)
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return "<" + strings.Join(s, ",") + ">"
}

func (b *refBoard) legal() []int {
	var hs []int
	base := 0
	if !b.south {
		base = b.n + 1
	}
	for h := 1; h <= b.n; h++ {
		if b.pits[base+h-1] > 0 {
			hs = append(hs, h)
		}
	}
	return hs
}

// play sows house h (1-based, from the mover's left) by the reference's
// rules: skip the opponent's store; a last seed in the own store moves
// again; a last seed in an own empty house captures the opposite house
// with it only if that house holds seeds (go-kgp since December 2021); the
// game ends when a side is empty (each side's seeds go to its owner) or a
// store holds more than half of all seeds, and then each side's seeds
// go to its owner.
func (b *refBoard) play(h int) {
	n := b.n
	base, store, oppStore := 0, n, 2*n+1
	if !b.south {
		base, store, oppStore = n+1, 2*n+1, n
	}
	i := base + h - 1
	seeds := b.pits[i]
	b.pits[i] = 0
	for seeds > 0 {
		i = (i + 1) % len(b.pits)
		if i == oppStore {
			continue
		}
		b.pits[i]++
		seeds--
	}
	own := i >= base && i < base+n
	if own && b.pits[i] == 1 {
		opp := 2*n - i
		if b.pits[opp] > 0 {
			b.pits[store] += b.pits[opp] + 1
			b.pits[opp], b.pits[i] = 0, 0
		}
	}
	total := 0
	for _, x := range b.pits {
		total += x
	}
	southLeft, northLeft := 0, 0
	for k := 0; k < n; k++ {
		southLeft += b.pits[k]
		northLeft += b.pits[n+1+k]
	}
	if southLeft == 0 || northLeft == 0 || 2*b.pits[n] > total || 2*b.pits[2*n+1] > total {
		// Game over: the seeds left on each side go to its owner.
		b.pits[n] += southLeft
		b.pits[2*n+1] += northLeft
		for k := 0; k < n; k++ {
			b.pits[k], b.pits[n+1+k] = 0, 0
		}
		b.over = true
	}
	if i != store {
		b.south = !b.south
	}
}

// recorder is a TCP proxy that keeps the states the server sends.
type recorder struct {
	mu     sync.Mutex
	states []string
}

func proxy(t *testing.T, target string) (string, *recorder) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	rec := &recorder{}
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			return
		}
		go func() { io.Copy(s, c); s.(*net.TCPConn).CloseWrite() }()
		r := bufio.NewReader(s)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				if cmd, perr := kgp.Parse(line); perr == nil && cmd.Name == "state" {
					rec.mu.Lock()
					rec.states = append(rec.states, cmd.Args[0].Text)
					rec.mu.Unlock()
				}
				c.Write([]byte(line))
			}
			if err != nil {
				c.Close()
				return
			}
		}
	}()
	return l.Addr().String(), rec
}

// TestKGPCommandAgainstOurServer plays `kalah kgp` against `kalah serve`,
// both on the kgp preset, through recording proxies, and replays the game
// on the reference rules written above: every board the server sent must
// be the reference's board for that mover.
func TestKGPCommandAgainstOurServer(t *testing.T) {
	s := startServe(t, "--kgp-addr", "127.0.0.1:0", "--rules", "kgp", "--time", "2s")
	target := fmt.Sprintf("127.0.0.1:%d", s.kgpPort)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	type bot struct {
		name, spec string
		addr       string
		rec        *recorder
		out        syncBuffer
		code       int
	}
	bots := []*bot{{name: "alpha", spec: "random"}, {name: "beta", spec: "greedy"}}
	var wg sync.WaitGroup
	for i, b := range bots {
		b.addr, b.rec = proxy(t, target)
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.code = run(ctx, []string{"kgp", "--connect", b.addr, "--player", b.spec, "--name", b.name}, strings.NewReader(""), &b.out, io.Discard)
		}()
		if i == 0 {
			// The first to wait plays South.
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(s.log.String(), "kgp: client joined"); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("first client never joined:\n%s", s.log.String())
				}
			}
		}
	}
	wg.Wait()
	for _, b := range bots {
		if b.code != 0 || !strings.Contains(b.out.String(), "game 1: ") {
			t.Fatalf("kalah kgp %s exited %d:\n%s", b.name, b.code, b.out.String())
		}
	}
	// Each says the game's end with the opponent and the score, its own
	// store first, and the two scores agree.
	end := regexp.MustCompile(`(?m)^game 1: (win against|loss to|draw with) (\S+), (\d+)-(\d+) \(normal\)\nthe server said goodbye after 1 game$`)
	var ms [2][]string
	for i, b := range bots {
		if ms[i] = end.FindStringSubmatch(b.out.String()); ms[i] == nil {
			t.Fatalf("kalah kgp %s did not say the game's end with its opponent and score:\n%s", b.name, b.out.String())
		}
		t.Logf("%s: %s", b.name, ms[i][0])
	}
	if ms[0][3] != ms[1][4] || ms[0][4] != ms[1][3] {
		t.Errorf("the scores disagree: %q and %q", ms[0][0], ms[1][0])
	}
	if !strings.Contains(ms[0][2], "beta") || !strings.Contains(ms[1][2], "alpha") {
		t.Errorf("opponents named %q and %q, want beta's and alpha's", ms[0][2], ms[1][2])
	}
	s.stop()

	st, err := store.Open("kalah-data/kalah.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	games, err := st.Games(context.Background(), store.Filter{})
	if err != nil || len(games) != 1 {
		t.Fatalf("games %v, %v", games, err)
	}
	g, err := st.Game(context.Background(), games[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	rec := g.Record
	if rec.Rules.Name != "kgp" || rec.Rules.EmptyCapture {
		t.Fatalf("played under %+v, want the kgp preset without empty capture", rec.Rules)
	}
	side := map[string]*bot{}
	for i, seat := range g.Seats {
		for _, b := range bots {
			if seat.Name == "kgp-"+b.name {
				side[[]string{"S", "N"}[i]] = b
			}
		}
	}
	if len(side) != 2 {
		t.Fatalf("seats %+v", g.Seats)
	}
	ref := newRefBoard(rec.Rules.Houses, rec.Rules.Seeds)
	next := map[*bot]int{}
	for ply, m := range rec.Moves {
		if ref.over {
			t.Fatalf("ply %d: the reference game is already over", ply+1)
		}
		mover := side["N"]
		if ref.south {
			mover = side["S"]
		}
		if (m.Side == kalah.South) != ref.south {
			t.Fatalf("ply %d: %v moved, the reference has the other side to move", ply+1, m.Side)
		}
		if len(ref.legal()) > 1 {
			// The server asks only when there is a choice.
			i := next[mover]
			if i >= len(mover.rec.states) {
				t.Fatalf("ply %d: %s was sent %d states, want another", ply+1, mover.name, len(mover.rec.states))
			}
			if got, want := mover.rec.states[i], ref.view(); got != want {
				t.Fatalf("ply %d: %s was sent %s, the reference board is %s", ply+1, mover.name, got, want)
			}
			next[mover] = i + 1
		}
		ref.play(m.House)
	}
	if !ref.over {
		t.Fatal("the reference game is not over where the server's ended")
	}
	for _, b := range bots {
		if next[b] != len(b.rec.states) {
			t.Errorf("%s was sent %d states, %d matched moves", b.name, len(b.rec.states), next[b])
		}
	}
	if rec.Final.South != ref.pits[ref.n] || rec.Final.North != ref.pits[2*ref.n+1] {
		t.Errorf("final score %+v, the reference's %d-%d", rec.Final, ref.pits[ref.n], ref.pits[2*ref.n+1])
	}
	t.Logf("%d plies, %d-%d; %s and %s", len(rec.Moves), ref.pits[ref.n], ref.pits[2*ref.n+1], strings.TrimSpace(bots[0].out.String()), strings.TrimSpace(bots[1].out.String()))
}

// TestKGPCommandWaitsForTheReferenceServer plays `kalah kgp` against a
// stand-in for the reference server (go-kgp) that registers each state
// 5 ms after sending it, as go-kgp can on a busy machine, and refuses a
// move or yield that comes first ("No state associated with id"): over
// 200 states, over TCP and over WebSocket, no move may be lost, and any
// error the server sends must reach the user's terminal.
func TestKGPCommandWaitsForTheReferenceServer(t *testing.T) {
	ref := &kgptest.RefServer{Register: 5 * time.Millisecond, States: 200, Seed: 7, Timeout: 3 * time.Second, Late: kgp.DefaultHold}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tcp, ws, results, stop := ref.Start(ctx)
	defer stop()
	for _, addr := range []string{tcp, ws} {
		var out, errb syncBuffer
		if code := run(ctx, []string{"kgp", "--connect", addr, "--player", "greedy", "--retries", "0"}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("kalah kgp --connect %s exited %d:\n%s%s", addr, code, out.String(), errb.String())
		}
		res := <-results
		if len(res.Late) > 0 {
			// The stand-in's sleep overshot the hold (a loaded machine):
			// what those states lost is the server's delay.
			t.Logf("%s: %d states registered after the hold (%v); server errors %q", addr, len(res.Late), res.Late, res.Errors)
			res = res.Excused()
		}
		if err := res.Check(); err != nil {
			t.Errorf("%s: %v; server errors %q; kalah kgp said:\n%s", addr, err, res.Errors, errb.String())
		}
		if res.States != 200 || res.Answered != 200 || len(res.Errors) != 0 {
			t.Errorf("%s: %d states, %d answered; server errors %q", addr, res.States, res.Answered, res.Errors)
		}
	}
	// A server slower than the hold: its errors are shown, the answers go
	// again, and still nothing is lost.
	slow := &kgptest.RefServer{Register: 60 * time.Millisecond, States: 5, Seed: 8, Timeout: 3 * time.Second}
	tcp, _, results, stopSlow := slow.Start(ctx)
	defer stopSlow()
	var out, errb syncBuffer
	if code := run(ctx, []string{"kgp", "--connect", tcp, "--player", "greedy", "--retries", "0"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("kalah kgp exited %d:\n%s%s", code, out.String(), errb.String())
	}
	res := <-results
	if err := res.Check(); err != nil {
		t.Errorf("slow server: %v", err)
	}
	if !strings.Contains(errb.String(), `kalah kgp: server error "No state associated with id"`) {
		t.Errorf("the server's errors were not shown:\n%s", errb.String())
	}
}

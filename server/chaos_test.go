package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/protocol/line"
)

// TestChaos plays games between bots that misbehave at random (seeded):
// they send garbage, move out of turn, send overlong lines, drop their
// connection and come back, or stall. Meanwhile strangers flood the server
// with junk. Every game must end, be stored finished, and replay from its
// record; a spectator must have seen exactly the stored moves.
func TestChaos(t *testing.T) {
	ts := newTestServer(t, "", Config{PerMove: 400 * time.Millisecond, Grace: 50 * time.Millisecond,
		MaxLine: 128, IdleTimeout: 2 * time.Second, HandshakeTimeout: time.Second, LoginRate: 1000, LoginBurst: 1000})
	const pairs = 4
	var wg sync.WaitGroup
	stop := make(chan struct{})
	// Strangers: junk, half-lines and silence.
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 99))
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", ts.addr)
				if err != nil {
					continue
				}
				junk := make([]byte, rng.IntN(300))
				for j := range junk {
					junk[j] = byte(rng.IntN(256))
				}
				c.Write(junk)
				c.Write([]byte("\nlogin x\nmove 3\nwatch 1\nqueue kalah,houses=99\n"))
				time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
				c.Close()
			}
		}()
	}
	type result struct {
		id    int64
		moves int // moves a spectator saw
		end   line.End
	}
	results := make(chan result, pairs)
	for p := range pairs {
		a, b := fmt.Sprintf("chaos%da", p), fmt.Sprintf("chaos%db", p)
		ca := dial(t, ts.addr)
		ca.login(a, "t")
		cb := dial(t, ts.addr)
		cb.login(b, "t")
		ca.send("queue")
		ca.expect("ok")
		cb.send("queue")
		st := ca.expect("start")
		s, _ := line.ParseStart(st)
		var id int64
		fmt.Sscan(s.Game, &id)
		w := dial(t, ts.addr)
		w.send(fmt.Sprintf("watch %d", id))
		w.expect("watching")
		for i, c := range []*client{ca, cb} {
			name := []string{a, b}[i]
			wg.Add(1)
			go func() {
				defer wg.Done()
				chaosBot(t, ts.addr, c, name, uint64(p*2+i))
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			moves := 0
			for {
				m, err := w.next()
				if err != nil {
					t.Errorf("spectator of game %d: %v", id, err)
					return
				}
				switch m.Cmd {
				case "moved":
					moves++
				case "end":
					e, _ := line.ParseEnd(m)
					results <- result{id, moves, e}
					return
				}
			}
		}()
	}
	got := map[int64]result{}
	for range pairs {
		select {
		case r := <-results:
			got[r.id] = r
		case <-time.After(60 * time.Second):
			t.Fatal("games did not end")
		}
	}
	close(stop)
	wg.Wait()
	waitFinished(t, ts.srv)
	for id, r := range got {
		rec := checkStored(t, ts.st, id, &r.end)
		if len(rec.Moves) != r.moves {
			t.Errorf("game %d: spectator saw %d moves, %d stored", id, r.moves, len(rec.Moves))
		}
		t.Logf("game %d: %d moves, %s %s", id, len(rec.Moves), rec.Result, rec.Termination)
	}
	timeouts := 0
	for _, r := range got {
		if r.end.Termination == kalah.Timeout {
			timeouts++
		}
	}
	if int64(timeouts) != chaosStalls.Load() {
		t.Errorf("%d games lost on time, %d bots stalled", timeouts, chaosStalls.Load())
	}
	if chaosReconnects.Load() == 0 || chaosGarbage.Load() == 0 {
		t.Errorf("no chaos: %d reconnects, %d garbage", chaosReconnects.Load(), chaosGarbage.Load())
	}
	t.Logf("%d reconnects, %d garbage lines", chaosReconnects.Load(), chaosGarbage.Load())
	games, err := ts.st.Games(context.Background(), store.Filter{Status: store.Live})
	if err != nil || len(games) != 0 {
		t.Fatalf("games left live: %v %v", games, err)
	}
}

// chaos counts the misbehaviour, so the test knows it happened.
var chaosReconnects, chaosGarbage, chaosStalls atomic.Int64

// chaosBot plays with c, misbehaving at random, until its game ends.
func chaosBot(t *testing.T, addr string, c *client, name string, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	turns := 0
	for {
		m, err := c.next()
		if err != nil {
			// Dropped (overlong line, timeout): come back and carry on.
			tr, err := line.Dial(context.Background(), addr)
			if err != nil {
				t.Errorf("%s: redial: %v", name, err)
				return
			}
			chaosReconnects.Add(1)
			c = &client{t: t, tr: tr}
			defer tr.Close()
			if _, err := c.next(); err != nil {
				return
			}
			c.tr.WriteLine("login "+name+" t", time.Second)
			continue
		}
		switch m.Cmd {
		case "end":
			return
		case "go":
			turn, err := line.ParseTurn(m)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			legal := turn.Position.Moves()
			r := rng.IntN(100)
			turns++
			switch {
			case seed == 0 && turns == 8:
				// Stall past the clock (and the idle timeout): lose on time.
				chaosStalls.Add(1)
			case r < 3:
				chaosGarbage.Add(1)
				c.tr.WriteLine("\x07garbage "+strings.Repeat("?", rng.IntN(50)), time.Second)
				c.tr.WriteLine(line.MoveMsg(legal[0]).String(), time.Second)
			case r < 6:
				c.tr.WriteLine(strings.Repeat("x", 300), time.Second) // overlong: dropped
			case r < 9:
				c.tr.Close() // vanish; the read fails and we come back
			default:
				c.tr.WriteLine(line.MoveMsg(legal[rng.IntN(len(legal))]).String(), time.Second)
				if rng.IntN(10) == 0 {
					c.tr.WriteLine("move 1", time.Second) // out of turn
				}
			}
		}
	}
}

package gamelink_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"kalah"
	_ "kalah/heuristic"
	"kalah/player"
	"kalah/protocol/gamelink"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func rules(t *testing.T) kalah.Rules {
	r, err := kalah.PresetRules("gamelink")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newPlayer(t *testing.T, spec string, r kalah.Rules) player.Player {
	t.Helper()
	p, err := player.New(spec, player.Options{Rules: r, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type result struct {
	g   *kalah.Game
	err error
}

// playPair plays player 1 (listening) against player 2 (connecting) over
// a real socket and returns both sides' games.
func playPair(t *testing.T, r kalah.Rules, spec1, spec2 string) (result, result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := ephemeral(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	res1 := make(chan result, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			res1 <- result{err: err}
			return
		}
		p := &gamelink.Peer{Player: newPlayer(t, spec1, r), Number: 1, Rules: r, Names: [2]string{spec1, spec2}, MoveTime: 5 * time.Second}
		g, err := p.Play(ctx, c)
		res1 <- result{g, err}
	}()
	c, err := gamelink.Dial(ctx, l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p := &gamelink.Peer{Player: newPlayer(t, spec2, r), Number: 2, Rules: r, Names: [2]string{spec1, spec2}, MoveTime: 5 * time.Second}
	g2, err := p.Play(ctx, c)
	return <-res1, result{g2, err}
}

func TestTwoPeersPlayAGame(t *testing.T) {
	for _, tc := range []struct {
		name         string
		houses       int
		seeds        int
		spec1, spec2 string
	}{
		{"gamelink 6x3", 6, 3, "greedy", "pekar"},
		{"many seeds sow into both stores", 6, 14, "pekar", "greedy"},
		{"random players", 5, 4, "random", "random:seed=9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rules(t)
			r.Houses, r.Seeds = tc.houses, tc.seeds
			a, b := playPair(t, r, tc.spec1, tc.spec2)
			if a.err != nil || b.err != nil {
				t.Fatalf("player 1: %v; player 2: %v", a.err, b.err)
			}
			if a.g.Termination() != kalah.Normal || b.g.Termination() != kalah.Normal {
				t.Fatalf("terminations %v and %v", a.g.Termination(), b.g.Termination())
			}
			if a.g.String() != b.g.String() {
				t.Errorf("the two sides recorded different games:\n%s\n%s", a.g, b.g)
			}
			if a.g.Len() < 5 {
				t.Errorf("only %d moves", a.g.Len())
			}
		})
	}
}

// script is a hand-driven player 1 for tests of a misbehaving peer.
type script struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func (s *script) send(line string) {
	if _, err := s.c.Write([]byte(line + "\n")); err != nil {
		s.t.Fatal(err)
	}
}

func (s *script) read() string {
	s.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := s.r.ReadString('\n')
	if err != nil {
		s.t.Fatalf("reading: %v", err)
	}
	return strings.TrimSuffix(line, "\n")
}

// againstScript runs our peer as player 2 against a scripted player 1.
func againstScript(t *testing.T, act func(s *script)) (*kalah.Game, error) {
	return againstScriptWait(t, 5*time.Second, act)
}

// againstScriptWait is againstScript with the time our peer waits for the
// script's moves.
func againstScriptWait(t *testing.T, wait time.Duration, act func(s *script)) (*kalah.Game, error) {
	t.Helper()
	r := rules(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := ephemeral(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	type out struct {
		g   *kalah.Game
		err error
	}
	done := make(chan out, 1)
	go func() {
		c, err := gamelink.Dial(ctx, l.Addr().String())
		if err != nil {
			done <- out{err: err}
			return
		}
		p := &gamelink.Peer{Player: newPlayer(t, "greedy", r), Number: 2, Rules: r, PeerTime: wait}
		g, err := p.Play(ctx, c)
		done <- out{g, err}
	}()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	act(&script{t: t, c: c, r: bufio.NewReader(c)})
	o := <-done
	return o.g, o.err
}

// The start from player 1's view and from player 2's.
const (
	start = "[0, 3, 3, 3, 3, 3, 3]|[3, 3, 3, 3, 3, 3, 0]"
	// Player 1 sows house 1 (3 seeds): its houses 2-4 get one more.
	after1 = "[0, 3, 3, 3, 3, 3, 3]|[0, 4, 4, 4, 3, 3, 0]"
	// The same as player 2 sees it.
	after1For2 = "[0, 3, 3, 4, 4, 4, 0]|[3, 3, 3, 3, 3, 3, 0]"
)

func TestPeerChecksBoards(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		term kalah.Termination
	}{
		{"wrong new board", "1:" + start + ":[0, 3, 3, 4, 4, 5, 0]|[3, 3, 3, 3, 3, 3, 0]:2:false", kalah.ProtocolError},
		{"board not turned to the receiver", "1:" + start + ":" + after1 + ":2:false", kalah.ProtocolError},
		{"wrong old board", "1:[0, 3, 3, 3, 3, 3, 4]|[3, 3, 3, 3, 3, 3, 0]:" + after1For2 + ":2:false", kalah.ProtocolError},
		{"wrong turn", "1:" + start + ":" + after1For2 + ":1:false", kalah.ProtocolError},
		{"wrong game over", "1:" + start + ":" + after1For2 + ":2:true", kalah.ProtocolError},
		{"two-digit move", "10:" + start + ":" + after1For2 + ":2:false", kalah.ProtocolError},
		{"garbage", "\x00hello", kalah.ProtocolError},
		{"endless line", strings.Repeat("9", 10000), kalah.ProtocolError},
		{"timeout", "timeout", kalah.Timeout},
		{"error", "error", kalah.Crash},
		{"invalid", "invalid:7", kalah.IllegalMove},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var reply string
			g, err := againstScript(t, func(s *script) {
				s.send("3:7:2")
				if got := s.read(); got != "valid" {
					t.Errorf("handshake answered %q", got)
				}
				s.send(tc.msg)
				if tc.term == kalah.ProtocolError {
					reply = s.read()
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.term == kalah.ProtocolError && reply != "invalid" {
				t.Errorf("answered %q, want invalid", reply)
			}
			if g.Termination() != tc.term || g.Result() != kalah.NorthWins {
				t.Errorf("game ended %v %v, want %v won by player 2", g.Termination(), g.Result(), tc.term)
			}
		})
	}
}

func TestPeerAcceptsAGoodMoveAndAnswers(t *testing.T) {
	g, err := againstScript(t, func(s *script) {
		s.send("3:7:2")
		s.read()
		s.send("1:" + start + ":" + after1For2 + ":2:false")
		if got := s.read(); got != "valid" {
			t.Errorf("good move answered %q", got)
		}
		// Now player 2 (greedy) moves; its message shows the board from
		// player 1's view before and after.
		m, err := gamelink.ParseMove(s.read(), 6)
		if err != nil {
			t.Fatal(err)
		}
		if m.Old.String() != after1 {
			t.Errorf("old board %s, want %s", m.Old, after1)
		}
		s.send("valid")
		s.c.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	if g.Termination() != kalah.Disconnect || g.Result() != kalah.NorthWins {
		t.Errorf("game ended %v %v after player 1 vanished", g.Termination(), g.Result())
	}
}

func TestHandshakeMismatch(t *testing.T) {
	_, err := againstScript(t, func(s *script) {
		s.send("4:7:2")
		if got := s.read(); got != "invalid" {
			t.Errorf("mismatched rules answered %q", got)
		}
	})
	if !errors.Is(err, gamelink.ErrMismatch) {
		t.Fatalf("error %v, want a mismatch", err)
	}
}

func TestSilentPeerLosesOnTime(t *testing.T) {
	g, err := againstScriptWait(t, 300*time.Millisecond, func(s *script) {
		s.send("3:7:2")
		s.read()
		time.Sleep(time.Second)
	})
	if err != nil {
		t.Fatal(err)
	}
	if g.Termination() != kalah.Timeout {
		t.Errorf("termination %v", g.Termination())
	}
}

func TestCheckRules(t *testing.T) {
	r := rules(t)
	if err := gamelink.CheckRules(r); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func(*kalah.Rules){
		func(r *kalah.Rules) { r.Houses = 10 },
		func(r *kalah.Rules) { r.Pie = true },
		func(r *kalah.Rules) { r.SowOpponentStore = false },
		func(r *kalah.Rules) { r.First = kalah.North },
	} {
		r2 := r
		bad(&r2)
		if err := gamelink.CheckRules(r2); err == nil {
			t.Errorf("accepted %s", r2)
		}
	}
}

func FuzzParseMove(f *testing.F) {
	f.Add("1:"+start+":"+after1For2+":2:false", 6)
	f.Add("3:[0, 1]|[1, 0]:[0, 1]|[0, 1]:1:TRUE", 1)
	f.Add("x", 3)
	f.Fuzz(func(t *testing.T, s string, houses int) {
		if houses < 1 || houses > gamelink.MaxHouses {
			return
		}
		m, err := gamelink.ParseMove(s, houses)
		if err != nil {
			if !errors.Is(err, gamelink.ErrSyntax) {
				t.Fatalf("error %v is not ErrSyntax", err)
			}
			return
		}
		m2, err := gamelink.ParseMove(m.String(), houses)
		if err != nil || m2.String() != m.String() {
			t.Fatalf("%q reads as %q, which reads back as %q (%v)", s, m, m2, err)
		}
	})
}

// ephemeral listens on a port of the system's choosing: gamelink.Listen
// would take the first free one of 10007-10014, where the script test of
// "kalah gamelink", running beside these tests, expects to find its own
// player 1 (and a player 2 scanning the ports would reach ours instead).
func ephemeral(ctx context.Context) (net.Listener, error) {
	var lc net.ListenConfig
	return lc.Listen(ctx, "tcp", "127.0.0.1:0")
}

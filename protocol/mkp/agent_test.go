package mkp_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"kalah"
	_ "kalah/heuristic"
	"kalah/player"
	"kalah/protocol/mkp"
	"kalah/referee"
)

// The test binary doubles as a Manchester agent, written here from the
// protocol text: with MKP_TEST_AGENT set it plays instead of testing.
func TestMain(m *testing.M) {
	if mode := os.Getenv("MKP_TEST_AGENT"); mode != "" {
		os.Exit(runAgent(mode))
	}
	goleak.VerifyTestMain(m)
}

// runAgent is the agent. It keeps its own game from the messages, checks
// every state and turn it is sent against it, and plays the highest legal
// house (or swaps, in mode "swapper"). Other modes misbehave on purpose at
// the first move they are asked for.
func runAgent(mode string) int {
	in := bufio.NewReader(os.Stdin)
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "agent: "+format+"\n", a...)
		return 3
	}
	r, _ := kalah.PresetRules("manchester")
	g, _ := kalah.NewGame(r)
	var me kalah.Side // the side this agent plays now
	started := false
	reply := func() int {
		switch mode {
		case "crlf":
			fmt.Print("MOVE;1\r\n")
			return -1
		case "lower":
			fmt.Print("move;1\n")
			return -1
		case "space":
			fmt.Print("MOVE; 1\n")
			return -1
		case "garbage":
			fmt.Print("\x00\xffhello\n")
			return -1
		case "long":
			fmt.Print(strings.Repeat("9", 1000) + "\n")
			return -1
		case "crash":
			return 7
		case "silent":
			time.Sleep(time.Minute)
			return 0
		case "illegal":
			fmt.Print("MOVE;9\n")
			return -1
		case "twice":
			fmt.Print("MOVE;1\nMOVE;2\n")
			return -1
		}
		if pos := g.Position(); mode == "swapper" && pos.CanSwap() {
			fmt.Print("SWAP\n")
			g.Play(kalah.Swap)
			me = me.Other()
			return -1
		}
		legal := g.Legal()
		m := legal[len(legal)-1]
		if m == kalah.Swap {
			m = legal[len(legal)-2]
		}
		fmt.Printf("MOVE;%d\n", m)
		return -1
	}
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return fail("input ended without END: %v", err)
		}
		line = strings.TrimSuffix(line, "\n")
		if strings.ContainsAny(line, "\r ") {
			return fail("message %q has a CR or a space", line)
		}
		f := strings.Split(line, ";")
		switch f[0] {
		case "START":
			if started || len(f) != 2 || (f[1] != "South" && f[1] != "North") {
				return fail("bad START %q", line)
			}
			started = true
			if f[1] == "North" {
				me = kalah.North
				continue
			}
			if code := reply(); code >= 0 {
				return code
			}
		case "CHANGE":
			if !started || len(f) != 4 {
				return fail("bad CHANGE %q", line)
			}
			if f[1] == "SWAP" {
				if _, err := g.Play(kalah.Swap); err != nil {
					return fail("%q: %v", line, err)
				}
				me = me.Other()
			} else {
				m, err := kalah.ParseMove(f[1])
				if err != nil || m == kalah.Swap {
					return fail("bad move in %q", line)
				}
				if _, err := g.Play(m); err != nil {
					return fail("%q: %v", line, err)
				}
			}
			if want := kalah.ManchesterState(g.Position()); f[2] != want {
				return fail("%q: state should be %s", line, want)
			}
			want := "OPP"
			switch {
			case g.Over():
				want = "END"
			case g.ToMove() == me:
				want = "YOU"
			}
			if f[3] != want {
				return fail("%q: turn should be %s", line, want)
			}
			if want == "YOU" {
				if code := reply(); code >= 0 {
					return code
				}
			}
		case "END":
			if len(f) != 1 {
				return fail("bad END %q", line)
			}
			return 0
		default:
			return fail("unknown message %q", line)
		}
	}
}

func agentSpec(t *testing.T, mode string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("mk:MKP_TEST_AGENT=%s exec '%s'", mode, exe)
}

func newPlayer(t *testing.T, spec string, r kalah.Rules) player.Player {
	t.Helper()
	p, err := player.New(spec, player.Options{Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, ok := p.(interface{ Close() error }); ok {
			c.Close()
		}
	})
	return p
}

func play(t *testing.T, south, north string, budget time.Duration) *referee.Outcome {
	t.Helper()
	r, _ := kalah.PresetRules("manchester")
	g, _ := kalah.NewGame(r)
	ref := referee.Referee{Budget: budget}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ps := [2]player.Player{newPlayer(t, south, r), newPlayer(t, north, r)}
	out, err := ref.Play(ctx, g, ps)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if c, ok := p.(interface{ Close() error }); ok {
			c.Close()
		}
	}
	return out
}

func TestAgentsPlayAFullGame(t *testing.T) {
	tests := []struct {
		name         string
		south, north string
		swapped      bool
	}{
		{"agent against agent", "good", "good", false},
		{"North swaps", "good", "swapper", true},
		{"agent against greedy", "good", "", false},
		{"greedy against a swapper", "", "swapper", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := func(mode string) string {
				if mode == "" {
					return "greedy"
				}
				return agentSpec(t, mode)
			}
			out := play(t, spec(tc.south), spec(tc.north), 20*time.Second)
			g := out.Game
			if g.Termination() != kalah.Normal {
				t.Fatalf("game ended %v: %v\n%v", g.Termination(), out.Reason, g)
			}
			if g.Swapped() != tc.swapped {
				t.Errorf("swapped %v, want %v", g.Swapped(), tc.swapped)
			}
			if g.Len() < 10 {
				t.Errorf("only %d moves", g.Len())
			}
		})
	}
}

func TestMisbehavingAgentsLose(t *testing.T) {
	tests := []struct {
		mode string
		term kalah.Termination
	}{
		{"crlf", kalah.ProtocolError},
		{"lower", kalah.ProtocolError},
		{"space", kalah.ProtocolError},
		{"garbage", kalah.ProtocolError},
		{"long", kalah.ProtocolError},
		{"crash", kalah.Crash},
		{"silent", kalah.Timeout},
		{"illegal", kalah.IllegalMove},
	}
	for _, tc := range tests {
		for _, seat := range []int{0, 1} {
			t.Run(fmt.Sprintf("%s as seat %d", tc.mode, seat), func(t *testing.T) {
				specs := [2]string{"greedy", "greedy"}
				specs[seat] = agentSpec(t, tc.mode)
				start := time.Now()
				// Only the silent agent needs a short budget; the others get
				// room for a slow start on a loaded machine.
				budget := 10 * time.Second
				if tc.term == kalah.Timeout {
					budget = 500 * time.Millisecond
				}
				out := play(t, specs[0], specs[1], budget)
				g := out.Game
				if g.Termination() != tc.term {
					t.Fatalf("termination %v (%v), want %v", g.Termination(), out.Reason, tc.term)
				}
				if w, _ := g.Result().Winner(); g.Seat(w) == seat {
					t.Errorf("the misbehaving agent won: %v", g.Result())
				}
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("took %v", d)
				}
			})
		}
	}
}

func TestAgentWritingTwiceIsCaught(t *testing.T) {
	out := play(t, agentSpec(t, "twice"), "greedy", 2*time.Second)
	if out.Game.Termination() != kalah.ProtocolError {
		t.Fatalf("termination %v (%v), want protocol-error", out.Game.Termination(), out.Reason)
	}
}

func TestRejectsNorthFirst(t *testing.T) {
	r, _ := kalah.PresetRules("manchester")
	r.First = kalah.North
	if _, err := player.New("mk:true", player.Options{Rules: r}); err == nil {
		t.Fatal("an mk: player accepted rules where North starts")
	}
}

func TestCloseKillsAStuckAgent(t *testing.T) {
	a := &mkp.Agent{Command: "trap '' TERM; sleep 60", ExitDelay: 100 * time.Millisecond}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	a.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
}

// children lists this process's child processes, zombies included (Linux
// only; nil elsewhere).
func children(t *testing.T) []string {
	t.Helper()
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var out []string
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

func TestNoProcessLeftBehind(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs /proc")
	}
	r, _ := kalah.PresetRules("manchester")
	for _, mode := range []string{"good", "silent", "crash", "garbage"} {
		play(t, agentSpec(t, mode), "greedy", 300*time.Millisecond)
	}
	// An agent that starts a child of its own and hangs.
	a := &mkp.Agent{Command: "sleep 60 & sleep 60", ExitDelay: 50 * time.Millisecond}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	g, _ := kalah.NewGame(r)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	a.Move(ctx, g, player.Clock{})
	cancel()
	a.Close()
	if c := children(t); len(c) > 0 {
		t.Errorf("child processes left: %v", c)
	}
}

func TestOneAgentPlaysTwoGames(t *testing.T) {
	r, _ := kalah.PresetRules("manchester")
	agent := newPlayer(t, agentSpec(t, "good"), r)
	for i := range 2 {
		g, _ := kalah.NewGame(r)
		ps := [2]player.Player{agent, newPlayer(t, "greedy", r)}
		if i == 1 {
			ps[0], ps[1] = ps[1], ps[0]
		}
		ref := referee.Referee{Budget: 10 * time.Second}
		out, err := ref.Play(context.Background(), g, ps)
		if err != nil {
			t.Fatal(err)
		}
		if out.Game.Termination() != kalah.Normal {
			t.Fatalf("game %d ended %v: %v", i+1, out.Game.Termination(), out.Reason)
		}
	}
}

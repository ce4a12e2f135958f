package remote_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"kalah"
	_ "kalah/heuristic"
	"kalah/internal/store"
	"kalah/player"
	"kalah/referee"
	"kalah/remote"
	"kalah/server"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if gobotDir != "" {
			os.RemoveAll(gobotDir)
		}
	}))
}

// playLocal plays spec against greedy under a referee, spec as South.
func playLocal(t *testing.T, spec string) *referee.Outcome {
	t.Helper()
	r := kalah.Standard()
	a, err := player.New(spec, player.Options{Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := player.New("greedy", player.Options{Rules: r})
	g, _ := kalah.NewGame(r)
	ref := referee.Referee{PerMove: 5 * time.Second}
	out, err := ref.Play(context.Background(), g, [2]player.Player{a, b})
	if c, ok := a.(interface{ Close() error }); ok {
		c.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestProcessForfeits(t *testing.T) {
	tests := []struct {
		cmd  string
		want kalah.Termination
	}{
		{"exit 0", kalah.Crash},
		{"echo 'move 9'; sleep 1", kalah.IllegalMove},
		{"echo 'hello'; sleep 1", kalah.ProtocolError},
		{"head -c 10000 /dev/zero | tr '\\0' x; echo", kalah.ProtocolError},
	}
	for _, tt := range tests {
		out := playLocal(t, "exec:"+tt.cmd)
		if got := out.Game.Termination(); got != tt.want || out.Game.Result() != kalah.NorthWins {
			t.Errorf("%s: %s %s (%v), want %s", tt.cmd, out.Game.Result(), got, out.Reason, tt.want)
		}
	}
	// A program that never answers loses on time and is stopped.
	r := kalah.Standard()
	g, _ := kalah.NewGame(r)
	p := &remote.Process{Command: "sleep 30"}
	b, _ := player.New("greedy", player.Options{Rules: r})
	ref := referee.Referee{PerMove: 200 * time.Millisecond}
	out, err := ref.Play(context.Background(), g, [2]player.Player{p, b})
	p.Close()
	if err != nil || out.Game.Termination() != kalah.Timeout {
		t.Fatalf("silent program: %v %v", out.Game.Termination(), err)
	}
}

func needPython(t *testing.T) string {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	return py
}

func examples(t *testing.T) string {
	d, err := filepath.Abs("../examples")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var (
	gobotOnce sync.Once
	gobotBin  string
	gobotErr  error
	gobotDir  string
)

// buildGoBot builds examples/gobot once for all tests.
func buildGoBot(t *testing.T) string {
	t.Helper()
	gobotOnce.Do(func() {
		gobotDir, gobotErr = os.MkdirTemp("", "gobot")
		if gobotErr != nil {
			return
		}
		gobotBin = filepath.Join(gobotDir, "gobot")
		cmd := exec.Command("go", "build", "-o", gobotBin, ".")
		cmd.Dir = filepath.Join(examples(t), "gobot")
		if out, err := cmd.CombinedOutput(); err != nil {
			gobotErr = fmt.Errorf("building gobot: %v\n%s", err, out)
		}
	})
	if gobotErr != nil {
		t.Fatal(gobotErr)
	}
	return gobotBin
}

func TestExampleBotsOverStdio(t *testing.T) {
	t.Run("python", func(t *testing.T) {
		py := needPython(t)
		out := playLocal(t, "exec:"+py+" "+filepath.Join(examples(t), "bot.py"))
		if out.Game.Termination() != kalah.Normal {
			t.Fatalf("python bot: %s (%v)", out.Game.Termination(), out.Reason)
		}
	})
	t.Run("go", func(t *testing.T) {
		out := playLocal(t, "exec:"+buildGoBot(t))
		if out.Game.Termination() != kalah.Normal {
			t.Fatalf("go bot: %s (%v)", out.Game.Termination(), out.Reason)
		}
	})
}

// exampleBots is a match server with the Python and the Go example bots
// logged in to it, each to play two games.
type exampleBots struct {
	st     *store.Store
	srv    *server.Server
	served chan error
	wg     sync.WaitGroup
	errs   []error
}

// startExampleBots starts a server and the two example bots, which join
// with join: "queue" or "wait".
func startExampleBots(t *testing.T, join string) *exampleBots {
	t.Helper()
	py := needPython(t)
	gobot := buildGoBot(t)
	st, err := store.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv, err := server.New(server.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &exampleBots{st: st, srv: srv, served: make(chan error, 1), errs: make([]error, 2)}
	go func() { b.served <- srv.Serve(l) }()
	addr := l.Addr().String()
	for i, cmd := range []*exec.Cmd{
		exec.Command(py, filepath.Join(examples(t), "bot.py"), addr, "pybot", "pw", "2", join),
		exec.Command(gobot, addr, "gobot", "gw", "2", join),
	} {
		cmd.Stderr = os.Stderr
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.errs[i] = cmd.Run()
		}()
	}
	return b
}

// finish waits for both bots to leave after their games and stops the
// server.
func (b *exampleBots) finish(t *testing.T) {
	t.Helper()
	b.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-b.served
	if err := errors.Join(b.errs...); err != nil {
		t.Fatal(err)
	}
}

// TestExampleBotsOverTCP plays the Python bot against the Go bot through a
// server's queue, two games.
func TestExampleBotsOverTCP(t *testing.T) {
	b := startExampleBots(t, "queue")
	b.finish(t)
	games, err := b.st.Games(context.Background(), store.Filter{Status: store.Finished})
	if err != nil || len(games) != 2 {
		t.Fatalf("%d finished games, %v", len(games), err)
	}
	for _, g := range games {
		full, _ := b.st.Game(context.Background(), g.ID)
		kg, err := full.Record.Game()
		if err != nil || kg.Termination() != kalah.Normal {
			t.Fatalf("game %d: %v %v", g.ID, kg, err)
		}
	}
}

// TestExampleBotsWaitForTournamentGames starts the Python and the Go bot
// with "wait", as students would for a class tournament, and has the
// server arrange two games between them, one a side.
func TestExampleBotsWaitForTournamentGames(t *testing.T) {
	b := startExampleBots(t, "wait")
	for deadline := time.Now().Add(10 * time.Second); len(b.srv.WaitingBots()) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting bots: %v", b.srv.WaitingBots())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, seats := range [][2]string{{"bot:pybot", "bot:gobot"}, {"bot:gobot", "bot:pybot"}} {
		res, err := b.srv.PlayArranged(ctx, server.Arranged{South: seats[0], North: seats[1], PerMove: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		kg, err := res.Record.Game()
		if err != nil || kg.Termination() != kalah.Normal || res.Reason != "" {
			t.Fatalf("%s v %s: %v %v %s", seats[0], seats[1], kg, err, res.Reason)
		}
	}
	b.finish(t) // each bot leaves after its two games
}

// TestProcessDeadAtOnce: a program that dies at once is reported once, with
// its exit status and the end of its stderr, whether its death shows first
// as a failed write or as the end of its output (the two race; CI saw a
// reason repeated once a message of the greeting).
func TestProcessDeadAtOnce(t *testing.T) {
	r := kalah.Standard()
	for range 10 {
		g, _ := kalah.NewGame(r)
		p := &remote.Process{Command: "echo gone >&2; exec 0<&-; exit 3"}
		_, err := p.Move(context.Background(), g, player.Clock{})
		p.Close()
		if err == nil {
			t.Fatal("no error from a program that exited")
		}
		msg := err.Error()
		if !errors.Is(err, player.ErrCrashed) || strings.Count(msg, "player crashed") != 1 || strings.Contains(msg, "\n") ||
			!strings.Contains(msg, "(exit status 3)") || !strings.HasSuffix(msg, "stderr: gone") {
			t.Fatalf("error %q", msg)
		}
	}
}

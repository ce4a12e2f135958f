package dist

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "kalah/heuristic"
	"kalah/tournament"
)

func buildKalah(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the kalah binary")
	}
	bin := filepath.Join(t.TempDir(), "kalah")
	out, err := exec.Command("go", "build", "-o", bin, "kalah/cmd/kalah").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// lineWatcher collects a process's stderr lines and signals each one.
type lineWatcher struct {
	mu    sync.Mutex
	lines []string
	ch    chan string
}

func watch(r io.Reader) *lineWatcher {
	w := &lineWatcher{ch: make(chan string, 1000)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, sc.Text())
			w.mu.Unlock()
			select {
			case w.ch <- sc.Text():
			default:
			}
		}
	}()
	return w
}

func (w *lineWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

func field(line, key string) string {
	for f := range strings.FieldsSeq(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

// TestWorkerKilledMidGame runs a tournament whose games are all played by
// two "kalah worker" processes joined over loopback, SIGKILLs one while it
// plays a game, and checks the tournament still finishes with every game
// stored once and the interrupted game played again by the other worker.
func TestWorkerKilledMidGame(t *testing.T) {
	bin := buildKalah(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	coord := exec.CommandContext(ctx, bin, "tournament", "--db", db, "--players", "random,first,greedy,pekar",
		"--delay", "15ms", "--listen-nats", addr, "--workers-only", "--ack-wait", "2s", "--live", "0", "--format", "json", "--nats-token", "sesame")
	var out bytes.Buffer
	coord.Stdout = &out
	cerr, _ := coord.StderrPipe()
	if err := coord.Start(); err != nil {
		t.Fatal(err)
	}
	clog := watch(cerr)
	t.Cleanup(func() { coord.Process.Kill(); coord.Wait() })

	startWorker := func(name string) (*exec.Cmd, *lineWatcher) {
		w := exec.CommandContext(ctx, bin, "worker", "--join", "nats://"+addr, "--jobs", "1", "--name", name, "--nats-token", "sesame")
		w.Env = append(os.Environ(), "KALAH_LOG=info")
		se, _ := w.StderrPipe()
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Process.Kill(); w.Wait() })
		return w, watch(se)
	}
	w1, log1 := startWorker("w1")
	_, log2 := startWorker("w2")

	// Kill w1 as it starts its second game, so that game is in flight.
	var inFlight string
	started := 0
	timeout := time.After(60 * time.Second)
	for inFlight == "" {
		select {
		case l := <-log1.ch:
			if strings.Contains(l, "msg=playing") {
				started++
				if started == 2 {
					inFlight = field(l, "game")
				}
			}
		case <-timeout:
			t.Fatalf("worker 1 never started two games\nw1:\n%s\ncoordinator:\n%s", log1, clog)
		}
	}
	if err := w1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w1.Wait()
	t.Logf("killed w1 during game %s", inFlight)

	if err := coord.Wait(); err != nil {
		t.Fatalf("coordinator: %v\n%s\nw2:\n%s", err, clog, log2)
	}
	var rep tournament.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("coordinator output: %v\n%s", err, out.String())
	}
	const total = 12
	if rep.Tournament.Status != tournament.StatusFinished || rep.Tournament.Played != total {
		t.Errorf("tournament %s with %d of %d games", rep.Tournament.Status, rep.Tournament.Played, total)
	}

	st, err := tournament.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	games, err := st.Games(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != total {
		t.Errorf("%d games stored, want %d", len(games), total)
	}
	var results int
	st.DB().QueryRow(`SELECT count(*) FROM tournament_results`).Scan(&results)
	if results != total {
		t.Errorf("%d result rows, want %d", results, total)
	}
	pairs := map[[2]int]int{}
	points := 0
	byWorker := map[string]int{}
	for _, g := range games {
		pairs[[2]int{g.South, g.North}]++
		byWorker[strings.SplitN(g.Worker, "/", 2)[0]]++
		if fmt.Sprint(g.ID) == inFlight && strings.HasPrefix(g.Worker, "w1") {
			t.Errorf("game %s, killed in flight, credited to %s", inFlight, g.Worker)
		}
		rec, err := st.Record(context.Background(), g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rec.Game(); err != nil {
			t.Errorf("game %d does not replay: %v", g.ID, err)
		}
	}
	for _, s := range rep.Standings {
		points += s.Points
	}
	if points != 2*total {
		t.Errorf("%d points handed out for %d games", points, total)
	}
	for p, n := range pairs {
		if n != 1 {
			t.Errorf("%v played %d times as South v North, want 1", p, n)
		}
	}
	if len(pairs) != total {
		t.Errorf("%d ordered pairings, want %d", len(pairs), total)
	}
	if byWorker["w2"] == 0 || byWorker["w1"]+byWorker["w2"] != total {
		t.Errorf("games by worker %v", byWorker)
	}
	t.Logf("games by worker: %v", byWorker)
}

// TestEmbeddedInProcess runs a tournament through the embedded server and
// in-process workers, the default, and checks every game is stored.
func TestEmbeddedInProcess(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	st, err := tournament.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.Create(ctx, tournament.Config{Players: []string{"random", "first", "greedy"}, Openings: tournament.Forced})
	if err != nil {
		t.Fatal(err)
	}
	emb, err := StartEmbedded(ctx, EmbeddedConfig{Slots: 2, AckWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			emb.Close()
		}
	}()
	if emb.Server.URL() != "" {
		t.Errorf("embedded server listens at %s without --listen-nats", emb.Server.URL())
	}
	if err := st.Run(ctx, id, tournament.RunOptions{Executor: emb.Executor}); err != nil {
		t.Fatal(err)
	}
	in, err := st.Tournament(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if in.Played != 3*12 || in.Status != tournament.StatusFinished {
		t.Errorf("%d games played, status %s", in.Played, in.Status)
	}
	emb.Close()
	closed = true
}

// TestCoordinatorKilled kills the coordinator (and with it the embedded NATS
// server) while a remote worker plays its games, resumes it on the same
// address, and checks the worker carries on by itself and every game is
// stored once. Set KALAH_LONG=1 to run it.
func TestCoordinatorKilled(t *testing.T) {
	if os.Getenv("KALAH_LONG") == "" {
		t.Skip("set KALAH_LONG=1")
	}
	bin := buildKalah(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := exec.CommandContext(ctx, bin, "worker", "--join", "nats://"+addr, "--jobs", "2", "--name", "w")
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Process.Kill(); w.Wait() })
	flags := []string{"--db", db, "--listen-nats", addr, "--workers-only", "--ack-wait", "3s", "--live", "0", "--format", "json"}
	first := exec.CommandContext(ctx, bin, append([]string{"tournament", "--players", "random,first,greedy,pekar", "--rounds", "5", "--delay", "10ms"}, flags...)...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := tournament.Open(db)
		if err == nil {
			in, err := st.Tournament(ctx, 1)
			st.Close()
			if err == nil && in.Played >= 10 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no results within a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	out, err := exec.CommandContext(ctx, bin, append([]string{"tournament", "--resume", "1"}, flags...)...).Output()
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	var rep tournament.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Tournament.Played != 60 || rep.Tournament.Status != tournament.StatusFinished {
		t.Errorf("after resume: %d of 60 games, %s", rep.Tournament.Played, rep.Tournament.Status)
	}
	st, err := tournament.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n, distinct int
	st.DB().QueryRow(`SELECT count(*), count(DISTINCT game_id) FROM tournament_results`).Scan(&n, &distinct)
	if n != 60 || distinct != 60 {
		t.Errorf("%d results for %d games, want 60", n, distinct)
	}
}

// TestLongGamesNotRedelivered plays games that last several times AckWait
// and checks the worker's signs of life keep each from being handed to
// another worker: every game starts exactly once.
func TestLongGamesNotRedelivered(t *testing.T) {
	if testing.Short() {
		t.Skip("plays slow games")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := Serve(ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	nc, err := srv.Connect("")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	st, err := tournament.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Two games of first v greedy, each over two seconds with a 150 ms
	// pause a move; AckWait is 800 ms (heartbeats every 266 ms, so a loaded
	// machine does not miss one).
	id, err := st.Create(ctx, tournament.Config{Players: []string{"first", "greedy"}, Clock: tournament.Clock{Delay: 150 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	starts := map[int64]int{}
	var wg sync.WaitGroup
	for i := range 2 {
		wc, err := srv.Connect("")
		if err != nil {
			t.Fatal(err)
		}
		defer wc.Close()
		w := &Worker{Conn: wc, Name: fmt.Sprint("w", i), OnStart: func(j tournament.Job) {
			mu.Lock()
			starts[j.Game.ID]++
			mu.Unlock()
		}}
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	exec := &Executor{Conn: nc, AckWait: 800 * time.Millisecond}
	if err := st.Run(ctx, id, tournament.RunOptions{Executor: exec}); err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	games, _ := st.Games(context.Background(), id)
	if len(games) != 2 {
		t.Fatalf("%d games stored", len(games))
	}
	for _, g := range games {
		if g.Millis < 1600 {
			t.Errorf("game %d took %d ms, not long enough to test", g.ID, g.Millis)
		}
		if starts[g.ID] != 1 {
			t.Errorf("game %d started %d times", g.ID, starts[g.ID])
		}
	}
}

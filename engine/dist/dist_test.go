package dist

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kalah"
	"kalah/engine"
)

// serve starts a NATS server with JetStream on a loopback port, its files
// in dir, so a test can stop and start it on the same state.
func serve(t *testing.T, dir string) *server.Server {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server did not start")
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns
}

func connect(t *testing.T, ns *server.Server) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// counter counts the jobs workers start and finish, by key.
type counter struct {
	mu      sync.Mutex
	started map[string]int
	done    map[string]int
}

func newCounter() *counter {
	return &counter{started: map[string]int{}, done: map[string]int{}}
}

func (c *counter) start(k string) { c.mu.Lock(); c.started[k]++; c.mu.Unlock() }
func (c *counter) finish(k string) {
	c.mu.Lock()
	c.done[k]++
	c.mu.Unlock()
}

// midgame is a (6,4) position of the middle game, solved in a third of a
// second.
func midgame(t *testing.T) (kalah.Rules, kalah.Position) {
	r := kalah.Rules{Houses: 6, Seeds: 4}
	p, err := kalah.ParsePosition("1,1,5,0,3,4/5,0,1,0,3,5 11-12 S")
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}

func solve(t *testing.T, r kalah.Rules, p kalah.Position) int {
	t.Helper()
	e, err := engine.New(r, engine.Options{TableMB: 32})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Solve(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res.Value
}

// TestWorkerKilled solves with two workers, one of which dies (its
// connection cut without a word, as if the process were killed) in the
// middle of a job: the job goes to the other worker after AckWait and the
// value is the single-process solve's.
func TestWorkerKilled(t *testing.T) {
	r, p := midgame(t)
	want := solve(t, r, p)
	ns := serve(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	cnt := newCounter()
	var killedKey string
	aConn := connect(t, ns)
	actx, kill := context.WithCancel(ctx)
	var once sync.Once
	a := &Worker{Conn: aConn, Name: "a", TableMB: 8, OnDone: cnt.finish}
	aJobs := 0
	a.OnStart = func(k string) {
		cnt.start(k)
		if aJobs++; aJobs == 2 {
			once.Do(func() {
				killedKey = k
				aConn.Close() // no nak, no ack: the server must notice
				kill()
			})
		}
	}
	b := &Worker{Conn: connect(t, ns), Name: "b", TableMB: 8, OnStart: cnt.start, OnDone: cnt.finish}
	var wg sync.WaitGroup
	wg.Go(func() { a.Run(actx) })
	wctx, stopB := context.WithCancel(ctx)
	wg.Go(func() { b.Run(wctx) })
	defer func() { stopB(); kill(); wg.Wait() }()

	c := &Coordinator{Conn: connect(t, ns), Rules: r, Plies: 3, Parallel: 2, AckWait: time.Second}
	res, err := c.Solve(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Value != want {
		t.Fatalf("distributed value %+d, single process %+d", res.Value, want)
	}
	if killedKey == "" {
		t.Fatalf("worker a was never killed (jobs %d)", res.Status.Done)
	}
	cnt.mu.Lock()
	defer cnt.mu.Unlock()
	t.Logf("value %+d, %d leaves, %d jobs, %d withdrawn, killed on %s (done %d times after)", res.Value, res.Status.Leaves, res.Status.Done, res.Status.Withdraw, killedKey, cnt.done[killedKey])
	if best := res.Best; best == 0 {
		t.Fatal("no best move")
	}
}

// TestCoordinatorRestart stops the coordinator after a few results and
// starts another on the same problem: it reads the results back, and no
// job finished before the restart runs again.
func TestCoordinatorRestart(t *testing.T) {
	r, p := midgame(t)
	want := solve(t, r, p)
	dir := t.TempDir()
	ns := serve(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cnt := newCounter()
	var wg sync.WaitGroup
	wctx, stop := context.WithCancel(ctx)
	defer func() { stop(); wg.Wait() }()
	for _, name := range []string{"a", "b"} {
		w := &Worker{Conn: connect(t, ns), Name: name, TableMB: 8, OnStart: cnt.start, OnDone: cnt.finish}
		wg.Go(func() { w.Run(wctx) })
	}

	cctx, crash := context.WithCancel(ctx)
	// Jobs split early (the coordinator wants more jobs than it has), so
	// the restart must rebuild the split tree too.
	c := &Coordinator{Conn: connect(t, ns), Rules: r, Plies: 3, Parallel: 64, AckWait: time.Second, SplitAfter: 50 * time.Millisecond}
	c.Progress = func(s Status) {
		if s.Done >= 3 && s.Splits >= 1 {
			crash()
		}
	}
	if _, err := c.Solve(cctx, p); err == nil {
		t.Fatal("the first coordinator finished before it was stopped; make the problem larger")
	}
	// What the bucket holds now must never be computed again.
	js, err := jetstream.New(connect(t, ns))
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(ctx, Bucket)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := kv.ListKeysFiltered(ctx, ID(r, p, 3)+".>")
	if err != nil {
		t.Fatal(err)
	}
	finished := map[string]int{}
	splits := 0
	cnt.mu.Lock()
	for k := range keys.Keys() {
		if strings.Contains(k, ".split.") {
			splits++
			continue
		}
		finished[k] = cnt.started[k]
	}
	cnt.mu.Unlock()
	if len(finished) < 3 || splits < 1 {
		t.Fatalf("%d results and %d splits stored before the restart, want at least 3 and 1", len(finished), splits)
	}

	c2 := &Coordinator{Conn: connect(t, ns), Rules: r, Plies: 3, Parallel: 64, AckWait: time.Second, SplitAfter: 50 * time.Millisecond}
	res, err := c2.Solve(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Value != want {
		t.Fatalf("distributed value %+d, single process %+d", res.Value, want)
	}
	if res.Status.Resumed < len(finished) {
		t.Fatalf("resumed from %d results, %d were stored", res.Status.Resumed, len(finished))
	}
	cnt.mu.Lock()
	defer cnt.mu.Unlock()
	for k, n := range finished {
		if cnt.started[k] != n {
			t.Errorf("job %s finished before the restart was started again (%d times, %d before)", k, cnt.started[k], n)
		}
	}
	t.Logf("value %+d: %d results and %d splits before the restart, %d results after, %d splits in all", res.Value, len(finished), splits, res.Status.Done, res.Status.Splits)
}

// TestTreeMatchesSolve checks the backed-up minimax of the tree against
// the engine when every leaf is solved exactly, for every rule switch that
// changes how a move's value is counted.
func TestTreeMatchesSolve(t *testing.T) {
	for _, r := range []kalah.Rules{
		{Houses: 4, Seeds: 3},
		{Houses: 4, Seeds: 3, EmptyCapture: true, End: kalah.MoverStuck},
		{Houses: 4, Seeds: 3, EarlyEnd: true, SowOpponentStore: true},
		{Houses: 4, Seeds: 3, End: kalah.MoverEmpty},
	} {
		p := r.Start()
		p.Play(&r, 2)
		e, err := engine.New(r, engine.Options{TableMB: 8, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, plies := range []int{1, 2, 4} {
			tr := expand(r, p, plies)
			for _, n := range tr.leaves() {
				res, err := e.Solve(context.Background(), n.pos)
				if err != nil {
					t.Fatal(err)
				}
				n.learn(res.Value, true, true)
			}
			tr.update()
			want := solve(t, r, p)
			if tr.root.lo != want || tr.root.hi != want {
				t.Fatalf("%s plies %d: tree [%d, %d], engine %d", r, plies, tr.root.lo, tr.root.hi, want)
			}
			if m := tr.best(); m == 0 {
				t.Fatalf("%s: no best move", r)
			}
		}
	}
}

func ExampleID() {
	r := kalah.Rules{Houses: 6, Seeds: 4}
	fmt.Println(len(ID(r, r.Start(), 4)))
	// Output: 16
}

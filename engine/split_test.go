package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"kalah"
	"kalah/egdb"
)

// TestSplitMatchesOneThread solves positions of 16 to 30 seeds on two
// threads sharing the search by split points at every node of 4 seeds or
// more (so that children are taken, cut and cancelled all the time), and
// by the busy marks (Tuning.Split off), and compares value and best moves
// with one thread's.
func TestSplitMatchesOneThread(t *testing.T) {
	for _, split := range []bool{true, false} {
		testTwoThreads(t, split)
	}
}

func testTwoThreads(t *testing.T, split bool) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, empty := range []bool{false, true} {
		r := kalah.Standard()
		r.EmptyCapture = empty
		db, err := egdb.Build(context.Background(), r, 6, egdb.BuildOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		tune := DefaultTuning()
		tune.BusyMinSeeds, tune.DBBusyMargin, tune.Split = 4, 1, split
		one, _ := New(r, Options{TableMB: 4, Threads: 1, DB: db, NoBook: true})
		two, err := New(r, Options{TableMB: 4, Threads: 2, DB: db, NoBook: true, Tuning: &tune})
		if err != nil {
			t.Fatal(err)
		}
		for game := 0; game < 12; game++ {
			p := r.Start()
			left := 16 + rng.IntN(15)
			for !p.Over(&r) && p.Seeds(kalah.South)+p.Seeds(kalah.North) > left {
				ms := p.Moves()
				p.Play(&r, int(ms[rng.IntN(len(ms))]))
			}
			if p.Over(&r) {
				continue
			}
			want, err := one.Solve(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				two.Clear()
				got, err := two.Solve(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if got.Value != want.Value || !slices.Equal(got.Best, want.Best) {
					t.Errorf("%s %s (split %v): two threads %+d best %v, one thread %+d best %v", r, p, split, got.Value, got.Best, want.Value, want.Best)
				}
			}
		}
	}
}

// TestSplitStops: a search shared by split points ends at once when its
// context is cancelled, whichever thread holds which child.
func TestSplitStops(t *testing.T) {
	r := kalah.Standard()
	tune := DefaultTuning()
	tune.BusyMinSeeds = 4
	e, err := New(r, Options{TableMB: 4, Threads: 2, NoBook: true, Tuning: &tune})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []time.Duration{time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		start := time.Now()
		_, err := e.Solve(ctx, r.Start())
		cancel()
		if err == nil {
			t.Fatalf("Kalah(6,4) solved within %v", d)
		}
		if took := time.Since(start); took > d+time.Second {
			t.Errorf("cancelled after %v, returned after %v", d, took)
		}
	}
}

// TestSplitShares: by default two threads solving Kalah(6,4) from a few
// plies in, with a database, publish split points and the second thread
// searches children taken from them (a search where it idled would
// still pass the tests of values above).
func TestSplitShares(t *testing.T) {
	e, p := twoThreadsAlongPV(t, 10)
	run, done := e.newRun(context.Background())
	defer done()
	if run.splits == nil {
		t.Fatal("two threads share no split points by default")
	}
	if _, _, ok := e.exactRoot(run, p); !ok {
		t.Fatal("stopped")
	}
	if pub, took := run.splits.published.Load(), run.splits.taken.Load(); pub == 0 || took == 0 {
		t.Errorf("%d split points published, %d children taken by the other thread", pub, took)
	}
}

// TestSplitNodeTypes: a split point shares its children after its first
// one where the node is expected to need every child (node.all), after its
// first cutAlone where it is expected to cut; a solve meets both kinds.
// Kalah(6,4) from eight plies in, two threads.
func TestSplitNodeTypes(t *testing.T) {
	e, p := twoThreadsAlongPV(t, 8)
	run, done := e.newRun(context.Background())
	defer done()
	var kinds [2]int                              // split points of nodes expected to cut, and to need every child
	run.splits.onPublish = func(sp *splitPoint) { // under the list's lock
		want := int32(1)
		if !sp.n.all {
			want = cutAlone
		}
		if first := sp.next.Load(); first != want {
			t.Errorf("a node (expected to need every child: %v) shared its children after %d, not %d", sp.n.all, first, want)
		}
		if sp.n.all {
			kinds[1]++
		} else {
			kinds[0]++
		}
	}
	if _, _, ok := e.exactRoot(run, p); !ok {
		t.Fatal("stopped")
	}
	run.splits.mu.Lock()
	defer run.splits.mu.Unlock()
	if kinds[0] < 100 || kinds[1] < 100 {
		t.Errorf("split points: %d of nodes expected to cut, %d expected to need every child", kinds[0], kinds[1])
	}
}

// twoThreadsAlongPV returns an engine of two threads with the default
// tuning and a 10-seed database, and Kalah(6,4) after the given plies of
// its principal variation.
func twoThreadsAlongPV(t *testing.T, plies int) (*Engine, kalah.Position) {
	t.Helper()
	r := kalah.Standard()
	db, err := egdb.Build(context.Background(), r, 10, egdb.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(r, Options{TableMB: 16, Threads: 2, DB: db, NoBook: true})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Start()
	for _, m := range []int{3, 6, 2, 1, 5, 5, 6, 2, 6, 5}[:plies] {
		p.Play(&r, m)
	}
	return e, p
}

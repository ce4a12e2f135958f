package gcfloor

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name               string
		percent            int
		floor, live, roots uint64
		want               int
	}{
		{"off stays off", -1, 1024 * mb, 60 * mb, 15 * mb, -1},
		{"no floor", 400, 0, 60 * mb, 15 * mb, 400},
		{"live over the floor", 400, 50 * mb, 60 * mb, 15 * mb, 400},
		{"floor under percent's goal", 400, 300 * mb, 60 * mb, 15 * mb, 400},
		// 60 + (60 + 15) × p/100 = 1024: p = 1285.
		{"floor over percent's goal", 400, 1024 * mb, 60 * mb, 15 * mb, 1285},
		{"nothing live yet", 100, 1024 * mb, 0, 2 * mb, 100},
		// 4 MiB × p/100 may not pass the floor: p at most 3200.
		{"almost nothing live", 100, 128 * mb, 1 * mb, 0, 3200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Percent(tc.percent, tc.floor, tc.live, tc.roots)
			if got != tc.want {
				t.Errorf("Percent(%d, %d, %d, %d) = %d, want %d", tc.percent, tc.floor, tc.live, tc.roots, got, tc.want)
			}
			if got > tc.percent && tc.live > 1*mb {
				// The goal the runtime computes from it (gcPercentHeapGoal)
				// is the floor, to within a percent of what it scales.
				goal := tc.live + (tc.live+tc.roots)*uint64(got)/100
				if goal > tc.floor || goal+(tc.live+tc.roots)/100 < tc.floor {
					t.Errorf("goal %d, want the floor %d", goal, tc.floor)
				}
			}
		})
	}
}

var sink []byte

// churn allocates n bytes of garbage in 64 KiB pieces and returns the
// collections meanwhile.
func churn(n int) uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	for range n >> 16 {
		sink = make([]byte, 64<<10)
	}
	metrics.Read(s)
	return s[0].Value.Uint64() - before
}

// kept is live through a test of Run: 32 MiB of bytes, live but not
// scanned, as a server's buffers are.
var kept []byte

// baseline keeps 32 MiB live at GOGC=100 for the rest of the test and
// returns the collections of allocating 1 GiB without a floor.
func baseline(t *testing.T) uint64 {
	old := debug.SetGCPercent(100)
	kept = make([]byte, 32<<20)
	t.Cleanup(func() { kept = nil; debug.SetGCPercent(old) })
	runtime.GC()
	return churn(1 << 30)
}

// TestRunMakesCollectionsRarer: with a floor of 256 MiB over a live heap
// of 32 MiB, the runtime's goal is the floor, not over it, and allocating
// 1 GiB collects fewer times than GOGC=100 alone (on a quiet machine 5
// against 30); once stopped, GOGC is the percent again.
func TestRunMakesCollectionsRarer(t *testing.T) {
	without := baseline(t)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Run(ctx, 100, 256<<20, 0, time.Millisecond); close(done) }()
	// Let it see the state before the churn.
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	deadline := time.Now().Add(5 * time.Second)
	for metrics.Read(s); s[0].Value.Uint64() < 200<<20; metrics.Read(s) {
		if time.Now().After(deadline) {
			t.Fatalf("heap goal %d MiB five seconds after Run began, want the floor's 256", s[0].Value.Uint64()>>20)
		}
		time.Sleep(time.Millisecond)
	}
	if g := s[0].Value.Uint64(); g > 260<<20 {
		t.Errorf("heap goal %d MiB, want the floor's 256", g>>20)
	}
	with := churn(1 << 30)
	cancel()
	<-done
	t.Logf("collections allocating 1 GiB: %d without the floor, %d with", without, with)
	// Fewer, not a ratio: how many a busy machine's collections take
	// depends on how long their marks last (the goal is checked above).
	if with >= without {
		t.Errorf("with a 256 MiB floor %d collections, without %d: want fewer", with, without)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC after Run is %d, want 100", p)
	}
}

func TestFloor(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name  string
		rate  float64
		every time.Duration
		most  uint64
		want  uint64
	}{
		{"no interval: the most", 25 * mb, 0, 3072 * mb, 3072 * mb},
		{"two minutes at 4,000 games", 20 * mb, 2 * time.Minute, 3072 * mb, 2400 * mb},
		{"held at the most", 40 * mb, 2 * time.Minute, 3072 * mb, 3072 * mb},
		{"idle", 0.1 * mb, 2 * time.Minute, 3072 * mb, 12 * mb},
		{"nothing allocated", 0, 2 * time.Minute, 3072 * mb, 0},
	} {
		if got := Floor(tc.rate, tc.every, tc.most); got != tc.want {
			t.Errorf("%s: Floor(%g, %v, %d) = %d, want %d", tc.name, tc.rate, tc.every, tc.most, got, tc.want)
		}
	}
}

// TestRunFollowsTheRate: with an interval, the floor is what the process
// allocates in it: allocating 1 GiB as fast as it can, an hour's worth is
// the most (256 MiB here), GOGC is raised and collections are as rare as
// with a fixed floor (logged); a nanosecond's worth is nothing, and GOGC
// stays.
func TestRunFollowsTheRate(t *testing.T) {
	without := baseline(t)
	// run churns 1 GiB with Run's interval every, and returns the
	// collections and the highest GOGC meanwhile.
	run := func(every time.Duration) (n uint64, gogc uint64) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { Run(ctx, 100, 256<<20, every, time.Millisecond); close(done) }()
		watched := make(chan uint64)
		go func() {
			s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
			var most uint64
			for ctx.Err() == nil {
				metrics.Read(s)
				most = max(most, s[0].Value.Uint64())
				time.Sleep(time.Millisecond)
			}
			watched <- most
		}()
		time.Sleep(10 * time.Millisecond) // Run's first look, before the churn
		n = churn(1 << 30)
		cancel()
		<-done
		return n, <-watched
	}
	hour, hourGOGC := run(time.Hour)
	ns, nsGOGC := run(time.Nanosecond)
	t.Logf("collections allocating 1 GiB: %d without a floor, %d with an hour's allocations (GOGC up to %d), %d with a nanosecond's (up to %d)", without, hour, hourGOGC, ns, nsGOGC)
	// GOGC, not the collections, is what is checked: how many a busy
	// machine's collections take depends on how long their marks last.
	if hourGOGC <= 300 {
		t.Errorf("an hour's allocations as the floor: GOGC up to %d, want over 300 (256 MiB over 32 live)", hourGOGC)
	}
	if nsGOGC != 100 {
		t.Errorf("a nanosecond's allocations as the floor: GOGC up to %d, want 100 throughout", nsGOGC)
	}
}

func TestRaise(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name        string
		floor, most uint64
		every       time.Duration
		allocated   uint64
		elapsed     time.Duration
		want        uint64
		wantRaised  bool
	}{
		// The floor set from a server's start (14 MB/s), then 9,000 games
		// allocating 22 MB/s for 10 s: two minutes of that.
		{"the load grew", 1680 * mb, 3072 * mb, 2 * time.Minute, 220 * mb, 10 * time.Second, 2640 * mb, true},
		{"up to the most", 1680 * mb, 2048 * mb, 2 * time.Minute, 220 * mb, 10 * time.Second, 2048 * mb, true},
		{"under an eighth more", 2400 * mb, 3072 * mb, 2 * time.Minute, 210 * mb, 10 * time.Second, 2400 * mb, false},
		{"the load fell: not lowered", 2400 * mb, 3072 * mb, 2 * time.Minute, 10 * mb, 10 * time.Second, 2400 * mb, false},
		{"too soon to tell", 100 * mb, 3072 * mb, 2 * time.Minute, 100 * mb, 500 * time.Millisecond, 100 * mb, false},
		{"a fixed floor", 1024 * mb, 1024 * mb, 0, 220 * mb, 10 * time.Second, 1024 * mb, false},
	} {
		got, raised := raise(tc.floor, tc.most, tc.every, tc.allocated, tc.elapsed)
		if got != tc.want || raised != tc.wantRaised {
			t.Errorf("%s: raise = %d MiB, %v; want %d MiB, %v", tc.name, got/mb, raised, tc.want/mb, tc.wantRaised)
		}
	}
}

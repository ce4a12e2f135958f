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
		name                   string
		percent                int
		floor, live, scannable uint64
		want                   int
	}{
		{"off stays off", -1, 1024 * mb, 60 * mb, 75 * mb, -1},
		{"no floor", 400, 0, 60 * mb, 75 * mb, 400},
		{"live over the floor", 400, 50 * mb, 60 * mb, 75 * mb, 400},
		{"floor under percent's goal", 400, 300 * mb, 60 * mb, 75 * mb, 400},
		// 60 + 75 × p/100 = 1024: p = 1285.
		{"floor over percent's goal", 400, 1024 * mb, 60 * mb, 75 * mb, 1285},
		{"nothing live yet", 100, 1024 * mb, 0, 2 * mb, 100},
		// 4 MiB × p/100 may not pass the floor: p at most 3200.
		{"almost nothing live", 100, 128 * mb, 1 * mb, 1 * mb, 3200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Percent(tc.percent, tc.floor, tc.live, tc.scannable)
			if got != tc.want {
				t.Errorf("Percent(%d, %d, %d, %d) = %d, want %d", tc.percent, tc.floor, tc.live, tc.scannable, got, tc.want)
			}
			if got > tc.percent && tc.live > 1*mb {
				// The goal the runtime computes from it reaches the floor.
				if goal := tc.live + tc.scannable*uint64(got)/100; goal+tc.scannable/100 < tc.floor {
					t.Errorf("goal %d under the floor %d", goal, tc.floor)
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

// TestRunMakesCollectionsRarer: with a floor of 256 MiB over a live heap
// of a few MiB, allocating 1 GiB collects a few times, not the hundred
// that GOGC=100 alone gives; once stopped, GOGC is the percent again.
func TestRunMakesCollectionsRarer(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	without := churn(1 << 30)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Run(ctx, 100, 256<<20, time.Millisecond); close(done) }()
	// Let it see the state before the churn.
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	deadline := time.Now().Add(5 * time.Second)
	for metrics.Read(s); s[0].Value.Uint64() < 200<<20; metrics.Read(s) {
		if time.Now().After(deadline) {
			t.Fatalf("heap goal %d MiB five seconds after Run began, want the floor's 256", s[0].Value.Uint64()>>20)
		}
		time.Sleep(time.Millisecond)
	}
	with := churn(1 << 30)
	cancel()
	<-done
	t.Logf("collections allocating 1 GiB: %d without the floor, %d with", without, with)
	if with*4 > without {
		t.Errorf("with a 256 MiB floor %d collections, without %d: want at most a quarter", with, without)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC after Run is %d, want 100", p)
	}
}

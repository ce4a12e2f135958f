// Package gcfloor keeps the collector's heap goal from falling below a
// floor: a server whose live heap is small next to its machine's memory
// collects as often as its allocations fill live×(1+GOGC/100), and each
// collection is a burst of marking (and of the goroutines' assists) that
// the moves of that moment wait behind. With a floor the heap may grow to
// the floor before a collection, so collections are rarer by the ratio of
// the floor to that goal, for the resident memory the floor costs. Once the
// live heap outgrows the floor, GOGC alone sets the goal again; a soft
// memory limit (GOMEMLIMIT) still wins over both.
//
// The floor may follow the load: what the process allocates in an
// interval, at the rate measured over the last collection's cycle, up to
// a most (Floor). A busy server then collects about once an interval, and
// an idle one keeps a small heap.
//
// Go has a ceiling for the heap (the memory limit) but no floor: Run
// watches the collections (runtime/metrics) and, after each, sets GOGC to
// the percentage that puts the next goal at the floor.
package gcfloor

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Percent returns the GOGC that puts the next heap goal at
// max(floor, what percent alone gives). The runtime's goal is
// live + (live + roots) × GOGC/100, roots being the stacks' and the
// globals' scannable bytes (the pacer's gcPercentHeapGoal), and at least
// 4 MiB × GOGC/100 (the runtime's least heap), which the GOGC returned
// keeps under the floor. Before the first collection (nothing live) it is
// percent: the first collection comes soon, and the floor holds from then
// on.
func Percent(percent int, floor, live, roots uint64) int {
	if percent < 0 || live == 0 || floor <= live {
		return percent
	}
	p := (floor - live) * 100 / (live + roots)
	p = min(p, floor*100/(4<<20))
	return max(percent, int(p))
}

var names = []string{
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/live:bytes",
	"/gc/scan/stack:bytes",
	"/gc/scan/globals:bytes",
	"/gc/heap/allocs:bytes",
}

// Floor returns the floor for a process allocating rate bytes a second:
// what it allocates in every, at most most; with every 0, most.
func Floor(rate float64, every time.Duration, most uint64) uint64 {
	if every <= 0 {
		return most
	}
	f := rate * every.Seconds()
	if f >= float64(most) {
		return most
	}
	return uint64(max(f, 0))
}

// raise returns the floor raised for the rate since the last collection,
// allocated bytes in elapsed, when that rate's floor is over the floor by
// an eighth (the load grew since: a server's first minutes); it looks at
// a second or more.
func raise(floor, most uint64, every time.Duration, allocated uint64, elapsed time.Duration) (uint64, bool) {
	if every <= 0 || elapsed < time.Second || floor >= most {
		return floor, false
	}
	if f := Floor(float64(allocated)/elapsed.Seconds(), every, most); f > floor+floor/8 {
		return f, true
	}
	return floor, false
}

// Run keeps the heap goal at or above the floor, with percent the GOGC
// to use above it, looking at the collections every poll, until ctx ends;
// it then leaves GOGC at percent. The floor is Floor(rate, every, most),
// rate measured from one collection to the next; between two, it is raised
// (by an eighth or more) when the rate since the last has grown.
func Run(ctx context.Context, percent int, most uint64, every, poll time.Duration) {
	if percent < 0 || most == 0 {
		return
	}
	samples := make([]metrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	defer debug.SetGCPercent(percent)
	var cycles, allocs, floor, live, roots uint64
	var at time.Time
	set := percent
	for first := true; ; first = false {
		metrics.Read(samples)
		now, a := time.Now(), samples[4].Value.Uint64()
		c := samples[0].Value.Uint64()
		retune := false
		switch {
		case first || c != cycles:
			retune = true
			floor = most
			if every > 0 {
				floor = 0 // no rate yet: GOGC alone until the first collection
				if !first {
					floor = Floor(float64(a-allocs)/now.Sub(at).Seconds(), every, most)
				}
			}
			cycles, allocs, at = c, a, now
			live = samples[1].Value.Uint64()
			roots = samples[2].Value.Uint64() + samples[3].Value.Uint64()
		default:
			floor, retune = raise(floor, most, every, a-allocs, now.Sub(at))
		}
		if p := Percent(percent, floor, live, roots); retune && p != set {
			debug.SetGCPercent(p)
			set = p
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

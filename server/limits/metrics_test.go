package limits

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestStatsPercentiles: the lock-free histogram's percentiles are within
// 3% of the true ones (below, never above: a bucket's least time), from
// microseconds to seconds.
func TestStatsPercentiles(t *testing.T) {
	var st Stats
	rng := rand.New(rand.NewPCG(1, 2))
	var all []time.Duration
	for range 100000 {
		// Log-uniform from 1µs to 10s.
		d := time.Duration(float64(time.Microsecond) * math.Pow(10, rng.Float64()*7))
		all = append(all, d)
		st.Add(d)
	}
	slices.Sort(all)
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999, 1} {
		want := all[max(int(q*float64(len(all)))-1, 0)]
		got := st.Percentile(q)
		if got > want || float64(want-got) > 0.032*float64(want) {
			t.Errorf("p%v = %v, true %v: off by more than 3%%", q*100, got, want)
		}
	}
	if st.Moves() != 100000 {
		t.Errorf("%d moves counted", st.Moves())
	}
	st.Reset()
	if st.Moves() != 0 || st.Percentile(0.5) != 0 {
		t.Error("Reset left counts")
	}
	for i := range statBuckets - 1 {
		if bucketOf(bucketTime(i)) != i || bucketTime(i+1) <= bucketTime(i) {
			t.Fatalf("bucket %d starts at %v, which falls in bucket %d", i, bucketTime(i), bucketOf(bucketTime(i)))
		}
	}
}

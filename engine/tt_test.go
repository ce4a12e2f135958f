package engine

import (
	"math/rand/v2"
	"testing"
)

// TestTableAnySize: a table of a size that is not a power of two uses all
// of it (buckets spread over the whole table) and finds what it stored.
func TestTableAnySize(t *testing.T) {
	for _, mb := range []int{1, 3, 6, 64} {
		tb := newTable(mb)
		if got, want := uint64(len(tb.w))*8, uint64(mb)<<20; got != want {
			t.Errorf("%d MiB: a table of %d bytes, want %d", mb, got, want)
		}
		rng := rand.New(rand.NewPCG(1, uint64(mb)))
		used := map[uint64]bool{}
		keys := make([]uint64, 2000)
		for i := range keys {
			keys[i] = rng.Uint64()
			idx := tb.index(keys[i])
			if idx >= uint64(len(tb.w)) || idx%(bucket*2) != 0 {
				t.Fatalf("%d MiB: key %x at word %d of %d", mb, keys[i], idx, len(tb.w))
			}
			used[idx/(bucket*2)*4/tb.buckets] = true // which quarter
			tb.store(keys[i], entry{lo: i % 100, hi: i % 100, depth: exactDepth, move: i % 6}, 1)
		}
		if len(used) != 4 {
			t.Errorf("%d MiB: the keys fell in %d quarters of the table", mb, len(used))
		}
		for i, k := range keys {
			e, ok := tb.probe(k)
			if !ok || e.lo != i%100 || e.move != i%6 {
				t.Errorf("%d MiB: key %d: %+v, %v", mb, i, e, ok)
				break
			}
		}
	}
}

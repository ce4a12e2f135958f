package hugemem

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"unsafe"
)

func TestAlloc(t *testing.T) {
	for _, n := range []int{0, 1, 4096, MinSize - 1, MinSize, MinSize + 12345} {
		b, release := Alloc(n)
		if len(b) != n {
			t.Fatalf("Alloc(%d): %d bytes", n, len(b))
		}
		// Zeroed and writable, at both ends and between.
		if n > 0 {
			for _, i := range []int{0, n / 2, n - 1} {
				if b[i] != 0 {
					t.Fatalf("Alloc(%d): byte %d is %d", n, i, b[i])
				}
			}
			b[0], b[n/2], b[n-1] = 1, 2, 3
		}
		if (n >= MinSize) != (release != nil) {
			t.Errorf("Alloc(%d): release %v, want one from %d bytes", n, release != nil, MinSize)
		}
		if release != nil {
			release()
		}
	}
}

// BenchmarkRandomRead measures the latency of a dependent random read (a
// pointer chase, one read a cache line) over tables of several sizes, as
// Alloc gives them: what a transposition-table probe or an endgame-database
// lookup costs on the machine when it misses the caches. It tells two
// machines apart when the engine's figures differ (docs/PERFORMANCE.md).
func BenchmarkRandomRead(b *testing.B) {
	for _, mb := range []int{1, 2, 4, 8, 64, 256, 1024} {
		b.Run(fmt.Sprintf("%dMiB", mb), func(b *testing.B) {
			mem, release := Alloc(mb << 20)
			if release != nil {
				defer release()
			}
			chase(b, mem)
		})
	}
}

// chase times a dependent read a cache line over mem: one word a 64-byte
// line, linked in a random cycle through every line, so that each read
// waits for the one before.
func chase(b *testing.B, mem []byte) {
	w := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(mem))), len(mem)/8)
	lines := len(w) / 8
	order := rand.New(rand.NewPCG(1, 2)).Perm(lines)
	for i, l := range order {
		w[l*8] = uint64(order[(i+1)%lines] * 8)
	}
	p := uint64(order[0] * 8)
	b.ResetTimer()
	for range b.N {
		p = w[p]
	}
	b.StopTimer()
	if p%8 != 0 {
		b.Fatal("the chase left the lines")
	}
}

// BenchmarkFirstTouch allocates KALAH_BENCH_TOUCH_GIB GiB (default 1),
// writes a byte a page and releases them, reporting seconds a GiB. On a
// virtual machine whose host backs the guest's memory only when it is
// first touched, the first runs on a new machine are many times slower
// than the later ones, which reuse memory already backed: the figures of
// a fresh machine's first solves include that (docs/PERFORMANCE.md).
func BenchmarkFirstTouch(b *testing.B) {
	gib := 1
	if n, err := strconv.Atoi(os.Getenv("KALAH_BENCH_TOUCH_GIB")); err == nil && n > 0 {
		gib = n
	}
	for b.Loop() {
		mem, release := Alloc(gib << 30)
		for i := 0; i < len(mem); i += 4096 {
			mem[i] = 1
		}
		if release != nil {
			release()
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/float64(gib), "s/GiB")
}

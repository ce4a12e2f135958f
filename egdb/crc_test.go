package egdb

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestCRCJoin: the checksum of two parts joined is that of the whole, for
// parts of every small length and some large ones, and checksum (the parts
// on several goroutines) equals the one-pass CRC-32C.
func TestCRCJoin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 40<<20)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	sum := func(p []byte) uint32 { return crc32.Checksum(p, castagnoli) }
	for _, c := range [][2]int{{0, 0}, {0, 5}, {5, 0}, {1, 1}, {3, 17}, {100, 1}, {1 << 20, 3<<20 + 7}, {12345, 10 << 20}} {
		a, b := data[:c[0]], data[c[0]:c[0]+c[1]]
		if got, want := crcJoin(sum(a), sum(b), len(b)), sum(data[:c[0]+c[1]]); got != want {
			t.Errorf("join of %d and %d bytes: %08x, want %08x", c[0], c[1], got, want)
		}
	}
	for range 200 {
		n := rng.IntN(300)
		k := rng.IntN(n + 1)
		if got, want := crcJoin(sum(data[:k]), sum(data[k:n]), n-k), sum(data[:n]); got != want {
			t.Fatalf("join at %d of %d: %08x, want %08x", k, n, got, want)
		}
	}
	for _, n := range []int{0, 1, 2, 7, 8<<20 - 1, 16 << 20, 40<<20 - 3} {
		if got, want := checksum(data[:n]), sum(data[:n]); got != want {
			t.Errorf("checksum of %d bytes: %08x, want %08x", n, got, want)
		}
		for _, parts := range []int{2, 3, 7} {
			if got, want := checksumParts(data[:n], parts), sum(data[:n]); got != want {
				t.Errorf("checksum of %d bytes in %d parts: %08x, want %08x", n, parts, got, want)
			}
		}
	}
}

package egdb

import (
	"hash/crc32"
	"sync"

	"kalah/internal/cores"
)

// The payload's checksum is CRC-32C. Databases run to gigabytes, so the
// checksum of a build, a load or a verification is taken by every core on
// a part each, and the parts' checksums joined (crcJoin).

// checksum returns the CRC-32C of p, on up to GOMAXPROCS goroutines.
func checksum(p []byte) uint32 {
	const least = 8 << 20 // below, one goroutine
	return checksumParts(p, min(cores.N(), max(1, len(p)/least)))
}

// checksumParts is checksum in parts (at least one) taken together.
func checksumParts(p []byte, parts int) uint32 {
	parts = max(1, min(parts, len(p)))
	if parts == 1 {
		return crc32.Checksum(p, castagnoli)
	}
	sums := make([]uint32, parts)
	size := (len(p) + parts - 1) / parts
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			lo := i * size
			sums[i] = crc32.Checksum(p[lo:min(lo+size, len(p))], castagnoli)
		})
	}
	wg.Wait()
	c := sums[0]
	for i := 1; i < parts; i++ {
		lo := i * size
		c = crcJoin(c, sums[i], min(lo+size, len(p))-lo)
	}
	return c
}

// crcJoin returns the CRC-32C of a followed by b, given the checksum of
// each and the length of b. The CRC register is linear over GF(2): the
// checksum of a followed by n bytes equals a's register advanced by n zero
// bytes, xored with b's checksum (the initial and final inversions cancel).
// Advancing by n zero bytes is a 32x32 bit matrix raised to the power n,
// taken by squaring: about log2(n) matrix products.
func crcJoin(a, b uint32, n int) uint32 {
	if n <= 0 {
		return a
	}
	// zero1 advances the register (reflected) by one zero bit: shift right,
	// and fold the polynomial back in when the bit shifted out was set.
	var op gf2Matrix
	op[0] = crc32.Castagnoli
	for i := 1; i < 32; i++ {
		op[i] = 1 << (i - 1)
	}
	// Three squarings: one zero byte.
	for range 3 {
		op = op.square()
	}
	for n > 0 {
		if n&1 != 0 {
			a = op.times(a)
		}
		n >>= 1
		if n > 0 {
			op = op.square()
		}
	}
	return a ^ b
}

// gf2Matrix is a 32x32 bit matrix over GF(2): column i is the image of
// bit i.
type gf2Matrix [32]uint32

func (m *gf2Matrix) times(v uint32) uint32 {
	var r uint32
	for i := 0; v != 0; i, v = i+1, v>>1 {
		if v&1 != 0 {
			r ^= m[i]
		}
	}
	return r
}

func (m *gf2Matrix) square() gf2Matrix {
	var s gf2Matrix
	for i := range s {
		s[i] = m.times(m[i])
	}
	return s
}

package engine

import (
	"kalah/internal/prefetch"
	"math/bits"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// exactDepth marks a table entry (and a search) whose bounds are proven, not
// estimates from a depth-limited search.
const exactDepth = 255

// table is a transposition table shared by the search threads without
// locks: each entry is two words, the key xor the data and the data, so a
// torn write fails the key check and reads as a miss. Buckets of four
// entries fill a cache line.
type table struct {
	w       []atomic.Uint64
	mask    uint64 // buckets - 1 for a power of two, else 0
	buckets uint64
	gen     uint8
}

// entry is a decoded table entry.
type entry struct {
	lo, hi int
	depth  int
	move   int // house index 0..n-1, or -1
}

const bucket = 4

func newTable(megabytes int) *table {
	if megabytes < 1 {
		megabytes = 1
	}
	// Any number of buckets: a power of two is indexed by the key's low
	// bits, any other by the high word of the key times the count, so
	// that a table can fill the memory it is given (6 GiB, not 4 or 8).
	buckets := max(uint64(megabytes)<<20/(bucket*16), 1)
	w, release := allocWords(int(buckets * bucket * 2))
	t := &table{w: w, buckets: buckets}
	if buckets&(buckets-1) == 0 {
		t.mask = buckets - 1
	}
	if release != nil {
		// Unmap the words once the table is unreachable.
		runtime.AddCleanup(t, func(f func()) { f() }, release)
	}
	return t
}

// clear zeroes the table with plain stores (a memclr, tens of
// milliseconds for 256 MiB, where an atomic store a word took over half a
// second). The caller makes sure no search is running.
func (t *table) clear() {
	clear(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(t.w))), len(t.w)))
}

func (t *table) index(key uint64) uint64 {
	if t.mask != 0 || t.buckets == 1 {
		return (mix(key) & t.mask) * bucket * 2
	}
	hi, _ := bits.Mul64(mix(key), t.buckets)
	return hi * bucket * 2
}

func encode(e entry, work int, gen uint8) uint64 {
	return uint64(uint16(int16(e.lo))) | uint64(uint16(int16(e.hi)))<<16 | uint64(uint8(e.depth))<<32 |
		uint64(uint8(e.move+1))<<40 | uint64(uint8(work))<<48 | uint64(gen&0x7f)<<56 | 1<<63
}

func decode(d uint64) entry {
	return entry{lo: int(int16(uint16(d))), hi: int(int16(uint16(d >> 16))), depth: int(uint8(d >> 32)), move: int(uint8(d>>40)) - 1}
}

// prefetch starts loading key's bucket (package prefetch).
func (t *table) prefetch(key uint64) { prefetch.Line(unsafe.Pointer(&t.w[t.index(key)])) }

// probe returns the entry for key, if present.
func (t *table) probe(key uint64) (entry, bool) {
	i := t.index(key)
	for j := uint64(0); j < bucket*2; j += 2 {
		d := t.w[i+j+1].Load()
		if t.w[i+j].Load()^d == key && d != 0 {
			return decode(d), true
		}
	}
	return entry{}, false
}

// store saves an entry; work (log2 of the nodes below) decides which entry
// of a full bucket to give up: the least work, preferring older searches.
func (t *table) store(key uint64, e entry, work int) {
	i := t.index(key)
	victim, worst := i, 1<<30
	for j := uint64(0); j < bucket*2; j += 2 {
		d := t.w[i+j+1].Load()
		k := t.w[i+j].Load() ^ d
		if d == 0 || k == key {
			victim = i + j
			break
		}
		score := int(uint8(d >> 48))
		if uint8(d>>56)&0x7f != t.gen&0x7f {
			score -= 256
		}
		if score < worst {
			worst, victim = score, i+j
		}
	}
	d := encode(e, work, t.gen)
	t.w[victim+1].Store(d)
	t.w[victim].Store(key ^ d)
}

package engine

import (
	"sync/atomic"
	"unsafe"

	"kalah/internal/hugemem"
)

// allocWords returns n zeroed words for the table. From 256 MiB they are
// in huge pages (package hugemem): random probes over a table of hundreds
// of megabytes otherwise spend most of their time on TLB misses. Smaller
// tables (players' 64 MiB) stay on the heap: faulting in huge pages can
// stall for compaction in the middle of a timed move. release, if not nil,
// frees the words; the caller runs it once nothing uses them.
func allocWords(n int) (w []atomic.Uint64, release func()) {
	if n*8 < 256<<20 {
		return make([]atomic.Uint64, n), nil
	}
	mem, release := hugemem.Alloc(n * 8)
	return unsafe.Slice((*atomic.Uint64)(unsafe.Pointer(unsafe.SliceData(mem))), n), release
}

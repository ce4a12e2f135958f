//go:build linux

package engine

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// allocWords returns n zeroed words for the table, mapped outside the Go
// heap and advised into transparent huge pages: random probes over a table
// of hundreds of megabytes otherwise spend most of their time on TLB
// misses. release unmaps it; the caller runs it once nothing uses the words.
func allocWords(n int) (w []atomic.Uint64, release func()) {
	size := n * 8
	if size < 256<<20 {
		// Small tables (players' 64 MiB) stay on the heap: faulting in
		// huge pages can stall for compaction in the middle of a timed move.
		return make([]atomic.Uint64, n), nil
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]atomic.Uint64, n), nil
	}
	_ = syscall.Madvise(mem, syscall.MADV_HUGEPAGE)
	w = unsafe.Slice((*atomic.Uint64)(unsafe.Pointer(&mem[0])), n)
	return w, func() { syscall.Munmap(mem) }
}

//go:build linux

package hugemem

import (
	"fmt"
	"syscall"
	"testing"
)

// BenchmarkRandomReadSmallPages is BenchmarkRandomRead over memory kept
// in 4 KiB pages (MADV_NOHUGEPAGE): what Alloc's huge pages save on the
// machine, where a table's every read would otherwise miss the TLB too.
func BenchmarkRandomReadSmallPages(b *testing.B) {
	for _, mb := range []int{64, 256, 1024} {
		b.Run(fmt.Sprintf("%dMiB", mb), func(b *testing.B) {
			mem, err := syscall.Mmap(-1, 0, mb<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
			if err != nil {
				b.Fatal(err)
			}
			defer syscall.Munmap(mem)
			if err := syscall.Madvise(mem, syscall.MADV_NOHUGEPAGE); err != nil {
				b.Fatal(err)
			}
			chase(b, mem)
		})
	}
}

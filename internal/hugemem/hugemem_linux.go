//go:build linux

package hugemem

import "syscall"

// Alloc returns n zeroed bytes. From MinSize up they are mapped outside
// the Go heap and advised into transparent huge pages, and release unmaps
// them (the caller runs it once nothing uses the bytes); below, they are
// an ordinary slice and release is nil.
func Alloc(n int) (b []byte, release func()) {
	if n < MinSize {
		return make([]byte, n), nil
	}
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n), nil
	}
	_ = syscall.Madvise(mem, syscall.MADV_HUGEPAGE)
	return mem, func() { syscall.Munmap(mem) }
}

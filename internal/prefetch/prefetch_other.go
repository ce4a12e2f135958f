//go:build !amd64

package prefetch

import "unsafe"

// Line does nothing on this architecture.
func Line(p unsafe.Pointer) {}

// Offsets does nothing on this architecture.
func Offsets(base unsafe.Pointer, offs []uint64) {}

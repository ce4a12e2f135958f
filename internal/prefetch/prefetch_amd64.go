package prefetch

import "unsafe"

// Line starts loading the cache line holding p into every cache level.
//
//go:noescape
func Line(p unsafe.Pointer)

// Offsets starts loading the cache lines at base+off for each of offs: one
// call for several lines, since each call costs the caller its registers
// (Go keeps none across a call).
//
//go:noescape
func Offsets(base unsafe.Pointer, offs []uint64)

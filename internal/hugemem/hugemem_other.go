//go:build !linux

package hugemem

// Alloc returns n zeroed bytes; release is nil (no huge pages here).
func Alloc(n int) (b []byte, release func()) { return make([]byte, n), nil }

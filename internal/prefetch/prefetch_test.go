package prefetch

import (
	"testing"
	"unsafe"
)

// TestNeverFaults: a prefetch of any address, mapped or not, does nothing
// a program can see.
func TestNeverFaults(t *testing.T) {
	buf := make([]byte, 1<<16)
	base := unsafe.Pointer(&buf[0])
	Line(base)
	Offsets(base, nil)
	Offsets(base, []uint64{0, 63, 4096, 1<<16 - 1})
	Offsets(nil, []uint64{8, 1 << 40})
	for i := range buf {
		if buf[i] != 0 {
			t.Fatalf("byte %d changed", i)
		}
	}
}

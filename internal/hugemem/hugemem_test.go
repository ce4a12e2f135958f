package hugemem

import "testing"

func TestAlloc(t *testing.T) {
	for _, n := range []int{0, 1, 4096, MinSize - 1, MinSize, MinSize + 12345} {
		b, release := Alloc(n)
		if len(b) != n {
			t.Fatalf("Alloc(%d): %d bytes", n, len(b))
		}
		// Zeroed and writable, at both ends and between.
		if n > 0 {
			for _, i := range []int{0, n / 2, n - 1} {
				if b[i] != 0 {
					t.Fatalf("Alloc(%d): byte %d is %d", n, i, b[i])
				}
			}
			b[0], b[n/2], b[n-1] = 1, 2, 3
		}
		if (n >= MinSize) != (release != nil) {
			t.Errorf("Alloc(%d): release %v, want one from %d bytes", n, release != nil, MinSize)
		}
		if release != nil {
			release()
		}
	}
}

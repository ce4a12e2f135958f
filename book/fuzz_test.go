package book_test

import (
	"bytes"
	"testing"

	"kalah/book"
)

// FuzzParse: Parse never panics, and whatever it accepts encodes back to
// the same bytes.
func FuzzParse(f *testing.F) {
	f.Add(buildSmall(f, 2).Marshal())
	f.Add([]byte("KALAHBK\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := book.Parse(data)
		if err != nil {
			return
		}
		if !bytes.Equal(b.Marshal(), data) {
			t.Fatalf("accepted bytes encode differently")
		}
	})
}

package book_test

import (
	"testing"

	"kalah/book"
)

// BenchmarkBookLookup looks up every position of each embedded book in
// turn: the cost of one Lookup (the key of the board and a binary search).
func BenchmarkBookLookup(b *testing.B) {
	books, err := book.Embedded()
	if err != nil || len(books) == 0 {
		b.Fatalf("embedded books: %v (%d)", err, len(books))
	}
	for _, bk := range books {
		b.Run(book.FileName(bk.Variant()), func(b *testing.B) {
			all := positions(bk.Variant().Rules(), bk.Plies())
			i := 0
			for b.Loop() {
				if _, ok := bk.Lookup(&all[i]); !ok {
					b.Fatalf("%s: not in the book", all[i])
				}
				if i++; i == len(all) {
					i = 0
				}
			}
		})
	}
}

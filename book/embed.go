package book

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"kalah"
)

// data holds the books built into the binary, one file per variant (see
// data/README.md for how they were built).
//
//go:embed data
var data embed.FS

var embedded = sync.OnceValues(func() ([]*Book, error) {
	entries, err := fs.ReadDir(data, "data")
	if err != nil {
		return nil, err
	}
	var books []*Book
	var errs []string
	for _, f := range entries {
		if !strings.HasSuffix(f.Name(), ".kbook") {
			continue
		}
		raw, err := data.ReadFile(path.Join("data", f.Name()))
		if err == nil {
			var b *Book
			if b, err = Parse(raw); err == nil {
				books = append(books, b)
				continue
			}
		}
		errs = append(errs, fmt.Sprintf("%s: %v", f.Name(), err))
	}
	if len(errs) > 0 {
		return books, fmt.Errorf("embedded opening books: %s", strings.Join(errs, "; "))
	}
	return books, nil
})

// Embedded returns the books built into the binary, parsed (and checked)
// on the first call. An error names any embedded file that failed its
// checks; the books that passed are returned with it.
func Embedded() ([]*Book, error) { return embedded() }

// For returns the embedded books whose values hold under rules r (see
// Book.Fits): first the book of r's own seeds a house, then the others
// (whose boards a game of r reaches only once enough seeds are stored),
// deeper first; none for rules no book supports.
func For(r kalah.Rules) []*Book {
	books, _ := Embedded()
	var out []*Book
	for _, b := range books {
		if b.Fits(r) {
			out = append(out, b)
		}
	}
	own := func(b *Book) int {
		if b.v.Seeds == r.Seeds {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(out, func(a, b *Book) int {
		if c := own(a) - own(b); c != 0 {
			return c
		}
		return b.plies - a.plies
	})
	return out
}

// HasStrategy reports whether a strategy book of r's own variant (its
// seeds a house, not a smaller game's) is embedded: the perfect player
// then answers every position of r within its node bound (book/data).
func HasStrategy(r kalah.Rules) bool {
	return slices.ContainsFunc(For(r), func(b *Book) bool { return b.kind == Strategy && b.v.Seeds == r.Seeds })
}

package web

import (
	"kalah"
)

// The page's requests answer their errors as the server's do, through the
// one HTTP layer of the whole API (internal/httpapi: httpapi.StatusOf,
// httpapi.WriteError).

// Human is the spec of a seat played from a browser.
const Human = "human"

// pits lists a position's pits in sowing order, as the page draws them.
func pits(p kalah.Position) []int {
	out := make([]int, 2*p.Houses()+2)
	for i := range out {
		out[i] = p.Pit(i)
	}
	return out
}

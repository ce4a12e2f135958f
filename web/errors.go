package web

import (
	"errors"

	"kalah"
)

// Errors of the page's own requests (analysis, tournaments), matched with
// errors.Is; the handlers map them to the HTTP status codes the server's
// part of the API uses for the same causes.
var (
	ErrNotFound  = errors.New("not found")
	ErrForbidden = errors.New("forbidden")
	// ErrSignIn refuses a guest what needs an account.
	ErrSignIn   = errors.New("sign in first")
	ErrBadInput = errors.New("bad request")
	ErrBusy     = errors.New("too many at once; try again later")
)

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

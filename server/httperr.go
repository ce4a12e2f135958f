package server

import (
	"net/http"
	"time"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/player"
	"kalah/server/core"
	"kalah/server/gate"
	"kalah/tournament"
)

// Errors returns the statuses of every error a request of the API can run
// into, the server's own and those of the packages below it: 4xx for what
// the client asked (malformed, not allowed, not there, not now), 503 for
// what the server cannot do just now (busy, stopping, its store away:
// a full disk, a locked database), and 500 for anything else. It is built
// here, explicitly, and handed to the one HTTP layer where the server is
// assembled (Handler; the page's through web.Options), so what a request
// answers never depends on which packages are linked in.
func Errors() *httpapi.Errors {
	return httpapi.NewErrors().
		Map(http.StatusBadRequest, player.ErrUnknownPlayer, store.ErrBadAccount, identity.ErrBadName, identity.ErrBadID).
		Map(http.StatusUnauthorized, ErrSignIn, ErrAdminToken, store.ErrBadPassword, store.ErrWrongPassword, store.ErrNoSession).
		Map(http.StatusForbidden, ErrForbidden, identity.ErrReserved, netx.ErrCrossSite).
		Map(http.StatusNotFound, ErrNotFound, ErrNoTournament, tournament.ErrNotFound, store.ErrNotFound).
		Map(http.StatusMethodNotAllowed, ErrMethod).
		Map(http.StatusConflict, ErrNotYourTurn, ErrNoSeat, ErrNotCasual, ErrTooLate, store.ErrNameTaken, ErrTournamentOver, ErrGamesUnfinished, ErrNoOffer, ErrNoDraw, ErrNoTakebacks).
		Map(http.StatusTooManyRequests, ErrTooMany, gate.ErrTooMany, gate.ErrTooFast, gate.ErrOverBudget).
		Map(http.StatusServiceUnavailable, ErrBusy, ErrClosed, ErrNoHints, store.ErrHashBusy, store.ErrClosed, store.ErrUnavailable).
		Map(http.StatusGatewayTimeout, ErrNoAnswer).
		Internal(store.ErrClosed, store.ErrUnavailable).
		RetryAfter(10*time.Second, store.ErrUnavailable, ErrTooMany).
		RetryAfter(time.Minute, gate.ErrTooFast)
}

// Errors returns the server's mapping of errors to statuses (Errors), for
// the page that answers through the same layer.
func (s *Server) Errors() *httpapi.Errors { return s.errs }

// ErrAdminToken refuses what needs the server's admin token without it.
var ErrAdminToken = core.ErrAdminToken

// ErrMethod answers a route asked with a method it does not take.
var ErrMethod = core.ErrMethod

// ErrNoAnswer is a bot that did not answer a person's challenge in time.
var ErrNoAnswer = core.ErrNoAnswer

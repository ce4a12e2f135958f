package server

import (
	"net/http"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/server/gate"
	"kalah/tournament"
)

// The server answers every request through the one HTTP layer
// (internal/httpapi), the page's too; here it maps the errors a request
// can run into below it, its own and those of the packages it uses, to
// their statuses: 4xx for what the client asked (malformed, not allowed,
// not there, not now), 503 for what the server cannot do just now (busy,
// stopping, its store failing; httpapi itself answers a request out of
// time so), and 500 for anything else.
func init() {
	httpapi.Map(http.StatusBadRequest, player.ErrUnknownPlayer, store.ErrBadAccount, identity.ErrBadName, identity.ErrBadID)
	httpapi.Map(http.StatusUnauthorized, ErrSignIn, store.ErrBadPassword, store.ErrNoSession)
	httpapi.Map(http.StatusForbidden, ErrForbidden, identity.ErrReserved)
	httpapi.Map(http.StatusNotFound, ErrNotFound, ErrNoTournament, tournament.ErrNotFound, store.ErrNotFound)
	httpapi.Map(http.StatusConflict, ErrNotYourTurn, ErrNoSeat, ErrNotCasual, ErrTooLate, store.ErrNameTaken, ErrTournamentOver)
	httpapi.Map(http.StatusTooManyRequests, ErrTooMany, gate.ErrTooMany, gate.ErrTooFast, gate.ErrOverBudget)
	httpapi.Map(http.StatusServiceUnavailable, ErrBusy, ErrClosed, ErrNoHints, store.ErrHashBusy, store.ErrClosed)
	httpapi.Internal(store.ErrClosed)
}

package views

import (
	"context"
	"net/http"

	"kalah/internal/httpapi"
	"kalah/server/core"
)

// SeatBody is the body of a seat's request: the seat's token, for API
// clients without a session (a page's session is enough), and a move.
type SeatBody struct {
	Token  string `json:"token,omitempty"`
	Move   string `json:"move,omitempty"`
	Invite string `json:"invite,omitempty"`
	// Action is a draw offer's (POST /api/games/{id}/draw).
	Action string `json:"action,omitempty"`
}

// SeatRequest reads the route's game, who asks, and the body of a seat's
// request (which may be empty); it answers a failure and reports false.
func (vs *Views) SeatRequest(w http.ResponseWriter, r *http.Request) (int64, core.Actor, SeatBody, bool) {
	var req SeatBody
	id, err := vs.PathID(r)
	if err == nil && r.ContentLength != 0 {
		err = httpapi.ReadJSON(w, r, &req)
	}
	var a core.Actor
	if err == nil {
		a, err = vs.h.ActorErr(w, r, req.Token)
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return 0, core.Actor{}, req, false
	}
	return id, a, req, true
}

// AnswerBoard answers a seat's request with the game's Board, or err.
func (vs *Views) AnswerBoard(w http.ResponseWriter, r *http.Request, id int64, err error) {
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	b, err := vs.BoardOf(r.Context(), id)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, b)
}

// SeatAction serves a request a player makes on their game (resign,
// abort, takeback, ...), answered with the game's Board.
func (vs *Views) SeatAction(do func(ctx context.Context, id int64, a core.Actor) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, a, _, ok := vs.SeatRequest(w, r)
		if !ok {
			return
		}
		vs.AnswerBoard(w, r, id, do(r.Context(), id, a))
	}
}

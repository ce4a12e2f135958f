package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/netx"
	"kalah/server/core"
	"kalah/server/views"
)

// Handler returns the server's HTTP routes: the bot protocol over
// WebSocket at /ws/bot, and JSON under /api/ (docs/API.md).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteError(w, fmt.Errorf("%w: no route %s %s", ErrNotFound, r.Method, r.URL.Path))
	})
	mux.HandleFunc("GET /ws/bot", s.serveWSLimited)
	// The modules' own routes.
	s.views.Routes(mux, s.streamed)
	s.lobby.Routes(mux, s.streamed)
	s.social.Routes(mux)
	s.ratings.Routes(mux)
	s.accounts.Routes(mux)
	mux.HandleFunc("POST /api/games", s.apiStart)
	mux.HandleFunc("POST /api/games/{id}/move", s.apiMove)
	mux.HandleFunc("POST /api/games/{id}/join", s.apiJoin)
	mux.HandleFunc("POST /api/games/{id}/takeback", s.seatAction(s.TakeBack))
	mux.HandleFunc("POST /api/games/{id}/takeback/decline", s.seatAction(s.DeclineTakeBack))
	mux.HandleFunc("POST /api/games/{id}/draw", s.apiDraw)
	mux.HandleFunc("POST /api/games/{id}/resign", s.seatAction(s.Resign))
	mux.HandleFunc("POST /api/games/{id}/abort", s.seatAction(s.Abort))
	mux.HandleFunc("POST /api/games/{id}/claim", s.seatAction(s.Claim))
	mux.HandleFunc("POST /api/games/{id}/moretime", s.seatAction(s.GiveTime))
	mux.HandleFunc("POST /api/games/{id}/hint", s.apiHint)
	mux.HandleFunc("POST /api/games/{id}/rematch", s.apiRematch)
	s.arrangedGames.Routes(mux)
	mux.HandleFunc("GET /api/bots/online", s.apiOnlineBots)
	mux.HandleFunc("POST /api/bots/{name}/challenge", s.apiChallengeBot)
	mux.HandleFunc("POST /api/account/bots/{name}/token", s.apiRotateBotToken)
	// Limits keyed by address count the real client behind a trusted
	// proxy; every answer carries the security headers.
	return s.cfg.TrustedProxies.RealClients(netx.Secured(httpapi.Requests(netx.WritesChecked(mux), s.log, s.errs)))
}

// pathID reads a route's {id}: a game's number, or an id GameID knows.
func (s *Server) pathID(r *http.Request) (int64, error) { return s.views.PathID(r) }

func (s *Server) apiStart(w http.ResponseWriter, r *http.Request) {
	var req GameRequest
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	// A guest may play the computer or invite a friend; a game with no
	// person in it (the server's work), or one person on both sides, needs
	// an account or the admin token.
	isHuman := func(spec string) bool {
		spec = strings.TrimSpace(spec)
		return spec == "" || strings.EqualFold(spec, "human")
	}
	people := 0
	for _, spec := range []string{req.South, req.North} {
		if isHuman(spec) {
			people++
		}
	}
	if (people == 0 || people == 2 && !req.Invite) && s.sessionUser(r) == "" && !s.admitted(w, r, "a game between two computers, or for one person on both sides (or an account: sign in)") {
		return
	}
	req.By = s.actor(w, r, "", true).ID
	req.Addrs = [2]string{hostOf(r), hostOf(r)}
	st, err := s.StartGame(r.Context(), req)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, st)
}

func (s *Server) apiMove(w http.ResponseWriter, r *http.Request) {
	id, a, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	if req.Move == "resign" {
		s.answerBoard(w, r, id, s.Resign(r.Context(), id, a))
		return
	}
	m, err := kalah.ParseMove(req.Move)
	if err != nil {
		httpapi.WriteError(w, fmt.Errorf("%w: %w", ErrBadRequest, err))
		return
	}
	s.answerBoard(w, r, id, s.Move(r.Context(), id, a, m))
}

// answerBoard answers a seat's request with the game's Board, or err.
func (s *Server) answerBoard(w http.ResponseWriter, r *http.Request, id int64, err error) {
	s.views.AnswerBoard(w, r, id, err)
}

// hostOf is the address a request's client is counted under by the
// limits: the real client behind a trusted proxy, an IPv6 one by its /64
// (netx.Key).
func hostOf(r *http.Request) string { return core.HostOf(r) }

// seatRequest reads the route's game, who asks, and the body of a seat's
// request (views.SeatRequest).
func (s *Server) seatRequest(w http.ResponseWriter, r *http.Request) (int64, Actor, views.SeatBody, bool) {
	return s.views.SeatRequest(w, r)
}

// seatAction serves a request a player makes on their game, answered with
// the game's Board (views.SeatAction).
func (s *Server) seatAction(do func(ctx context.Context, id int64, a Actor) error) http.HandlerFunc {
	return s.views.SeatAction(do)
}

func (s *Server) apiJoin(w http.ResponseWriter, r *http.Request) {
	id, _, req, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	a := s.actor(w, r, "", true)
	seat, token, err := s.Join(r.Context(), id, a, req.Invite)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	out := map[string]any{"seat": seat, "token": token}
	// A rated invitation between players who have played their rated
	// games with each other today is played unrated: they hear it now.
	if v, err := s.Game(r.Context(), id); err == nil {
		if note := casualNote(v.Record.Tags, a.ID, v.IDs, [2]string{v.South, v.North}); note != "" {
			out["note"] = note
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

func (s *Server) apiHint(w http.ResponseWriter, r *http.Request) {
	id, a, _, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	m, err := s.Hint(ctx, id, a)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"move": m.String()})
}

// Requester names who makes r, for the limits on unfinished games
// (accounts.Service.Requester).
func (s *Server) Requester(r *http.Request) string { return s.accounts.Requester(r) }

func (s *Server) apiRematch(w http.ResponseWriter, r *http.Request) {
	id, a, _, ok := s.seatRequest(w, r)
	if !ok {
		return
	}
	st, err := s.Rematch(r.Context(), id, a)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, st)
}

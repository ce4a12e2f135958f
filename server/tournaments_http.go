package server

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
)

// ServeHTTP serves the tournaments' part of the API (docs/API.md):
//
//	GET  /api/tournaments       every tournament, newest first
//	POST /api/tournaments       a NewTournament: starts it (201, its state)
//	GET  /api/tournaments/{id}  its state, standings and games
//
// Starting one is the server's work: it needs a signed-in person or the
// admin token (or a server without one), and entering a bot needs its
// owner, the admin token or the bot's own acceptance (see Create).
func (t *Tournaments) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, one := strings.CutPrefix(r.URL.Path, "/api/tournaments/")
	switch {
	case one && r.Method == http.MethodGet:
		t.apiState(w, r, id)
	case !one && r.URL.Path == "/api/tournaments" && r.Method == http.MethodGet:
		t.apiList(w, r)
	case !one && r.URL.Path == "/api/tournaments" && r.Method == http.MethodPost:
		t.apiCreate(w, r)
	case one || r.URL.Path == "/api/tournaments":
		w.Header().Set("Allow", map[bool]string{true: "GET", false: "GET, POST"}[one])
		WriteJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": r.Method + " " + r.URL.Path + ": method not allowed"})
	default:
		t.fail(w, r, fmt.Errorf("%w: %s", ErrNoTournament, r.URL.Path))
	}
}

// organizer is who a request comes from: the admin (with the admin
// token), a signed-in person, both or neither.
func (s *Server) organizer(r *http.Request) Organizer {
	o := Organizer{Account: s.sessionUser(r)}
	if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.cfg.AdminToken != "" {
		o.Admin = subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.cfg.AdminToken)) == 1
	}
	return o
}

func (t *Tournaments) apiCreate(w http.ResponseWriter, r *http.Request) {
	var req NewTournament
	if err := ReadJSON(w, r, &req); err != nil {
		t.fail(w, r, fmt.Errorf("%w: request body: %w", ErrBadRequest, err))
		return
	}
	// A tournament is the server's work: it needs a signed-in person.
	if !t.srv.Trusted(r) {
		t.fail(w, r, fmt.Errorf("%w: sign in to start a tournament", ErrSignIn))
		return
	}
	id, err := t.Create(r.Context(), t.srv.organizer(r), req)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	st, err := t.State(r.Context(), id)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusCreated, st)
}

func (t *Tournaments) apiList(w http.ResponseWriter, r *http.Request) {
	list, err := t.List(r.Context())
	if err != nil {
		t.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, list)
}

func (t *Tournaments) apiState(w http.ResponseWriter, r *http.Request, id string) {
	st, err := t.State(r.Context(), id)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, st)
}

// fail answers an error as every request of the API does (WriteError).
func (t *Tournaments) fail(w http.ResponseWriter, r *http.Request, err error) {
	WriteError(w, err)
}

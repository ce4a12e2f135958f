package tournaments

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/server/core"
)

// ServeHTTP serves the tournaments' part of the API (docs/API.md):
//
//	GET  /api/tournaments                every tournament, newest first
//	POST /api/tournaments                a NewTournament, or with "people":
//	                                     true a people's arena or Swiss:
//	                                     starts it (201, its state)
//	GET  /api/tournaments/{id}           its state, standings and games
//	POST /api/tournaments/{id}/join      a people's tournament: enter it
//	POST /api/tournaments/{id}/withdraw  ... and leave it
//
// Starting one is the server's work: it needs a signed-in person or the
// admin token (or a server without one; a people's tournament, a
// signed-in person), and entering a bot needs its owner, the admin token
// or the bot's own acceptance (see Create; a bot joins a people's
// tournament by its own token too).
func (t *Tournaments) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t.routesOnce.Do(func() { t.routes = httpapi.Requests(t.newRoutes(), t.log, t.errMap) })
	t.routes.ServeHTTP(w, r)
}

// newRoutes lays out the tournaments' routes on method patterns; a known
// route asked with another method, and a path that is none, are answered
// as every error of the API (405 with Allow, 404), in JSON.
func (t *Tournaments) newRoutes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /api/tournaments", t.apiList)
	m.HandleFunc("POST /api/tournaments", t.apiCreate)
	m.HandleFunc("GET /api/tournaments/{id}", func(w http.ResponseWriter, r *http.Request) { t.apiState(w, r, r.PathValue("id")) })
	for _, action := range []string{"join", "withdraw"} {
		m.HandleFunc("POST /api/tournaments/{id}/"+action, func(w http.ResponseWriter, r *http.Request) {
			t.apiEntry(w, r, r.PathValue("id"), action)
		})
		m.HandleFunc("/api/tournaments/{id}/"+action, methodNotAllowed("POST"))
	}
	m.HandleFunc("/api/tournaments", methodNotAllowed("GET, POST"))
	m.HandleFunc("/api/tournaments/{id}", methodNotAllowed("GET"))
	m.HandleFunc("/api/tournaments/", func(w http.ResponseWriter, r *http.Request) {
		t.fail(w, r, fmt.Errorf("%w: %s", ErrNoTournament, r.URL.Path))
	})
	return m
}

// methodNotAllowed answers a route's other methods: 405, with the ones
// it takes.
func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		httpapi.WriteError(w, fmt.Errorf("%w: %s %s (it takes %s)", core.ErrMethod, r.Method, r.URL.Path, allow))
	}
}

// organizer is who a request comes from: the admin (with the admin
// token), a signed-in person, both or neither.
func (t *Tournaments) organizer(r *http.Request) Organizer {
	o := Organizer{Account: t.host.SessionUser(r)}
	if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && t.admin != "" {
		o.Admin = subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(t.admin)) == 1
	}
	return o
}

// tournamentRequest is POST /api/tournaments's body: a NewTournament, or
// with People a NewPeople.
type tournamentRequest struct {
	NewTournament
	People      bool  `json:"people"`
	ClockMS     int64 `json:"clock_ms"`
	IncrementMS int64 `json:"increment_ms"`
	Minutes     int   `json:"minutes"`
	StartsInS   int   `json:"starts_in_s"`
	Rated       *bool `json:"rated"`
}

func (t *Tournaments) apiCreate(w http.ResponseWriter, r *http.Request) {
	var body tournamentRequest
	if err := httpapi.ReadJSON(w, r, &body); err != nil {
		t.fail(w, r, fmt.Errorf("%w: request body: %w", core.ErrBadRequest, err))
		return
	}
	req := body.NewTournament
	if body.People {
		t.apiCreatePeople(w, r, body)
		return
	}
	if body.ClockMS != 0 || body.IncrementMS != 0 || body.Minutes != 0 || body.StartsInS != 0 || body.Rated != nil ||
		req.Format == formatArena {
		t.fail(w, r, fmt.Errorf(`%w: clock_ms, increment_ms, minutes, starts_in_s, rated and the arena are for people's tournaments ("people": true)`, core.ErrBadRequest))
		return
	}
	// A tournament is the server's work: it needs a signed-in person.
	if !t.host.Trusted(r) {
		t.fail(w, r, fmt.Errorf("%w: sign in to start a tournament", core.ErrSignIn))
		return
	}
	id, err := t.Create(r.Context(), t.organizer(r), req)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	st, err := t.State(r.Context(), id)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, st)
}

func (t *Tournaments) apiList(w http.ResponseWriter, r *http.Request) {
	list, err := t.List(r.Context())
	if err != nil {
		t.fail(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, list)
}

// apiCreatePeople starts a people's tournament for the signed-in person
// who asks (and enters them in it).
func (t *Tournaments) apiCreatePeople(w http.ResponseWriter, r *http.Request, body tournamentRequest) {
	if len(body.Players) > 0 || body.PerMoveMillis != 0 || body.DelayMillis != 0 || body.Seed != 0 {
		t.fail(w, r, fmt.Errorf("%w: a people's tournament has no players, per_move_ms, delay_ms or seed: people and bots join it, under its clock (clock_ms, increment_ms)", core.ErrBadRequest))
		return
	}
	var creator identity.ID
	if u := t.host.SessionUser(r); u != "" {
		creator = identity.Of(identity.Person, u)
	}
	if t.people == nil {
		t.fail(w, r, fmt.Errorf("%w: this server runs no people's tournaments", core.ErrBadRequest))
		return
	}
	id, err := t.people.Create(r.Context(), creator, NewPeople{Name: body.Name, Format: body.Format, Rules: body.Rules,
		ClockMS: body.ClockMS, IncrementMS: body.IncrementMS, Minutes: body.Minutes, Rounds: body.Rounds, StartsInS: body.StartsInS, Rated: body.Rated})
	if err != nil {
		t.fail(w, r, err)
		return
	}
	st, err := t.people.State(r.Context(), id, creator)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, st)
}

// apiEntry joins or withdraws the requester, or with {"bot": NAME} their
// bot, in people's tournament id, and answers with its state.
func (t *Tournaments) apiEntry(w http.ResponseWriter, r *http.Request, id, action string) {
	var body struct {
		Bot string `json:"bot"`
	}
	if err := httpapi.ReadJSON(w, r, &body); err != nil {
		t.fail(w, r, err)
		return
	}
	if !t.isPeopleID(id) {
		if _, err := tournamentID(id); err != nil {
			t.fail(w, r, err)
			return
		}
		t.fail(w, r, fmt.Errorf("%w: tournament %s is between the players it was started with: only people's tournaments take entrants", core.ErrBadRequest, id))
		return
	}
	a := t.host.Actor(w, r)
	if err := t.people.Enter(r.Context(), id, a, t.organizer(r), body.Bot, action == "withdraw"); err != nil {
		t.fail(w, r, err)
		return
	}
	st, err := t.people.State(r.Context(), id, a.ID)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, st)
}

func (t *Tournaments) apiState(w http.ResponseWriter, r *http.Request, id string) {
	if t.isPeopleID(id) {
		st, err := t.people.State(r.Context(), id, t.host.Actor(w, r).ID)
		if err != nil {
			t.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		httpapi.WriteJSON(w, http.StatusOK, st)
		return
	}
	st, err := t.State(r.Context(), id)
	if err != nil {
		t.fail(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, st)
}

// fail answers an error as every request of the API does (WriteError).
func (t *Tournaments) fail(w http.ResponseWriter, r *http.Request, err error) {
	httpapi.WriteError(w, err)
}

// formatArena is the people's tournaments' arena, which only they play.
const formatArena = "arena"

// isPeopleID reports whether id names a people's tournament.
func (t *Tournaments) isPeopleID(id string) bool { return t.people != nil && t.people.IsID(id) }

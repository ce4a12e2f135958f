package server

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/referee"
)

// Seeks: a signed-in person asks for a game against anyone (rules, clock,
// rated or casual); another signed-in person accepts it and the server
// starts the game between them, sides drawn at random. Seeks live in
// memory: a restart forgets them, not their games.

// Seek is one person's open offer of a game.
type Seek struct {
	ID          int64       `json:"id"`
	By          string      `json:"by"`
	Rating      *SeatRating `json:"rating,omitempty"`
	Rules       kalah.Rules `json:"rules"`
	ClockMS     int64       `json:"clock_ms"`
	IncrementMS int64       `json:"increment_ms"`
	Rated       bool        `json:"rated"`
	Created     time.Time   `json:"created"`
	// Game, once someone accepted, is the game; Token, in the answer to
	// the person who sought only, moves their seat.
	Game  int64  `json:"game,omitempty"`
	Token string `json:"token,omitempty"`
}

type seeks struct {
	mu   sync.Mutex
	next int64
	all  map[int64]*Seek
}

// maxSeeks bounds the open seeks of the whole server.
const maxSeeks = 1000

// ErrSignIn refuses a guest what needs an account.
var ErrSignIn = errors.New("sign in first")

func (s *Server) seekOf(id int64) (*Seek, error) {
	s.seeks.mu.Lock()
	defer s.seeks.mu.Unlock()
	sk := s.seeks.all[id]
	if sk == nil {
		return nil, fmt.Errorf("seek %d: %w", id, ErrNotFound)
	}
	return sk, nil
}

func (s *Server) apiSeek(w http.ResponseWriter, r *http.Request) {
	user, ok := s.signedIn(w, r, "seek a game")
	if !ok {
		return
	}
	var req struct {
		Rules       kalah.Rules `json:"rules"`
		ClockMS     int64       `json:"clock_ms"`
		IncrementMS int64       `json:"increment_ms"`
		Rated       bool        `json:"rated"`
	}
	if err := ReadJSON(w, r, &req); err != nil {
		WriteError(w, err)
		return
	}
	if req.Rules.Houses == 0 && req.Rules.Seeds == 0 {
		req.Rules = s.cfg.Rules
	}
	if err := req.Rules.Validate(); err != nil {
		WriteError(w, fmt.Errorf("%w: %w", ErrBadRequest, err))
		return
	}
	if req.ClockMS < 0 || req.ClockMS > 3*3600_000 || req.IncrementMS < 0 || req.IncrementMS > 60_000 || (req.IncrementMS > 0 && req.ClockMS == 0) {
		WriteError(w, fmt.Errorf("%w: a clock of %d ms with %d ms a move", ErrBadRequest, req.ClockMS, req.IncrementMS))
		return
	}
	sk := &Seek{By: user, Rules: req.Rules, ClockMS: req.ClockMS, IncrementMS: req.IncrementMS, Rated: req.Rated, Created: time.Now()}
	s.seeks.mu.Lock()
	if s.seeks.all == nil {
		s.seeks.all = map[int64]*Seek{}
	}
	for id, o := range s.seeks.all {
		if o.By == user && o.Game == 0 {
			delete(s.seeks.all, id) // one open seek a person: the newest
		}
	}
	if len(s.seeks.all) >= maxSeeks {
		s.seeks.mu.Unlock()
		WriteError(w, fmt.Errorf("%w: too many open seeks; accept one", ErrBusy))
		return
	}
	s.seeks.next++
	sk.ID = s.seeks.next
	s.seeks.all[sk.ID] = sk
	out := *sk
	s.seeks.mu.Unlock()
	WriteJSON(w, http.StatusCreated, out)
}

// apiSeeks lists the open seeks, newest first, each with its seeker's
// rating on that ladder.
func (s *Server) apiSeeks(w http.ResponseWriter, r *http.Request) {
	s.seeks.mu.Lock()
	out := []Seek{}
	for id, sk := range s.seeks.all {
		if sk.Game != 0 && time.Since(sk.Created) > 10*time.Minute {
			delete(s.seeks.all, id)
			continue
		}
		if sk.Game == 0 {
			c := *sk
			c.Token = ""
			out = append(out, c)
		}
	}
	s.seeks.mu.Unlock()
	slices.SortFunc(out, func(a, b Seek) int { return int(b.ID - a.ID) })
	for i := range out {
		out[i].Rating = s.ratingOn(r.Context(), out[i].By, out[i].Rules, out[i].ClockMS, out[i].IncrementMS)
	}
	WriteJSON(w, http.StatusOK, out)
}

func (s *Server) ratingOn(ctx context.Context, name string, r kalah.Rules, clock, inc int64) *SeatRating {
	ref := referee.Referee{Budget: time.Duration(clock) * time.Millisecond, Increment: time.Duration(inc) * time.Millisecond}
	return s.ratingIn(ctx, identity.Of(identity.Person, name), poolOf(r, ref))
}

// apiSeekState answers one seek; to the person who sought it, once
// someone accepted, with the game and the token of their seat.
func (s *Server) apiSeekState(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	sk, err := s.seekOf(id)
	if err != nil {
		WriteError(w, err)
		return
	}
	s.seeks.mu.Lock()
	out := *sk
	s.seeks.mu.Unlock()
	if s.sessionUser(r) != out.By {
		out.Token = ""
	}
	WriteJSON(w, http.StatusOK, out)
}

func (s *Server) apiSeekCancel(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	user := s.sessionUser(r)
	s.seeks.mu.Lock()
	defer s.seeks.mu.Unlock()
	sk := s.seeks.all[id]
	switch {
	case sk == nil:
		WriteError(w, fmt.Errorf("seek %d: %w", id, ErrNotFound))
	case sk.By != user:
		WriteError(w, fmt.Errorf("%w: not your seek", ErrForbidden))
	case sk.Game != 0:
		WriteError(w, fmt.Errorf("%w: someone accepted it already: game %d", ErrNoSeat, sk.Game))
	default:
		delete(s.seeks.all, id)
		WriteJSON(w, http.StatusOK, map[string]string{"ok": "cancelled"})
	}
}

// apiSeekAccept starts the game of a seek between its seeker and the
// person who accepts, sides drawn at random, and answers the game with the
// token of the accepter's seat.
func (s *Server) apiSeekAccept(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	user, ok := s.signedIn(w, r, "accept a game")
	if !ok {
		return
	}
	s.seeks.mu.Lock()
	sk := s.seeks.all[id]
	switch {
	case sk == nil:
		s.seeks.mu.Unlock()
		WriteError(w, fmt.Errorf("seek %d: %w", id, ErrNotFound))
		return
	case sk.By == user:
		s.seeks.mu.Unlock()
		WriteError(w, fmt.Errorf("%w: your own seek", ErrForbidden))
		return
	case sk.Game != 0:
		s.seeks.mu.Unlock()
		WriteError(w, fmt.Errorf("%w: someone accepted it first", ErrNoSeat))
		return
	}
	sk.Game = -1 // being started: no one else takes it
	seek := *sk
	s.seeks.mu.Unlock()
	names := [2]string{seek.By, user}
	if rand.IntN(2) == 1 {
		names = [2]string{user, seek.By}
	}
	ids := [2]identity.ID{identity.Of(identity.Person, names[0]), identity.Of(identity.Person, names[1])}
	req := GameRequest{Rules: seek.Rules, South: "human", North: "human", ClockMS: seek.ClockMS,
		IncrementMS: seek.IncrementMS, Rated: seek.Rated, seated: ids, by: ids[0]}
	st, err := s.StartGame(r.Context(), req)
	s.seeks.mu.Lock()
	if err != nil {
		sk.Game = 0
		s.seeks.mu.Unlock()
		WriteError(w, err)
		return
	}
	mine := 0
	if names[1] == user {
		mine = 1
	}
	sk.Game, sk.Token = st.ID, st.Tokens[1-mine]
	s.seeks.mu.Unlock()
	out := Started{ID: st.ID}
	out.Tokens[mine] = st.Tokens[mine]
	WriteJSON(w, http.StatusCreated, out)
}

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"kalah"
	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/netx"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/gate"
)

// Seeks: someone asks for a game against anyone (rules, clock, rated or
// casual); an equal offer pairs them at once (pairing.go), or another
// person accepts it from the list, and the server starts the game between
// them, sides drawn at random. A seek lives only while its seeker is
// there: it is followed by an event stream (GET /api/seeks/{id}/events,
// which the page holds open while it waits), and goes the moment the last
// one closes, or SeekGrace after it was made if none ever opened. Guests
// may seek casual games; rated ones need an account. Seeks live in memory:
// a restart forgets them, not their games.

// Seek is one person's open offer of a game.
type Seek struct {
	ID int64 `json:"id"`
	// By is the seeker's name, ByID who they are.
	By          string      `json:"by"`
	ByID        identity.ID `json:"by_id"`
	Rating      *SeatRating `json:"rating,omitempty"`
	Rules       kalah.Rules `json:"rules"`
	ClockMS     int64       `json:"clock_ms"`
	IncrementMS int64       `json:"increment_ms"`
	Rated       bool        `json:"rated"`
	// Note, once a rated seek is paired with someone its seeker has played
	// their rated games with today, says the game is played unrated
	// ("casual: you have played 5 rated games with bob today").
	Note string `json:"note,omitempty"`
	// Range, if not zero, is the widest rating difference the seeker
	// accepts, either way, on the seek's ladder.
	Range   int       `json:"range,omitempty"`
	Created time.Time `json:"created"`
	// Game, once paired, is the game; Token, in answers to the seeker
	// only, moves their seat (for API clients; a page moves it by its
	// session or guest cookie).
	Game  int64  `json:"game,omitempty"`
	Token string `json:"token,omitempty"`

	// NoTakebacks: the game is played with takebacks refused (asked for
	// with "takebacks": false).
	NoTakebacks bool `json:"no_takebacks,omitempty"`
	// Closed, in the list (GET /api/seeks), says why the one asking could
	// not accept the seek (a rated seek and they a guest, their rating
	// outside its range); empty when they could.
	Closed string `json:"closed,omitempty"`
}

type seeks struct {
	mu   sync.Mutex
	next int64
	all  map[int64]*seekEntry
	// grace, if set, replaces SeekGrace (tests).
	grace time.Duration
}

// Bounds of the seeks.
const (
	maxSeeks        = 1000 // open seeks of the whole server
	maxSeeksPerAddr = 10   // open seeks of one client address
	// pairedKept is how long a paired seek is kept, for its seeker to
	// find the game.
	pairedKept = 10 * time.Minute
)

// SeekGrace is how long a seek waits for its seeker's event stream before
// it is dropped as nobody's.
const SeekGrace = 10 * time.Second

// StreamSeek is the kind of a seek's event stream among the long-lived
// requests (limits.go).
const StreamSeek = "seek"

// ErrSignIn refuses a guest what needs an account.
var ErrSignIn = core.ErrSignIn

// seeker returns who makes a request about seeks: a person or a guest (a
// new guest if create); bots play through the queue and challenges.
func (s *Server) seeker(w http.ResponseWriter, r *http.Request, create bool) (identity.ID, error) {
	a, err := s.actorErr(w, r, "", create)
	if err != nil {
		return a.ID, err
	}
	switch a.ID.Kind {
	case identity.Bot:
		return a.ID, fmt.Errorf("%w: bots play through the queue and challenges, not seeks", ErrForbidden)
	case identity.Person, identity.Guest:
		return a.ID, nil
	}
	return a.ID, fmt.Errorf("%w: no one known makes this request", ErrSignIn)
}

// seekRequest is the body of POST /api/seeks.
type seekRequest struct {
	Rules       kalah.Rules `json:"rules"`
	ClockMS     int64       `json:"clock_ms"`
	IncrementMS int64       `json:"increment_ms"`
	Rated       bool        `json:"rated"`
	Range       int         `json:"range"`
	// Takebacks false refuses every takeback in the game.
	Takebacks *bool `json:"takebacks"`
}

func (s *Server) apiSeek(w http.ResponseWriter, r *http.Request) {
	var req seekRequest
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	who, err := s.seeker(w, r, true)
	if err == nil && req.Rated && who.Kind != identity.Person {
		err = fmt.Errorf("%w: a rated game needs an account (a guest may seek a casual one)", ErrSignIn)
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if req.Rules.Houses == 0 && req.Rules.Seeds == 0 {
		req.Rules = s.cfg.Rules
	}
	if err := req.Rules.Validate(); err != nil {
		httpapi.WriteError(w, fmt.Errorf("%w: %w", ErrBadRequest, err))
		return
	}
	if req.ClockMS < 0 || req.ClockMS > 3*3600_000 || req.IncrementMS < 0 || req.IncrementMS > 60_000 || (req.IncrementMS > 0 && req.ClockMS == 0) {
		httpapi.WriteError(w, fmt.Errorf("%w: a clock of %d ms with %d ms a move", ErrBadRequest, req.ClockMS, req.IncrementMS))
		return
	}
	if req.Range < 0 || req.Range > maxRange {
		httpapi.WriteError(w, fmt.Errorf("%w: a rating range of %d: want 0 (anyone) to %d", ErrBadRequest, req.Range, maxRange))
		return
	}
	e := &seekEntry{Seek: Seek{By: who.Display(), ByID: who, Rules: req.Rules, ClockMS: req.ClockMS, IncrementMS: req.IncrementMS,
		Rated: req.Rated, Range: req.Range, NoTakebacks: req.Takebacks != nil && !*req.Takebacks, Created: time.Now()}, addr: hostOf(r), done: make(chan struct{})}
	e.rating = float64(s.seekRating(r.Context(), &e.Seek).Rating)
	s.seeks.mu.Lock()
	if s.seeks.all == nil {
		s.seeks.all = map[int64]*seekEntry{}
	}
	s.pruneLocked(time.Now())
	perAddr := 0
	for id, o := range s.seeks.all {
		switch {
		case o.ByID.Is(who) && o.open():
			s.dropSeekLocked(id, o) // one open seek a person: the newest
		case o.addr == e.addr && o.open():
			perAddr++
		}
	}
	if len(s.seeks.all) >= maxSeeks || perAddr >= maxSeeksPerAddr {
		s.seeks.mu.Unlock()
		s.refused("seeks")
		httpapi.WriteError(w, fmt.Errorf("%w: too many open seeks; accept one", ErrTooMany))
		return
	}
	s.seeks.next++
	e.ID = s.seeks.next
	s.seeks.all[e.ID] = e
	mate := partner(e, s.seeks.all)
	if mate == nil {
		out := e.Seek
		s.seeks.mu.Unlock()
		httpapi.WriteJSON(w, http.StatusCreated, out)
		return
	}
	// An equal offer waits: the game starts now.
	e.Game, mate.Game = -1, -1 // being started: no one else takes them
	s.seeks.mu.Unlock()
	if err := s.pair(r.Context(), mate, e, gate.Quick); err != nil {
		s.seeks.mu.Lock()
		s.dropSeekLocked(e.ID, e)
		s.seeks.mu.Unlock()
		httpapi.WriteError(w, err)
		return
	}
	s.seeks.mu.Lock()
	out := e.Seek
	s.seeks.mu.Unlock()
	httpapi.WriteJSON(w, http.StatusCreated, out)
}

// seekRating returns a seek's seeker's rating on its ladder.
func (s *Server) seekRating(ctx context.Context, sk *Seek) *SeatRating {
	ref := referee.Referee{Budget: time.Duration(sk.ClockMS) * time.Millisecond, Increment: time.Duration(sk.IncrementMS) * time.Millisecond}
	return s.ratingIn(ctx, sk.ByID, poolOf(sk.Rules, ref))
}

// pair starts the game of two seeks that were marked as being started
// (Game -1), sides drawn at random, and gives each seek its game and its
// seeker's token. If the game cannot start, both seeks wait again.
func (s *Server) pair(ctx context.Context, a, b *seekEntry, path gate.Path) error {
	es := [2]*seekEntry{a, b}
	if rand.IntN(2) == 1 {
		es = [2]*seekEntry{b, a}
	}
	ids := [2]identity.ID{es[0].ByID, es[1].ByID}
	req := GameRequest{Rules: a.Rules, South: "human", North: "human", ClockMS: a.ClockMS, IncrementMS: a.IncrementMS,
		Rated: a.Rated, Casual: !a.Rated, seated: ids, by: ids[0], path: path, addrs: [2]string{es[0].addr, es[1].addr}}
	if a.NoTakebacks || b.NoTakebacks {
		req.Takebacks = new(bool)
	}
	st, err := s.StartGame(ctx, req)
	s.seeks.mu.Lock()
	defer s.seeks.mu.Unlock()
	if err != nil {
		for _, e := range es {
			if e.Game == -1 {
				e.Game = 0
			}
		}
		return err
	}
	for i, e := range es {
		e.Game, e.Token, e.seat = st.ID, st.Tokens[i], i
		if st.limited >= 0 {
			e.Note = limitNote(strconv.Itoa(st.limited), e.ByID, ids, [2]string{es[0].By, es[1].By})
		}
		e.finish()
	}
	return nil
}

// dropSeekLocked removes a seek that has no game (s.seeks.mu held).
func (s *Server) dropSeekLocked(id int64, e *seekEntry) {
	delete(s.seeks.all, id)
	e.gone = true
	e.finish()
}

// pruneLocked removes the seeks whose seeker is not there (no stream of
// theirs opened within SeekGrace) and the paired ones kept long enough
// (s.seeks.mu held). Every look at the seeks prunes first, so none sees a
// seek whose seeker has gone.
func (s *Server) pruneLocked(now time.Time) {
	grace := SeekGrace
	if s.seeks.grace > 0 {
		grace = s.seeks.grace
	}
	for id, e := range s.seeks.all {
		switch {
		case e.Game == 0 && e.present == 0 && now.Sub(e.Created) >= grace:
			s.dropSeekLocked(id, e)
		case e.Game > 0 && now.Sub(e.Created) > pairedKept:
			delete(s.seeks.all, id)
		}
	}
}

// apiSeeks lists the open seeks, newest first, each with its seeker's
// rating on that ladder.
func (s *Server) apiSeeks(w http.ResponseWriter, r *http.Request) {
	who := s.actor(w, r, "", false).ID
	s.seeks.mu.Lock()
	s.pruneLocked(time.Now())
	out := []Seek{}
	ratings := map[int64]float64{} // each seeker's rating, as their range is judged from
	for _, e := range s.seeks.all {
		if e.open() {
			c := e.Seek
			c.Token = ""
			out = append(out, c)
			ratings[c.ID] = e.rating
		}
	}
	s.seeks.mu.Unlock()
	slices.SortFunc(out, func(a, b Seek) int { return int(b.ID - a.ID) })
	for i := range out {
		sk := &out[i]
		if sk.ByID.Rated() {
			sk.Rating = s.seekRating(r.Context(), sk)
		}
		sk.Closed = s.seekClosed(r.Context(), sk, ratings[sk.ID], who)
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// seekClosed says why who could not accept seek sk, whose seeker's rating
// is rating, as apiSeekAccept would refuse it; "" if they could (or are
// its seeker).
func (s *Server) seekClosed(ctx context.Context, sk *Seek, rating float64, who identity.ID) string {
	switch {
	case sk.ByID.Is(who):
		return ""
	case sk.Rated && who.Kind != identity.Person:
		return "a rated game: sign in to accept"
	case sk.Range == 0:
		return ""
	}
	mine := Seek{ByID: who, Rules: sk.Rules, ClockMS: sk.ClockMS, IncrementMS: sk.IncrementMS, Rated: sk.Rated}
	r := float64(s.seekRating(ctx, &mine).Rating)
	if !inRange(&seekEntry{Seek: *sk, rating: rating}, r) {
		return fmt.Sprintf("your rating %.0f is outside the ±%d asked for", r, sk.Range)
	}
	return ""
}

// seekOf returns seek {id} of a route, as it stands, and whether who is
// its seeker.
func (s *Server) seekOf(r *http.Request, who identity.ID) (Seek, bool, error) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.seeks.mu.Lock()
	defer s.seeks.mu.Unlock()
	s.pruneLocked(time.Now())
	e := s.seeks.all[id]
	if e == nil {
		return Seek{}, false, fmt.Errorf("seek %d: %w (a seek goes when its seeker leaves)", id, ErrNotFound)
	}
	return e.Seek, e.ByID.Is(who), nil
}

// apiSeekState answers one seek; to its seeker, once paired, with the game
// and the token of their seat.
func (s *Server) apiSeekState(w http.ResponseWriter, r *http.Request) {
	sk, mine, err := s.seekOf(r, s.actor(w, r, "", false).ID)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if !mine {
		sk.Token = ""
	}
	httpapi.WriteJSON(w, http.StatusOK, sk)
}

func (s *Server) apiSeekCancel(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	who := s.actor(w, r, "", false).ID
	s.seeks.mu.Lock()
	defer s.seeks.mu.Unlock()
	s.pruneLocked(time.Now())
	e := s.seeks.all[id]
	switch {
	case e == nil:
		httpapi.WriteError(w, fmt.Errorf("seek %d: %w", id, ErrNotFound))
	case !e.ByID.Is(who):
		httpapi.WriteError(w, fmt.Errorf("%w: not your seek", ErrForbidden))
	case e.Game != 0:
		httpapi.WriteError(w, fmt.Errorf("%w: it is paired already: game %d", ErrNoSeat, e.Game))
	default:
		s.dropSeekLocked(id, e)
		httpapi.WriteJSON(w, http.StatusOK, map[string]string{"ok": "cancelled"})
	}
}

// apiSeekAccept starts the game of a seek between its seeker and who
// accepts (a person, or a guest for a casual game), sides drawn at random,
// and answers the game with the token of the accepter's seat.
func (s *Server) apiSeekAccept(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	who, err := s.seeker(w, r, true)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	s.seeks.mu.Lock()
	s.pruneLocked(time.Now())
	e := s.seeks.all[id]
	var why error
	switch {
	case e == nil:
		why = fmt.Errorf("seek %d: %w", id, ErrNotFound)
	case e.ByID.Is(who):
		why = fmt.Errorf("%w: your own seek", ErrForbidden)
	case e.Game != 0:
		why = fmt.Errorf("%w: someone accepted it first", ErrNoSeat)
	case e.Rated && who.Kind != identity.Person:
		why = fmt.Errorf("%w: a rated game needs an account", ErrSignIn)
	}
	if why != nil {
		s.seeks.mu.Unlock()
		httpapi.WriteError(w, why)
		return
	}
	me := &seekEntry{Seek: Seek{ByID: who, By: who.Display(), Rules: e.Rules, ClockMS: e.ClockMS, IncrementMS: e.IncrementMS, Rated: e.Rated, NoTakebacks: e.NoTakebacks},
		addr: hostOf(r), done: make(chan struct{})}
	e.Game = -1
	s.seeks.mu.Unlock()
	me.rating = float64(s.seekRating(r.Context(), &me.Seek).Rating)
	if !inRange(e, me.rating) {
		s.seeks.mu.Lock()
		e.Game = 0
		s.seeks.mu.Unlock()
		httpapi.WriteError(w, fmt.Errorf("%w: your rating %.0f is outside the range %s asked for (±%d)", ErrForbidden, me.rating, e.By, e.Range))
		return
	}
	me.Game = -1
	if err := s.pair(r.Context(), e, me, gate.Seek); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	out := Started{ID: me.Game, Note: me.Note}
	out.Tokens[me.seat] = me.Token
	httpapi.WriteJSON(w, http.StatusCreated, out)
}

// apiSeekEvents is the seeker's presence: while this stream is open the
// seek waits; it tells "paired" with the game (and the seat's token) once
// there is one, or "gone" if the seek went; when the seeker's last stream
// closes, the seek goes with it.
func (s *Server) apiSeekEvents(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	who := s.actor(w, r, "", false).ID
	s.seeks.mu.Lock()
	s.pruneLocked(time.Now())
	e := s.seeks.all[id]
	switch {
	case e == nil:
		s.seeks.mu.Unlock()
		httpapi.WriteError(w, fmt.Errorf("seek %d: %w (a seek goes when its seeker leaves)", id, ErrNotFound))
		return
	case !e.ByID.Is(who):
		s.seeks.mu.Unlock()
		httpapi.WriteError(w, fmt.Errorf("%w: not your seek", ErrForbidden))
		return
	}
	e.present++
	s.seeks.mu.Unlock()
	defer func() {
		s.seeks.mu.Lock()
		defer s.seeks.mu.Unlock()
		if e.present--; e.present == 0 && e.Game == 0 && s.seeks.all[e.ID] == e {
			s.dropSeekLocked(e.ID, e) // the seeker left
		}
	}()
	netx.LongLived(w)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	send := func(kind string) error {
		s.seeks.mu.Lock()
		sk := e.Seek
		s.seeks.mu.Unlock()
		b, _ := json.Marshal(sk)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", kind, b); err != nil {
			return err
		}
		return rc.Flush()
	}
	if send("seek") != nil {
		return
	}
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-e.done:
			s.seeks.mu.Lock()
			paired := e.Game > 0
			s.seeks.mu.Unlock()
			if paired {
				send("paired")
			} else {
				send("gone")
			}
			return
		case <-ping.C:
			if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
				return
			}
			rc.Flush()
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		}
	}
}

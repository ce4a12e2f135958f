// Package lobby keeps the seeks and pairs them: someone asks for a game
// against anyone (rules, clock, rated or casual); an equal offer pairs
// them at once (quick pairing, pairing.go), or another person accepts it
// from the list, and the server starts the game between them, sides drawn
// at random. A seek lives only while its seeker is there: it is followed
// by an event stream (GET /api/seeks/{id}/events, which the page holds
// open while it waits), and goes the moment the last one closes, or Grace
// after it was made if none ever opened. Guests may seek casual games;
// rated ones need an account. Seeks live in memory: a restart forgets
// them, not their games.
//
// It is lila's lobby module in small. The Lobby owns every seek under a
// lock that guards nothing else, and it never calls its Host while it
// holds that lock: what it needs of the server (who asks, ratings, the
// start of a paired game through the gate, the refusals' count) it asks
// of the Host with the lock released.
package lobby

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
	"kalah/server/core"
	"kalah/server/gate"
	"kalah/server/limits"
)

// Seek is one person's open offer of a game.
type Seek struct {
	ID int64 `json:"id"`
	// By is the seeker's name, ByID who they are.
	By          string      `json:"by"`
	ByID        identity.ID `json:"by_id"`
	Rating      *Rating     `json:"rating,omitempty"`
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

// Rating is a seeker's rating on a seek's ladder, as the list shows it
// (the server's seat rating, without a change).
type Rating struct {
	Rating      int  `json:"rating"`
	Provisional bool `json:"provisional"`
}

// Host is what the lobby needs of the server. The lobby calls it only
// with its own lock released, so the server may hold its locks while it
// answers.
type Host interface {
	// Actor returns who makes r: a person, a bot or a guest (a new guest,
	// set on w, if create), or the store's failure to tell a session.
	Actor(w http.ResponseWriter, r *http.Request, create bool) (core.Actor, error)
	// Rating returns who's rating on the ladder of rules played with that
	// clock (a new player's if they have none there).
	Rating(ctx context.Context, who identity.ID, rules kalah.Rules, clockMS, incrementMS int64) Rating
	// Start starts the game of a pairing through the server's one gate.
	Start(ctx context.Context, p Pairing) (Started, error)
	// Refused counts a request refused for reason (the metrics).
	Refused(reason string)
}

// Pairing is a game the lobby asks its Host to start between two seekers.
type Pairing struct {
	Rules       kalah.Rules
	ClockMS     int64
	IncrementMS int64
	Rated       bool
	NoTakebacks bool
	// Seats holds who sits South (0) and North (1), Names their names and
	// Addrs their client addresses (for the gate).
	Seats [2]identity.ID
	Names [2]string
	Addrs [2]string
	// Path is how the game was asked for: two seeks paired at once
	// (gate.Quick) or a seek accepted from the list (gate.Seek).
	Path gate.Path
}

// Started is a paired game as its Host started it.
type Started struct {
	ID int64
	// Tokens holds the secret that moves each seat.
	Tokens [2]string
	// Notes holds, for each seat's player, why a game asked to be rated is
	// played unrated; empty when it is rated as asked.
	Notes [2]string
}

// Config configures a Lobby.
type Config struct {
	// Rules are the rules of a seek that names none.
	Rules kalah.Rules
	// Done, once closed, ends every seek's event stream (the server stops).
	Done <-chan struct{}
}

// Lobby owns every seek. Its lock guards the seeks and nothing else.
type Lobby struct {
	host Host
	cfg  Config

	mu   sync.Mutex
	next int64
	all  map[int64]*entry
	// grace, if set, replaces Grace (tests).
	grace time.Duration
}

// New returns an empty lobby that asks host what it needs of the server.
func New(host Host, cfg Config) *Lobby {
	return &Lobby{host: host, cfg: cfg, all: map[int64]*entry{}}
}

// Bounds of the seeks.
const (
	MaxSeeks        = 1000 // open seeks of the whole server
	MaxSeeksPerAddr = 10   // open seeks of one client address
	// pairedKept is how long a paired seek is kept, for its seeker to
	// find the game.
	pairedKept = 10 * time.Minute
)

// Grace is how long a seek waits for its seeker's event stream before it
// is dropped as nobody's.
const Grace = 10 * time.Second

// SetGrace replaces Grace for this lobby (tests); zero restores it.
func (l *Lobby) SetGrace(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.grace = d
}

// seeker returns who makes a request about seeks: a person or a guest (a
// new guest if create); bots play through the queue and challenges.
func (l *Lobby) seeker(w http.ResponseWriter, r *http.Request, create bool) (identity.ID, error) {
	a, err := l.host.Actor(w, r, create)
	if err != nil {
		return a.ID, err
	}
	switch a.ID.Kind {
	case identity.Bot:
		return a.ID, fmt.Errorf("%w: bots play through the queue and challenges, not seeks", core.ErrForbidden)
	case identity.Person, identity.Guest:
		return a.ID, nil
	}
	return a.ID, fmt.Errorf("%w: no one known makes this request", core.ErrSignIn)
}

// asker returns who makes a request, known or not (the zero ID: no one).
func (l *Lobby) asker(w http.ResponseWriter, r *http.Request) identity.ID {
	a, _ := l.host.Actor(w, r, false)
	return a.ID
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

// Create makes a seek (POST /api/seeks) and pairs it at once with an
// equal offer waiting, if one fits.
func (l *Lobby) Create(w http.ResponseWriter, r *http.Request) {
	var req seekRequest
	if err := httpapi.ReadJSON(w, r, &req); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	who, err := l.seeker(w, r, true)
	if err == nil && req.Rated && who.Kind != identity.Person {
		err = fmt.Errorf("%w: a rated game needs an account (a guest may seek a casual one)", core.ErrSignIn)
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if err := core.CheckSettings(&req.Rules, l.cfg.Rules, req.ClockMS, req.IncrementMS); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if req.Range < 0 || req.Range > MaxRange {
		httpapi.WriteError(w, fmt.Errorf("%w: a rating range of %d: want 0 (anyone) to %d", core.ErrBadRequest, req.Range, MaxRange))
		return
	}
	e := &entry{Seek: Seek{By: who.Display(), ByID: who, Rules: req.Rules, ClockMS: req.ClockMS, IncrementMS: req.IncrementMS,
		Rated: req.Rated, Range: req.Range, NoTakebacks: req.Takebacks != nil && !*req.Takebacks, Created: time.Now()}, addr: core.HostOf(r), done: make(chan struct{})}
	e.rating = float64(l.seekRating(r.Context(), &e.Seek).Rating)
	l.mu.Lock()
	l.pruneLocked(time.Now())
	perAddr := 0
	for id, o := range l.all {
		switch {
		case o.ByID.Is(who) && o.open():
			l.dropLocked(id, o) // one open seek a person: the newest
		case o.addr == e.addr && o.open():
			perAddr++
		}
	}
	if len(l.all) >= MaxSeeks || perAddr >= MaxSeeksPerAddr {
		l.mu.Unlock()
		l.host.Refused("seeks")
		httpapi.WriteError(w, fmt.Errorf("%w: too many open seeks; accept one", core.ErrTooMany))
		return
	}
	l.next++
	e.ID = l.next
	l.all[e.ID] = e
	mate := partner(e, l.all)
	if mate == nil {
		out := e.Seek
		l.mu.Unlock()
		httpapi.WriteJSON(w, http.StatusCreated, out)
		return
	}
	// An equal offer waits: the game starts now.
	e.Game, mate.Game = -1, -1 // being started: no one else takes them
	l.mu.Unlock()
	if err := l.pair(r.Context(), mate, e, gate.Quick); err != nil {
		l.mu.Lock()
		l.dropLocked(e.ID, e)
		l.mu.Unlock()
		httpapi.WriteError(w, err)
		return
	}
	l.mu.Lock()
	out := e.Seek
	l.mu.Unlock()
	httpapi.WriteJSON(w, http.StatusCreated, out)
}

// seekRating returns a seek's seeker's rating on its ladder.
func (l *Lobby) seekRating(ctx context.Context, sk *Seek) Rating {
	return l.host.Rating(ctx, sk.ByID, sk.Rules, sk.ClockMS, sk.IncrementMS)
}

// pair starts the game of two seeks that were marked as being started
// (Game -1), sides drawn at random, and gives each seek its game and its
// seeker's token. If the game cannot start, both seeks wait again. The
// lobby's lock is not held: the host is called.
func (l *Lobby) pair(ctx context.Context, a, b *entry, path gate.Path) error {
	es := [2]*entry{a, b}
	if rand.IntN(2) == 1 {
		es = [2]*entry{b, a}
	}
	p := Pairing{Rules: a.Rules, ClockMS: a.ClockMS, IncrementMS: a.IncrementMS, Rated: a.Rated, NoTakebacks: a.NoTakebacks || b.NoTakebacks,
		Seats: [2]identity.ID{es[0].ByID, es[1].ByID}, Names: [2]string{es[0].By, es[1].By}, Addrs: [2]string{es[0].addr, es[1].addr}, Path: path}
	st, err := l.host.Start(ctx, p)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		for _, e := range es {
			if e.Game == -1 {
				e.Game = 0
			}
		}
		return err
	}
	for i, e := range es {
		e.Game, e.Token, e.seat, e.Note = st.ID, st.Tokens[i], i, st.Notes[i]
		e.finish()
	}
	return nil
}

// dropLocked removes a seek that has no game (l.mu held).
func (l *Lobby) dropLocked(id int64, e *entry) {
	delete(l.all, id)
	e.gone = true
	e.finish()
}

// pruneLocked removes the seeks whose seeker is not there (no stream of
// theirs opened within Grace) and the paired ones kept long enough (l.mu
// held). Every look at the seeks prunes first, so none sees a seek whose
// seeker has gone.
func (l *Lobby) pruneLocked(now time.Time) {
	grace := Grace
	if l.grace > 0 {
		grace = l.grace
	}
	for id, e := range l.all {
		switch {
		case e.Game == 0 && e.present == 0 && now.Sub(e.Created) >= grace:
			l.dropLocked(id, e)
		case e.Game > 0 && now.Sub(e.Created) > pairedKept:
			delete(l.all, id)
		}
	}
}

// List answers the open seeks (GET /api/seeks), newest first, each with
// its seeker's rating on that ladder.
func (l *Lobby) List(w http.ResponseWriter, r *http.Request) {
	who := l.asker(w, r)
	l.mu.Lock()
	l.pruneLocked(time.Now())
	out := []Seek{}
	ratings := map[int64]float64{} // each seeker's rating, as their range is judged from
	for _, e := range l.all {
		if e.open() {
			c := e.Seek
			c.Token = ""
			out = append(out, c)
			ratings[c.ID] = e.rating
		}
	}
	l.mu.Unlock()
	slices.SortFunc(out, func(a, b Seek) int { return int(b.ID - a.ID) })
	for i := range out {
		sk := &out[i]
		if sk.ByID.Rated() {
			rt := l.seekRating(r.Context(), sk)
			sk.Rating = &rt
		}
		sk.Closed = l.closed(r.Context(), sk, ratings[sk.ID], who)
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// closed says why who could not accept seek sk, whose seeker's rating is
// rating, as Accept would refuse it; "" if they could (or are its
// seeker).
func (l *Lobby) closed(ctx context.Context, sk *Seek, rating float64, who identity.ID) string {
	switch {
	case sk.ByID.Is(who):
		return ""
	case sk.Rated && who.Kind != identity.Person:
		return "a rated game: sign in to accept"
	case sk.Range == 0:
		return ""
	}
	mine := Seek{ByID: who, Rules: sk.Rules, ClockMS: sk.ClockMS, IncrementMS: sk.IncrementMS, Rated: sk.Rated}
	r := float64(l.seekRating(ctx, &mine).Rating)
	if !inRange(&entry{Seek: *sk, rating: rating}, r) {
		return fmt.Sprintf("your rating %.0f is outside the ±%d asked for", r, sk.Range)
	}
	return ""
}

// seekOf returns seek {id} of a route, as it stands, and whether who is
// its seeker.
func (l *Lobby) seekOf(r *http.Request, who identity.ID) (Seek, bool, error) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pruneLocked(time.Now())
	e := l.all[id]
	if e == nil {
		return Seek{}, false, fmt.Errorf("seek %d: %w (a seek goes when its seeker leaves)", id, core.ErrNotFound)
	}
	return e.Seek, e.ByID.Is(who), nil
}

// State answers one seek (GET /api/seeks/{id}); to its seeker, once
// paired, with the game and the token of their seat.
func (l *Lobby) State(w http.ResponseWriter, r *http.Request) {
	sk, mine, err := l.seekOf(r, l.asker(w, r))
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if !mine {
		sk.Token = ""
	}
	httpapi.WriteJSON(w, http.StatusOK, sk)
}

// Cancel takes back one's own seek that is not paired yet (POST
// /api/seeks/{id}/cancel).
func (l *Lobby) Cancel(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	who := l.asker(w, r)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pruneLocked(time.Now())
	e := l.all[id]
	switch {
	case e == nil:
		httpapi.WriteError(w, fmt.Errorf("seek %d: %w", id, core.ErrNotFound))
	case !e.ByID.Is(who):
		httpapi.WriteError(w, fmt.Errorf("%w: not your seek", core.ErrForbidden))
	case e.Game != 0:
		httpapi.WriteError(w, fmt.Errorf("%w: it is paired already: game %d", core.ErrNoSeat, e.Game))
	default:
		l.dropLocked(id, e)
		httpapi.WriteJSON(w, http.StatusOK, map[string]string{"ok": "cancelled"})
	}
}

// accepted is the answer to Accept: the game, with the token of the
// accepter's seat (as the server answers a game it started).
type accepted struct {
	ID     int64     `json:"id"`
	Tokens [2]string `json:"tokens"`
	Note   string    `json:"note,omitempty"`
}

// Accept starts the game of a seek (POST /api/seeks/{id}/accept) between
// its seeker and who accepts (a person, or a guest for a casual game),
// sides drawn at random, and answers the game with the token of the
// accepter's seat.
func (l *Lobby) Accept(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	who, err := l.seeker(w, r, true)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	l.mu.Lock()
	l.pruneLocked(time.Now())
	e := l.all[id]
	var why error
	switch {
	case e == nil:
		why = fmt.Errorf("seek %d: %w", id, core.ErrNotFound)
	case e.ByID.Is(who):
		why = fmt.Errorf("%w: your own seek", core.ErrForbidden)
	case e.Game != 0:
		why = fmt.Errorf("%w: someone accepted it first", core.ErrNoSeat)
	case e.Rated && who.Kind != identity.Person:
		why = fmt.Errorf("%w: a rated game needs an account", core.ErrSignIn)
	}
	if why != nil {
		l.mu.Unlock()
		httpapi.WriteError(w, why)
		return
	}
	me := &entry{Seek: Seek{ByID: who, By: who.Display(), Rules: e.Rules, ClockMS: e.ClockMS, IncrementMS: e.IncrementMS, Rated: e.Rated, NoTakebacks: e.NoTakebacks},
		addr: core.HostOf(r), done: make(chan struct{})}
	e.Game = -1
	l.mu.Unlock()
	me.rating = float64(l.seekRating(r.Context(), &me.Seek).Rating)
	if !inRange(e, me.rating) {
		l.mu.Lock()
		e.Game = 0
		l.mu.Unlock()
		httpapi.WriteError(w, fmt.Errorf("%w: your rating %.0f is outside the range %s asked for (±%d)", core.ErrForbidden, me.rating, e.By, e.Range))
		return
	}
	me.Game = -1
	if err := l.pair(r.Context(), e, me, gate.Seek); err != nil {
		httpapi.WriteError(w, err)
		return
	}
	l.mu.Lock()
	out := accepted{ID: me.Game, Note: me.Note}
	out.Tokens[me.seat] = me.Token
	l.mu.Unlock()
	httpapi.WriteJSON(w, http.StatusCreated, out)
}

// Events is the seeker's presence (GET /api/seeks/{id}/events): while
// this stream is open the seek waits; it tells "paired" with the game (and
// the seat's token) once there is one, or "gone" if the seek went; when
// the seeker's last stream closes, the seek goes with it.
func (l *Lobby) Events(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	who := l.asker(w, r)
	l.mu.Lock()
	l.pruneLocked(time.Now())
	e := l.all[id]
	switch {
	case e == nil:
		l.mu.Unlock()
		httpapi.WriteError(w, fmt.Errorf("seek %d: %w (a seek goes when its seeker leaves)", id, core.ErrNotFound))
		return
	case !e.ByID.Is(who):
		l.mu.Unlock()
		httpapi.WriteError(w, fmt.Errorf("%w: not your seek", core.ErrForbidden))
		return
	}
	e.present++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if e.present--; e.present == 0 && e.Game == 0 && l.all[e.ID] == e {
			l.dropLocked(e.ID, e) // the seeker left
		}
	}()
	netx.LongLived(w)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	send := func(kind string) error {
		l.mu.Lock()
		sk := e.Seek
		l.mu.Unlock()
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
			l.mu.Lock()
			paired := e.Game > 0
			l.mu.Unlock()
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
		case <-l.cfg.Done:
			return
		}
	}
}

// Routes registers the seeks' routes on mux; streamed serves the seeker's
// event stream as a long-lived request under the server's limits.
func (l *Lobby) Routes(mux *http.ServeMux, streamed func(kind string, h http.HandlerFunc) http.HandlerFunc) {
	mux.HandleFunc("GET /api/seeks", l.List)
	mux.HandleFunc("POST /api/seeks", l.Create)
	mux.HandleFunc("GET /api/seeks/{id}", l.State)
	mux.HandleFunc("POST /api/seeks/{id}/accept", l.Accept)
	mux.HandleFunc("POST /api/seeks/{id}/cancel", l.Cancel)
	mux.HandleFunc("GET /api/seeks/{id}/events", streamed(limits.StreamSeek, l.Events))
}

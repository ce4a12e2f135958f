// Package gate is the one admission point of every game the server
// starts, whichever way it is asked for: a game against the computer, an
// invitation, two seeks paired, quick pairing, a challenge, the bots'
// queue, a house game, a tournament's pairing, a rematch. Each start
// passes Admit, which counts it against the server's cap, the
// unfinished games of each person seated, the live games of guests of
// one address and how fast an address starts games, and charges the
// computer work it costs against the budget of whoever asked and the
// server's. It is lila's security module in small: a new way to start a
// game cannot forget a limit, for it has no other way in.
//
// The Gate owns its counts under a lock that guards nothing else. It
// knows games only as Tickets: it never reaches into a game, and a game
// tells it what it needs (is its person still there, end it to make
// room) through the two functions Ticket.Watch gives.
package gate

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Errors of Admit, matched with errors.Is. The server maps them to
// statuses where it is assembled: ErrFull is 503 (try later), the others
// 429 (the asker's own limit).
var (
	// ErrFull refuses a game when the server plays as many as it may.
	ErrFull = errors.New("the server is playing as many games as it allows")
	// ErrTooMany refuses a game to a person with as many unfinished games
	// as they may have, or to an address whose guests have as many live
	// games as one address may (none of them left).
	ErrTooMany = errors.New("too many unfinished games")
	// ErrTooFast refuses a game to an address starting games faster than
	// one address may.
	ErrTooFast = errors.New("too many games started from your address lately")
	// ErrOverBudget refuses work for computers beyond a budget: the
	// asker's or the server's.
	ErrOverBudget = errors.New("too much work for the server's computers")
)

// Path is a way a game starts, as counted in the metrics and the tests.
type Path string

// The ways a game starts.
const (
	Computer   Path = "computer"   // a person against a computer player (POST /api/games)
	Invite     Path = "invite"     // a person's game with a seat left for a friend
	People     Path = "people"     // two people at one screen, or a game the API seats otherwise
	Seek       Path = "seek"       // two equal seeks paired
	Quick      Path = "quick"      // quick pairing
	Challenge  Path = "challenge"  // a challenge accepted
	Queue      Path = "queue"      // two bots paired in the queue
	House      Path = "house"      // a bot alone in the queue against the house's level
	Tournament Path = "tournament" // a tournament's pairing (engines', bots', people's)
	Rematch    Path = "rematch"    // a rematch accepted
	Resumed    Path = "resumed"    // a game resumed after a restart: always admitted
)

// Party is someone seated in a game: a person, a guest or a bot.
type Party struct {
	// Who is the identity's key ("user:alice", "guest:…", "bot:…").
	Who string
	// Addr is the client address the party asked from (netx.Key), if known.
	Addr string
	// Person marks a person or a guest, whose unfinished games are
	// counted; Guest marks a guest, whose address's games are counted too.
	Person, Guest bool
}

// Request asks for one game.
type Request struct {
	Path    Path
	Parties []Party
	// Work is the computer time the game may cost the server (its
	// computer seats' search budgets over its moves).
	Work time.Duration
	// Payer is the identity charged for Work; "" charges the first party
	// that is a person, else nobody but the server.
	Payer string
}

// Limits are the Gate's caps. A zero field sets no limit.
type Limits struct {
	// MaxGames bounds live games in all.
	MaxGames int
	// PerPerson bounds the unfinished games one person or guest holds a
	// seat in.
	PerPerson int
	// GuestsPerAddr bounds the live games with a guest of one address.
	// When the address is at it, its games whose guests have left (no
	// page of the game open for LeftAfter) are ended, oldest first, to
	// make room: one pupil's closed tabs never lock out the rest of a
	// school, while a burst of fresh guests still meets the cap.
	GuestsPerAddr int
	// LeftAfter is how long a person must be gone from a game before it
	// may be ended to make room (default 15s: longer than a page reload).
	LeftAfter time.Duration
	// StartsPerMinute and StartsBurst bound how fast one address starts
	// games with people in them (a token bucket).
	StartsPerMinute float64
	StartsBurst     int
	// WorkPerIdentity bounds the computer work outstanding for one
	// identity (games and tournaments not yet over); WorkTotal, the
	// server's.
	WorkPerIdentity time.Duration
	WorkTotal       time.Duration
}

// Gate admits games. Create it with New.
type Gate struct {
	lim Limits
	now func() time.Time

	mu       sync.Mutex
	live     int
	byPerson map[string]int
	byAddr   map[string][]*Ticket // live games with a guest of the address, oldest first
	starts   map[string]*rate.Limiter
	work     map[string]time.Duration
	total    time.Duration
	refused  map[string]uint64
	admitted map[Path]uint64
}

// New returns a Gate with lim.
func New(lim Limits) *Gate {
	if lim.LeftAfter <= 0 {
		lim.LeftAfter = 15 * time.Second
	}
	return &Gate{lim: lim, now: time.Now, byPerson: map[string]int{}, byAddr: map[string][]*Ticket{},
		starts: map[string]*rate.Limiter{}, work: map[string]time.Duration{}, refused: map[string]uint64{}, admitted: map[Path]uint64{}}
}

// Ticket is an admitted game's place: Release gives it back when the game
// ends. Its methods are safe to call from any goroutine.
type Ticket struct {
	g       *Gate
	path    Path
	people  []string // persons counted
	addrs   []string // addresses whose guests' games count this one
	payer   string
	work    time.Duration
	at      time.Time
	left    func() bool // reports whether a guest of the game has left it
	abandon func()      // ends the game to make room
	done    bool
}

// Admit counts a game asked for by req, or says which limit refuses it.
func (g *Gate) Admit(req Request) (*Ticket, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := &Ticket{g: g, path: req.Path, at: g.now(), work: req.Work, payer: req.Payer}
	for _, p := range req.Parties {
		if p.Person && p.Who != "" && !slices.Contains(t.people, p.Who) {
			t.people = append(t.people, p.Who)
		}
		if p.Guest && p.Addr != "" && !slices.Contains(t.addrs, p.Addr) {
			t.addrs = append(t.addrs, p.Addr)
		}
	}
	if t.payer == "" && len(t.people) > 0 {
		t.payer = t.people[0]
	}
	if req.Path == Resumed {
		g.countLocked(t)
		return t, nil
	}
	if g.lim.MaxGames > 0 && g.live >= g.lim.MaxGames {
		return nil, g.refuse("games", fmt.Errorf("%w: %d games are being played", ErrFull, g.lim.MaxGames))
	}
	if g.lim.PerPerson > 0 {
		for _, who := range t.people {
			if g.byPerson[who] >= g.lim.PerPerson {
				return nil, g.refuse("open-games", fmt.Errorf("%w: %d unfinished games already, the most one person may have at once; finish or resign one first", ErrTooMany, g.lim.PerPerson))
			}
		}
	}
	if err := g.workFitsLocked(t.payer, t.work); err != nil {
		return nil, err
	}
	// The address checks come last, the rate before the cap: the cap may
	// end left games to make room, which only a game that is otherwise
	// admitted may do; the rate's tokens are taken once it is.
	if req.Path != Tournament {
		var starts []string // addresses whose starts are limited
		if g.lim.StartsPerMinute > 0 {
			starts = addrsOf(req.Parties)
		}
		for _, a := range starts {
			if g.startLimiter(a).TokensAt(g.now()) < 1 {
				return nil, g.refuse("starts-per-address", fmt.Errorf("%w: wait a minute before starting another", ErrTooFast))
			}
		}
		for _, a := range t.addrs {
			if g.lim.GuestsPerAddr > 0 && len(g.byAddr[a]) >= g.lim.GuestsPerAddr && !g.makeRoomLocked(a) {
				return nil, g.refuse("guest-games-per-address", fmt.Errorf("%w: guests at your address have %d live games, the most one address may; finish one, or sign in to play on your own account", ErrTooMany, g.lim.GuestsPerAddr))
			}
		}
		for _, a := range starts {
			g.startLimiter(a).AllowN(g.now(), 1)
		}
	}
	g.countLocked(t)
	return t, nil
}

// addrsOf returns the distinct addresses of the people in ps.
func addrsOf(ps []Party) []string {
	var out []string
	for _, p := range ps {
		if p.Person && p.Addr != "" && !slices.Contains(out, p.Addr) {
			out = append(out, p.Addr)
		}
	}
	return out
}

func (g *Gate) countLocked(t *Ticket) {
	g.live++
	g.admitted[t.path]++
	for _, who := range t.people {
		g.byPerson[who]++
	}
	for _, a := range t.addrs {
		g.byAddr[a] = append(g.byAddr[a], t)
	}
	if t.work > 0 {
		g.total += t.work
		if t.payer != "" {
			g.work[t.payer] += t.work
		}
	}
}

// workFitsLocked refuses work that would take payer or the server over
// their budget.
func (g *Gate) workFitsLocked(payer string, work time.Duration) error {
	if work <= 0 {
		return nil
	}
	if b := g.lim.WorkPerIdentity; b > 0 && payer != "" && g.work[payer]+work > b {
		return g.refuse("work-per-identity", fmt.Errorf("%w: this costs about %v of computer time, and yours would come to %v of the %v one person may have waiting; choose fewer games, weaker players or a smaller board",
			ErrOverBudget, Round(work), Round(g.work[payer]+work), Round(b)))
	}
	if b := g.lim.WorkTotal; b > 0 && g.total+work > b {
		return g.refuse("work-total", fmt.Errorf("%w: this costs about %v of computer time, and the server has %v of its %v waiting; try later, or ask for less",
			ErrOverBudget, Round(work), Round(g.total), Round(b)))
	}
	return nil
}

// makeRoomLocked ends the oldest game of address a whose guest has left
// it, if any, and reports whether it did.
func (g *Gate) makeRoomLocked(a string) bool {
	for _, t := range g.byAddr[a] {
		if t.left == nil || t.abandon == nil || g.now().Sub(t.at) < g.lim.LeftAfter || !t.left() {
			continue
		}
		g.refused["left-game-ended"]++
		go t.abandon() // the game's own loop ends it; its Release follows
		g.releaseLocked(t)
		return true
	}
	return false
}

func (g *Gate) startLimiter(a string) *rate.Limiter {
	l := g.starts[a]
	if l == nil {
		l = rate.NewLimiter(rate.Limit(g.lim.StartsPerMinute/60), max(g.lim.StartsBurst, 1))
		g.starts[a] = l
	}
	if len(g.starts) > 100_000 { // forget addresses whose bucket is full again
		for k, v := range g.starts {
			if v.TokensAt(g.now()) >= float64(v.Burst()) {
				delete(g.starts, k)
			}
		}
	}
	return l
}

func (g *Gate) refuse(reason string, err error) error {
	g.refused[reason]++
	return err
}

// Watch tells the gate how to see whether a guest of the game has left
// it and how to end it, so that an address at its cap makes room by
// ending a left game rather than refusing a newcomer.
func (t *Ticket) Watch(left func() bool, abandon func()) {
	t.g.mu.Lock()
	defer t.g.mu.Unlock()
	t.left, t.abandon = left, abandon
}

// Join counts a party who takes a seat after the game started (an
// invitation's): refused if they hold as many games as they may.
func (t *Ticket) Join(p Party) error {
	g := t.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if t.done || !p.Person || p.Who == "" || slices.Contains(t.people, p.Who) {
		return nil
	}
	if g.lim.PerPerson > 0 && g.byPerson[p.Who] >= g.lim.PerPerson {
		return g.refuse("open-games", fmt.Errorf("%w: %d unfinished games already, the most one person may have at once; finish or resign one first", ErrTooMany, g.lim.PerPerson))
	}
	t.people = append(t.people, p.Who)
	g.byPerson[p.Who]++
	return nil
}

// Release gives the game's place back; only the first call counts.
func (t *Ticket) Release() {
	if t == nil {
		return
	}
	t.g.mu.Lock()
	defer t.g.mu.Unlock()
	t.g.releaseLocked(t)
}

func (g *Gate) releaseLocked(t *Ticket) {
	if t.done {
		return
	}
	t.done = true
	g.live--
	for _, who := range t.people {
		if g.byPerson[who]--; g.byPerson[who] <= 0 {
			delete(g.byPerson, who)
		}
	}
	for _, a := range t.addrs {
		g.byAddr[a] = slices.DeleteFunc(g.byAddr[a], func(o *Ticket) bool { return o == t })
		if len(g.byAddr[a]) == 0 {
			delete(g.byAddr, a)
		}
	}
	g.unchargeLocked(t.payer, t.work)
}

func (g *Gate) unchargeLocked(payer string, work time.Duration) {
	if work <= 0 {
		return
	}
	g.total -= work
	if payer != "" {
		if g.work[payer] -= work; g.work[payer] <= 0 {
			delete(g.work, payer)
		}
	}
}

// Charge takes work for payer out of the budgets, for what is not one
// game (a tournament: all its games at once), or says which budget
// refuses it; force charges it whatever the budgets say (a tournament
// resumed after a restart). The returned function gives it back.
func (g *Gate) Charge(payer string, work time.Duration, force bool) (func(), error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !force {
		if err := g.workFitsLocked(payer, work); err != nil {
			return nil, err
		}
	}
	g.total += work
	if payer != "" {
		g.work[payer] += work
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.unchargeLocked(payer, work)
		})
	}, nil
}

// Stats are the Gate's counts, for the metrics and the tests.
type Stats struct {
	Live     int
	Work     time.Duration
	Refused  map[string]uint64 // by reason
	Admitted map[Path]uint64   // by path
}

// Stats returns the counts now.
func (g *Gate) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := Stats{Live: g.live, Work: g.total, Refused: maps.Clone(g.refused), Admitted: maps.Clone(g.admitted)}
	return st
}

// Live returns the games admitted and not released.
func (g *Gate) Live() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.live
}

// Round rounds a duration of work for people.
func Round(d time.Duration) time.Duration {
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute)
	case d >= time.Minute:
		return d.Round(time.Second)
	default:
		return d.Round(time.Millisecond)
	}
}

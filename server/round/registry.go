package round

import "sync"

// Registry is a server's live games and the bots seated in them: which
// game each bot plays (or is kept for, waiting for an arranged game to
// begin). Its lock guards these and nothing else; it never calls out
// while holding it.
type Registry struct {
	mu     sync.Mutex
	live   map[int64]*Round
	seats  map[string]*Round // by the bot's identity key
	closed bool
	// freed is closed (and replaced) when a bot may have become free for
	// an arranged game (Freed).
	freed chan struct{}
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{live: map[int64]*Round{}, seats: map[string]*Round{}}
}

// Add makes r live and seats its bots in it, unless the registry is
// closed (the server is stopping): then it forgets the seats kept for r
// and reports false. added, if not nil, is called under the lock once r
// is live, before any Close that follows (a server counts its games so).
func (g *Registry) Add(r *Round, seats [2]*Seat, added func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		g.unseatLocked(r, seats)
		return false
	}
	if added != nil {
		added()
	}
	g.live[r.ID()] = r
	for _, st := range seats {
		if st.Bot {
			g.seats[st.St.ID.Key()] = r
		}
	}
	return true
}

// Remove forgets r as live (its loop has ended).
func (g *Registry) Remove(r *Round) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.live[r.ID()] == r {
		delete(g.live, r.ID())
	}
}

// Release frees r's bots for other games and wakes those waiting for a
// free bot.
func (g *Registry) Release(r *Round, seats [2]*Seat) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.unseatLocked(r, seats)
	g.wakeLocked()
}

func (g *Registry) unseatLocked(r *Round, seats [2]*Seat) {
	for _, st := range seats {
		if st != nil && st.Bot && g.seats[st.St.ID.Key()] == r {
			delete(g.seats, st.St.ID.Key())
		}
	}
}

// Reserve keeps for r the bots of seats for which free reports true and
// that no game has (or that r has already), all under the registry's
// lock so that nothing else takes them in between, and reports which it
// took. With all set it takes
// none unless it can take every bot seat. It reports ok false when the
// registry is closed.
func (g *Registry) Reserve(r *Round, seats [2]*Seat, free [2]bool, all bool) (taken [2]bool, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return taken, false
	}
	// A bot may be taken if it is free and no game has it; one kept for
	// r already is r's.
	can := func(i int) bool {
		st := g.seats[seats[i].St.ID.Key()]
		return st == r || free[i] && st == nil
	}
	for i, st := range seats {
		if all && st.Bot && !can(i) {
			return taken, true
		}
	}
	for i, st := range seats {
		if st.Bot && can(i) {
			g.seats[st.St.ID.Key()] = r
			taken[i] = true
		}
	}
	return taken, true
}

// Get returns live game id, nil if it is not live.
func (g *Registry) Get(id int64) *Round {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.live[id]
}

// Seated returns the game the bot of identity key plays or is kept for,
// nil if none.
func (g *Registry) Seated(key string) *Round {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seats[key]
}

// Len returns the number of live games.
func (g *Registry) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.live)
}

// All returns the live games, in no order.
func (g *Registry) All() []*Round {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]*Round, 0, len(g.live))
	for _, r := range g.live {
		out = append(out, r)
	}
	return out
}

// Close refuses every later Add and Reserve (the server is stopping).
func (g *Registry) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.wakeLocked()
}

// Closed reports whether Close was called.
func (g *Registry) Closed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// Freed returns a channel closed the next time a bot may have become free
// (Wake, Release, Close).
func (g *Registry) Freed() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.freed == nil {
		g.freed = make(chan struct{})
	}
	return g.freed
}

// Wake tells those waiting on Freed that a bot may have become free.
func (g *Registry) Wake() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.wakeLocked()
}

func (g *Registry) wakeLocked() {
	if g.freed != nil {
		close(g.freed)
		g.freed = nil
	}
}

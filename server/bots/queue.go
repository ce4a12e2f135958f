package bots

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/server/core"
	"kalah/server/gate"
	"kalah/server/round"
)

// Entry is a player waiting in the queue, or one a game begins for (the
// bots of a challenge, a house player).
type Entry struct {
	seat  *round.Seat
	rules *kalah.Rules // nil: any
	conn  *Conn        // for network bots
	// key is who it is, for the queue: one entry a key.
	key    string
	seated func(int) // told its seat when its game starts, if not nil
	// queued, if not nil, is told under the queue's lock that e has its
	// place (in the queue, or paired), before any game of it starts: an
	// "ok queue" sent from it promises that a later entry waited less.
	queued func()
	game   *round.Round // set once seated
	result chan error   // receives the start error, or nil once seated
	once   sync.Once
	// gone, if not nil, is closed when the player goes away (a KGP
	// client's connection closes); a line-protocol bot's is its
	// connection's done.
	gone <-chan struct{}
	// house, while e waits alone, starts its house game (house.go); it
	// is stopped once e leaves the queue, so that an entry paired at
	// once is not kept, with its game, for the rest of the wait.
	house *time.Timer
}

// Seat is the seat e plays in.
func (e *Entry) Seat() *round.Seat { return e.seat }

// Gone is closed when e's player goes away, if it is known (nil if not).
func (e *Entry) Gone() <-chan struct{} { return e.gone }

// Begin tells e its game has begun, in seat i (0: South).
func (e *Entry) Begin(r *round.Round, i int) {
	e.game = r
	if e.seated != nil {
		e.seated(i)
	}
}

// Fail tells e why it has no game (nil: it has one, after Begin); only
// the first word counts.
func (e *Entry) Fail(err error) {
	e.once.Do(func() { e.result <- err })
}

// left reports whether e's player has gone away (its connection closed):
// such an entrant is never paired, so no game is recorded as lost by
// someone who had left before it began.
func (e *Entry) left() bool {
	ch := e.gone
	if ch == nil && e.conn != nil {
		ch = e.conn.Done()
	}
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// errLeft is an entrant's pairing refused because it had gone away.
var errLeft = fmt.Errorf("%w: the connection closed before the game began", player.ErrDisconnected)

// testHookEnqueue, if set, is called with an entry's key as it reaches
// enqueue (tests: a pause before the queue's lock).
var testHookEnqueue atomic.Pointer[func(key string)]

// testHookPaired, if set, is called with two entries just paired, before
// their game begins (tests: a connection that closes then).
var testHookPaired atomic.Pointer[func(waited, came *Entry)]

// SetTestHooks sets, for tests only, the functions called with an entry's
// key as it reaches the queue (before its lock) and with two entries just
// paired, before their game begins; nil clears a hook.
func SetTestHooks(enqueue func(key string), paired func(waited, came *Entry)) {
	if enqueue == nil {
		testHookEnqueue.Store(nil)
	} else {
		testHookEnqueue.Store(&enqueue)
	}
	if paired == nil {
		testHookPaired.Store(nil)
	} else {
		testHookPaired.Store(&paired)
	}
}

// queue is the bots' queue, oldest first; its lock guards nothing else.
// Only an entry's queued is called under it (a line sent to its bot).
type queue struct {
	mu      sync.Mutex
	entries []*Entry
	closed  bool
}

// close refuses entries from now on and returns those waiting.
func (q *queue) close() []*Entry {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	es := q.entries
	for _, e := range es {
		e.stopHouse()
	}
	q.entries = nil
	return es
}

// take takes the i-th entry out of the queue, which is locked.
func (qu *queue) take(i int) *Entry {
	e := qu.entries[i]
	qu.entries = slices.Delete(qu.entries, i, i+1)
	e.stopHouse()
	return e
}

// Queued returns the entries waiting in the queue, oldest first.
func (b *Bots) Queued() []*Entry {
	b.queue.mu.Lock()
	defer b.queue.mu.Unlock()
	return slices.Clone(b.queue.entries)
}

// enqueue adds e to the queue, starting a game if someone fits. Whether
// e's player is seated in a game already is asked before the queue's
// lock is taken, which is never held while the server is called.
func (b *Bots) enqueue(e *Entry) error {
	if h := testHookEnqueue.Load(); h != nil {
		(*h)(e.key)
	}
	if b.host.Seated(e.key) != nil {
		return fmt.Errorf("%w: %s is playing a game already", core.ErrBusy, e.seat.St.Name)
	}
	qu := &b.queue
	qu.mu.Lock()
	if qu.closed {
		qu.mu.Unlock()
		return core.ErrClosed
	}
	for _, q := range qu.entries {
		if q.key == e.key {
			qu.mu.Unlock()
			return fmt.Errorf("%w: %s is in the queue already", core.ErrBusy, e.seat.St.Name)
		}
	}
	if e.left() {
		qu.mu.Unlock()
		return errLeft
	}
	if e.queued != nil {
		e.queued()
	}
	for i := 0; i < len(qu.entries); i++ {
		q := qu.entries[i]
		if q.left() {
			// Gone while it waited, not yet taken out: never paired.
			qu.take(i)
			i--
			q.Fail(errLeft)
			continue
		}
		if q.rules == nil || e.rules == nil || *q.rules == *e.rules {
			qu.take(i)
			qu.mu.Unlock()
			r := b.cfg.Rules
			switch {
			case q.rules != nil:
				r = *q.rules
			case e.rules != nil:
				r = *e.rules
			}
			if h := testHookPaired.Load(); h != nil {
				(*h)(q, e)
			}
			// A connection may close between the pairing and the start:
			// no game then, and the one still there waits again.
			switch {
			case q.left():
				q.Fail(errLeft)
				e.queued = nil // it heard it was queued
				return b.enqueue(e)
			case e.left():
				b.requeue(q)
				return errLeft
			}
			// The one who waited plays first.
			err := b.host.Start(r, [2]*Entry{q, e}, gate.Queue)
			if err != nil {
				// The caller hears of it; tell the one who waited too.
				tellFailed(q, err)
			}
			return err
		}
	}
	b.houseWait(e) // a lone bot plays the house (house.go)
	qu.entries = append(qu.entries, e)
	qu.mu.Unlock()
	return nil
}

// requeue puts q, taken out of the queue for a game that did not begin
// (its opponent had gone), back in it, paired at once if someone fits.
func (b *Bots) requeue(q *Entry) {
	q.queued = nil // it heard it was queued
	if err := b.enqueue(q); err != nil {
		q.Fail(err)
		tellFailed(q, err)
	}
}

// tellFailed tells a line-protocol bot taken out of the queue that its
// game did not begin, and why.
func tellFailed(q *Entry, err error) {
	if q.conn == nil {
		return
	}
	q.conn.mu.Lock()
	if q.conn.queued == q {
		q.conn.queued = nil
	}
	q.conn.mu.Unlock()
	q.conn.SendMsg(line.Errorf(codeFor(err), "%v", err))
}

// remove takes e out of the queue if it is still there.
func (qu *queue) remove(e *Entry) bool {
	qu.mu.Lock()
	defer qu.mu.Unlock()
	for i, q := range qu.entries {
		if q == e {
			qu.take(i)
			return true
		}
	}
	return false
}

// Entrant is a player brought in by another transport (KGP) for Play.
type Entrant struct {
	Name   string
	Kind   string // the transport, such as "kgp"; stored with the game
	Player player.Player
	// Rules, if not nil, are the only rules the player accepts.
	Rules *kalah.Rules
	// Done, if not nil, is closed when the player goes away.
	Done <-chan struct{}
	// Bot, if set, is the bot the entrant logged in as (by its token): it
	// plays as that bot, and its games count on the rating ladders.
	Bot string
	// Key is who the entrant is: the queue holds one entry a key, so one
	// identity cannot wait twice. Empty means the bot, or Name.
	Key string
	// Seated, if not nil, is told the seat (0: South under the default
	// convention) once the entrant's game starts, before any move.
	Seated func(seat int)
}

// Play puts e in the same queue as the bots and returns once its game is
// over and stored, or with an error if it cannot be seated (ctx ends,
// e.Done closes or the server stops first). The game asks e.Player for its
// moves and, if it is a player.Observer, shows it every move. The player
// stays its caller's: Play does not close it.
func (b *Bots) Play(ctx context.Context, e Entrant) error {
	if e.Kind == "" || e.Kind == "bot" || e.Kind == "spec" || e.Kind == "human" {
		e.Kind = "remote"
	}
	st := &round.Seat{P: keepOpen{e.Player}, St: store.Seat{Name: identity.CleanText(e.Name, 40), Kind: e.Kind}}
	key := e.Key
	if e.Bot != "" {
		st.St.ID = identity.Of(identity.Bot, e.Bot)
		st.St.Name = e.Bot
		if key == "" {
			key = st.St.ID.Key()
		}
	}
	if key == "" {
		key = "label:" + st.St.Name
	}
	en := &Entry{seat: st, rules: e.Rules, key: key, seated: e.Seated, result: make(chan error, 1), gone: e.Done}
	if err := b.enqueue(en); err != nil {
		return err
	}
	var err error
	select {
	case err = <-en.result:
	case <-ctx.Done():
		if b.queue.remove(en) {
			return ctx.Err()
		}
		err = <-en.result
	case <-e.Done:
		if b.queue.remove(en) {
			return player.ErrDisconnected
		}
		err = <-en.result
	case <-b.host.Context().Done():
		if b.queue.remove(en) {
			return core.ErrClosed
		}
		err = <-en.result
	}
	if err != nil {
		return err
	}
	<-en.game.Done()
	if en.game.Outcome() == nil {
		return core.ErrClosed
	}
	return nil
}

// keepOpen hides a player's Close from the round, which closes the
// players it owns when a game ends (a KGP client stays its caller's).
type keepOpen struct{ player.Player }

// Observe passes the game on if the player observes.
func (k keepOpen) Observe(ctx context.Context, g *kalah.Game) error {
	if o, ok := k.Player.(player.Observer); ok {
		return o.Observe(ctx, g)
	}
	return nil
}

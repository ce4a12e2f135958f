package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/server/gate"
)

// entrant is a player waiting in the queue.
type entrant struct {
	seat  *seat
	rules *kalah.Rules // nil: any
	conn  *conn        // for network bots
	// key is who it is, for the queue: one entry a key.
	key    string
	seated func(int) // told its seat when its game starts, if not nil
	// queued, if not nil, is told under the server's lock that e has its
	// place (in the queue, or paired), before any game of it starts: an
	// "ok queue" sent from it promises that a later entry waited less.
	queued func()
	game   *round     // set once seated
	result chan error // receives the start error, or nil once seated
	once   sync.Once
	// gone, if not nil, is closed when the player goes away (a KGP
	// client's connection closes); a line-protocol bot's is its
	// connection's done.
	gone <-chan struct{}
}

func (e *entrant) fail(err error) {
	e.once.Do(func() { e.result <- err })
}

// left reports whether e's player has gone away (its connection closed):
// such an entrant is never paired, so no game is recorded as lost by
// someone who had left before it began.
func (e *entrant) left() bool {
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
var testHookPaired atomic.Pointer[func(waited, came *entrant)]

// enqueue adds e to the queue, starting a game if someone fits.
func (s *Server) enqueue(e *entrant) error {
	if h := testHookEnqueue.Load(); h != nil {
		(*h)(e.key)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	for _, q := range s.queue {
		if q.key == e.key {
			s.mu.Unlock()
			return fmt.Errorf("%w: %s is in the queue already", ErrBusy, e.seat.St.Name)
		}
	}
	if s.live.Seated(e.key) != nil {
		s.mu.Unlock()
		return fmt.Errorf("%w: %s is playing a game already", ErrBusy, e.seat.St.Name)
	}
	if e.left() {
		s.mu.Unlock()
		return errLeft
	}
	if e.queued != nil {
		e.queued()
	}
	for i := 0; i < len(s.queue); i++ {
		q := s.queue[i]
		if q.left() {
			// Gone while it waited, not yet taken out: never paired.
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			i--
			q.fail(errLeft)
			continue
		}
		if q.rules == nil || e.rules == nil || *q.rules == *e.rules {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			s.mu.Unlock()
			r := s.cfg.Rules
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
				q.fail(errLeft)
				e.queued = nil // it heard it was queued
				return s.enqueue(e)
			case e.left():
				s.requeue(q)
				return errLeft
			}
			// The one who waited plays first.
			err := s.start(r, [2]*entrant{q, e}, gate.Queue)
			if err != nil {
				// The caller hears of it; tell the one who waited too.
				s.tellFailed(q, err)
			}
			return err
		}
	}
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	s.houseWait(e) // a lone bot plays the house (housebot.go)
	return nil
}

// requeue puts q, taken out of the queue for a game that did not begin
// (its opponent had gone), back in it, paired at once if someone fits.
func (s *Server) requeue(q *entrant) {
	q.queued = nil // it heard it was queued
	if err := s.enqueue(q); err != nil {
		q.fail(err)
		s.tellFailed(q, err)
	}
}

// tellFailed tells a line-protocol bot taken out of the queue that its
// game did not begin, and why.
func (s *Server) tellFailed(q *entrant, err error) {
	if q.conn == nil {
		return
	}
	q.conn.mu.Lock()
	if q.conn.queued == q {
		q.conn.queued = nil
	}
	q.conn.mu.Unlock()
	q.conn.sendMsg(line.Errorf(codeFor(err), "%v", err))
}

// dequeue removes e from the queue if it is still there.
func (s *Server) dequeue(e *entrant) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, q := range s.queue {
		if q == e {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
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
func (s *Server) Play(ctx context.Context, e Entrant) error {
	if e.Kind == "" || e.Kind == "bot" || e.Kind == "spec" || e.Kind == "human" {
		e.Kind = "remote"
	}
	st := &seat{P: keepOpen{e.Player}, St: store.Seat{Name: identity.CleanText(e.Name, 40), Kind: e.Kind}}
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
	en := &entrant{seat: st, rules: e.Rules, key: key, seated: e.Seated, result: make(chan error, 1), gone: e.Done}
	if err := s.enqueue(en); err != nil {
		return err
	}
	var err error
	select {
	case err = <-en.result:
	case <-ctx.Done():
		if s.dequeue(en) {
			return ctx.Err()
		}
		err = <-en.result
	case <-e.Done:
		if s.dequeue(en) {
			return player.ErrDisconnected
		}
		err = <-en.result
	case <-s.ctx.Done():
		if s.dequeue(en) {
			return ErrClosed
		}
		err = <-en.result
	}
	if err != nil {
		return err
	}
	<-en.game.Done()
	if en.game.Outcome() == nil {
		return ErrClosed
	}
	return nil
}

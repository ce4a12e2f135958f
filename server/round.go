package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/referee"
	"kalah/server/core"
	"kalah/server/gate"
)

// A round is a live game: the one authority over it. Everything that can
// happen to the game (a move from any transport, a resignation, an abort,
// a takeback asked or answered, a claim, time given, a seat taken, a bot
// coming or going, a spectator arriving) is a message to the round's
// loop, which alone changes the game, applies messages in the order they
// arrive, stores each change before anyone hears of it, and publishes what
// readers see as an immutable view. No request is refused because another
// is in flight: it waits its turn in the inbox. (lila's round actor is
// the model.)
type round struct {
	id  int64
	srv *Server
	// inbox holds the messages for the loop, in arrival order.
	inbox chan message
	// view is what readers see: replaced, never changed, by the loop.
	view atomic.Pointer[view]
	// done is closed once the loop has ended: the game is over and stored,
	// or the server stops and leaves it to the next.
	done chan struct{}
	// outcome, set before done is closed, is how the game ended (nil if it
	// did not: the server stopped first).
	outcome *roundOutcome
	// ticket is the game's place at the gate, given back when it ends.
	ticket *gate.Ticket
}

// roundOutcome is a finished game as its loop ended it.
type roundOutcome struct {
	record kalah.Record // with each move's time
	reason string       // why, in words, for a forfeit, an abort or an adjudication
}

// message is one thing to do to a round, run by its loop.
type message struct {
	do    func(l *loop) error
	reply chan error // nil: nobody waits
}

// ErrGameGone answers a message sent to a round whose loop has ended.
var errRoundGone = fmt.Errorf("%w: the game is over or the server is stopping", kalah.ErrGameOver)

// send has the round's loop run do, and returns its answer; it waits
// while the message is in the inbox, but not beyond ctx.
func (r *round) send(ctx context.Context, do func(l *loop) error) error {
	m := message{do: do, reply: make(chan error, 1)}
	select {
	case r.inbox <- m:
	case <-r.done:
		return errRoundGone
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-m.reply:
		return err
	case <-r.done:
		// The loop ended: it answered every message it took, so look once
		// more.
		select {
		case err := <-m.reply:
			return err
		default:
			return errRoundGone
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// post hands do to the loop without waiting for it; it returns false if
// the loop has ended.
func (r *round) post(do func(l *loop) error) bool {
	select {
	case r.inbox <- message{do: do}:
		return true
	case <-r.done:
		return false
	}
}

// view is a round as readers see it, at one moment. Nothing in it changes
// once published.
type view struct {
	g       *kalah.Game // the game as it stands
	seats   [2]store.Seat
	millis  []int64 // each move's thinking time
	tags    map[string]string
	created time.Time
	ref     referee.Referee // the clock's settings
	casual  bool
	// left is each seat's budget as of turnAt (for the seat to move) or
	// now (for the other); running is the seat whose clock runs (-1: none,
	// during a pause, a resume's grace or after the end).
	left    [2]time.Duration
	running int
	turnAt  time.Time
	away    [2]bool // bots whose connection dropped, people gone
	// awaySince is when each seat's player was last there or not (the
	// last change of away).
	awaySince [2]time.Time
	// takebackAsk is the seat asking the other person to take back a move
	// (-1: none); drawOffer the seat offering a draw (-1: none).
	takebackAsk int
	drawOffer   int
	reason      string // why the game ended, in words, once it is over
	trouble     string // the store fails: the game waits, and says so
	watchers    int
	spectators  int  // watchers who play no seat
	draws       bool // both seats can answer a draw offer
	over        bool // over and stored
	ended       bool // the loop has ended (over, or left for the next server)
	// openingPlies are the moves the game started with: a seat "has moved"
	// only after them.
	openingPlies int
}

// moveSeats returns the seat (0: the player who started as South) that
// made each move of g: a pie rule's swap exchanges the seats after it.
func moveSeats(g *kalah.Game) []int {
	moves := g.Moves()
	out := make([]int, len(moves))
	swapped := false
	for i, p := range moves {
		out[i] = int(p.Side)
		if swapped {
			out[i] = 1 - out[i]
		}
		if p.Move == kalah.Swap {
			swapped = !swapped
		}
	}
	return out
}

// movedBy reports whether seat has made a move of its own in g, after its
// opening's plies.
func movedBy(g *kalah.Game, opening, seat int) bool {
	seats := moveSeats(g)
	return slices.Contains(seats[min(opening, len(seats)):], seat)
}

// Event is something that happened in a game, for subscribers.
type Event struct {
	Game int64  `json:"game"`
	Kind string `json:"kind"` // "move", "away", "back", "join", "takeback", "takeback-ask", "takeback-declined", "draw-offer", "draw-decline", "draw-cancel", "spectators", "time", "trouble" or "end"
	// Move is the move made, for "move" (Ply counts from 0).
	Ply  int               `json:"ply"`
	Move *kalah.RecordMove `json:"move,omitempty"`
	// Position is the position after the event, in kalah notation.
	Position string `json:"position"`
	// Seat is the seat (0: started South) the event is about.
	Seat int `json:"seat"`
	// Result, Termination and Score are set for "end".
	Result      kalah.Result      `json:"result"`
	Termination kalah.Termination `json:"termination"`
	Score       kalah.Score       `json:"score"`
	// Text says in words what happened, where words help ("trouble").
	Text string `json:"text,omitempty"`
}

// seat is one side of a round, as its loop knows it.
type seat struct {
	st store.Seat
	// p, for a player the loop asks (a program, a KGP client, a bot in an
	// arranged game that could not come), is asked through ask.
	p   player.Player
	ask *asker
	// bot is set for a bot over our line protocol: its moves come as
	// messages from its connection, conn while it is connected.
	bot  bool
	conn *conn
	// human is set for a person moving through the API or the page.
	human bool
	// present: the player is there (a bot connected, a person with the
	// game open or acting lately, a program always); since is when that
	// last changed.
	present bool
	since   time.Time
	// returns: a bot that went away may come back; a KGP client cannot.
	returns bool
	// viewers counts a person's open streams of the game.
	viewers int
	// graceTo, after a restart, is until when the seat's player may come
	// back before its clock runs (zero: no grace, or it is back). Each
	// seat has its own: one player back first, and moving, does not
	// start the other's clock.
	graceTo time.Time
}

// loop is the state a round's loop owns: nothing else reads or writes it.
type loop struct {
	r      *round
	s      *Server
	ctx    context.Context
	g      *kalah.Game
	seats  [2]*seat
	ref    referee.Referee
	clocks *referee.Clocks
	millis []int64
	tags   map[string]string
	casual bool
	// The turn: the mover's clock runs from turnAt; before askAt (a delay
	// between moves, a resume's grace) it does not run yet. asked is set
	// once the mover was asked (a bot sent go, a program's ask started).
	turnAt  time.Time
	askAt   time.Time
	asked   bool
	cancel  context.CancelFunc // ends the program's ask in progress
	gen     int                // grows with every change of position; older answers are dropped
	started time.Time          // when this loop started (for AbortAfter)
	created time.Time          // when the game was created
	opening int                // plies the game started with
	// takebackAsk is the seat asking the other person to take back a move
	// (-1: none).
	takebackAsk int
	reason      string
	trouble     string
	answers     chan answer
	subs        map[chan Event]*sub
	outbox      []Event // events for subscribers, told once the view shows them
	watchers    map[*conn]struct{}
	pending     []<-chan error // moves being committed, with AsyncMoves
	timer       *time.Timer
	over        bool
	// halted is why the game stopped unfinished (the store closed).
	halted error
	// lastAt is when the last move arrived (for the referee's own time).
	lastAt time.Time
	// draw is the draw offer standing, if any (draw.go).
	draw drawOffer
}

// sub is a subscriber: who, if a seat's player, keeps the seat present.
type sub struct {
	seat int // -1: a spectator
}

// answer is what an asked player (or its observation) came back with.
type answer struct {
	seat    int
	gen     int
	observe bool
	m       kalah.Move
	err     error
	report  player.Report
}

// roundSetup is what a new or resumed round starts from.
type roundSetup struct {
	id      int64
	g       *kalah.Game
	seats   [2]*seat
	ref     referee.Referee
	casual  bool
	tags    map[string]string
	millis  []int64
	created time.Time
	opening int
	resumed bool
	// ticket is the game's admission (admit); nil for a resumed game,
	// which runRound admits itself.
	ticket *gate.Ticket
}

// newRound returns a round not yet started (runRound starts it).
func (s *Server) newRound() *round {
	return &round{srv: s, inbox: make(chan message, 64), done: make(chan struct{})}
}

// startRound registers a new round and starts its loop; it returns nil if
// the server is stopping (the game stays live in the store for the next).
func (s *Server) startRound(su roundSetup) *round {
	r := s.newRound()
	r.id = su.id
	return s.runRound(r, su)
}

// runRound registers r and starts its loop on su.
func (s *Server) runRound(r *round, su roundSetup) *round {
	if su.ticket == nil {
		su.ticket, _ = s.gate.Admit(gate.Request{Path: gate.Resumed, Parties: parties(su.seats, [2]string{})})
	}
	r.ticket = su.ticket
	s.watchTicket(r, r.ticket)
	ctx, cancel := context.WithCancel(s.ctx)
	now := time.Now()
	l := &loop{r: r, s: s, ctx: ctx, g: su.g, seats: su.seats, ref: su.ref, casual: su.casual, tags: su.tags,
		millis: su.millis, opening: su.opening, takebackAsk: -1, draw: newDrawOffer(), answers: make(chan answer, 8),
		subs: map[chan Event]*sub{}, watchers: map[*conn]struct{}{}, started: now, created: su.created}
	if l.tags == nil {
		l.tags = map[string]string{}
	}
	if len(l.millis) < l.g.Len() {
		l.millis = append(l.millis, make([]int64, l.g.Len()-len(l.millis))...)
	}
	// Each seat resumes with exactly the time it had at the last stored
	// move, and time given since.
	if l.ref.Budget > 0 && l.g.Len() > 0 {
		l.ref.Spent = spent(l.g, l.millis, l.ref.Budget, l.ref.Increment)
	}
	l.clocks = l.ref.Clocks()
	for i, give := range given(l.tags) {
		l.clocks.Give(i, give)
	}
	for _, st := range l.seats {
		st.since = now
		if st.p != nil && st.ask == nil {
			st.ask = newAsker(st.p, l.answers)
		}
		if st.p != nil && !st.bot {
			st.present = true
		}
	}
	l.askAt = now
	if su.resumed {
		// After a restart every seat whose player must come back (a bot, a
		// person) has the whole of ResumeGrace to do so before its clock
		// runs, whoever comes back first and whoever is to move: nobody
		// loses on time for the server's downtime.
		for _, st := range l.seats {
			if st.bot || st.human {
				st.graceTo = now.Add(s.cfg.ResumeGrace)
			}
		}
	}
	l.timer = time.NewTimer(time.Hour)
	l.timer.Stop()
	// A view before the round is live: whoever finds it live (a bot told
	// its game started) finds it to read.
	l.publish()
	s.mu.Lock()
	if s.closed {
		for _, st := range l.seats {
			if st.bot && s.seats[st.st.ID.Key()] == r {
				delete(s.seats, st.st.ID.Key())
			}
		}
		s.mu.Unlock()
		cancel()
		l.closePlayers()
		r.ticket.Release()
		close(r.done)
		return nil
	}
	s.live[r.id] = r
	for i, st := range l.seats {
		if st.bot {
			s.seats[st.st.ID.Key()] = r
			if c := s.sessions[st.st.ID.Key()]; c != nil {
				l.attach(i, c)
			}
		}
	}
	s.games.Add(1)
	s.mu.Unlock()
	l.publish()
	go func() {
		defer s.games.Done()
		defer cancel()
		l.run()
	}()
	return r
}

// run is the round's loop.
func (l *loop) run() {
	r := l.r
	defer func() {
		l.timer.Stop()
		l.closePlayers()
		// The players that watch hear the end before the game is done with
		// them (a KGP client's connection closes once Play returns).
		bound := time.After(5 * time.Second)
		for _, st := range l.seats {
			if st.ask != nil {
				select {
				case <-st.ask.stopped:
				case <-bound:
				}
			}
		}
		l.s.mu.Lock()
		if l.s.live[r.id] == r {
			delete(l.s.live, r.id)
		}
		l.s.mu.Unlock()
		l.release()
		r.ticket.Release()
		v := *r.view.Load()
		v.ended = true
		r.view.Store(&v)
		for ch := range l.subs {
			close(ch)
		}
		// Answer what is left in the inbox: the game is gone.
		close(r.done)
		for {
			select {
			case m := <-r.inbox:
				if m.reply != nil {
					m.reply <- errRoundGone
				}
			default:
				return
			}
		}
	}()
	for !l.over && l.halted == nil {
		if l.prompt() {
			l.publish()
		}
		l.arm()
		// Each change is published before anyone hears it is done.
		select {
		case m := <-r.inbox:
			err := m.do(l)
			l.publish()
			if m.reply != nil {
				m.reply <- err
			}
		case a := <-l.answers:
			l.answered(a)
			l.publish()
		case <-l.timer.C:
			l.tick()
			l.publish()
		case <-l.ctx.Done():
			l.s.log.Info("game stopped unfinished", "game", r.id, "moves", l.g.Len())
			return
		}
	}
	if l.halted != nil {
		// The store is gone: the game stays live in it for the next server.
		l.s.log.Error("game stopped", "game", r.id, "err", l.halted)
		l.broadcast(line.Errorf(line.CodeShutdown, "game %d stopped: %v", r.id, l.halted))
	}
}

// mover returns the seat to move.
func (l *loop) mover() int { return l.g.Seat(l.g.ToMove()) }

// prompt starts the mover's turn once its time has come: its clock runs
// from then, and a program or a bot is asked for its move. It reports
// whether it started a turn.
func (l *loop) prompt() bool {
	if l.g.Over() || l.asked || l.trouble != "" {
		return false
	}
	now := time.Now()
	seat := l.mover()
	st := l.seats[seat]
	if !st.graceTo.IsZero() {
		// A resumed game: the mover's clock starts when its player is back,
		// or when its own grace is over.
		if !st.present && now.Before(st.graceTo) {
			return false
		}
		st.graceTo = time.Time{}
	}
	if now.Before(l.askAt) {
		return false
	}
	l.asked = true
	l.turnAt = now
	if !l.lastAt.IsZero() {
		l.s.stats.add(now.Sub(l.lastAt))
	}
	clock := l.clocks.For(seat)
	switch {
	case st.ask != nil:
		ctx, cancel := context.WithCancel(l.ctx)
		l.cancel = cancel
		st.ask.move(ctx, l.g.Clone(), clock, seat, l.gen)
	case st.bot && st.conn != nil:
		st.conn.sendMsg(line.Turn{PerMove: clock.PerMove, Remaining: clock.Remaining, Position: l.g.Position()}.Msg())
	}
	return true
}

// arm sets the timer for the next thing that happens by itself: a turn
// that starts, a flag that falls, a bot away too long, an abort, the end
// of a resume's grace.
func (l *loop) arm() {
	next := time.Time{}
	at := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	if !l.g.Over() && l.trouble == "" {
		seat := l.mover()
		st := l.seats[seat]
		switch {
		case !l.asked && !st.graceTo.IsZero() && !st.present:
			at(later(st.graceTo, l.askAt))
		case !l.asked:
			at(l.askAt)
		default:
			if d := l.clocks.Deadline(seat); d > 0 {
				at(l.turnAt.Add(d))
			} else if st.bot && !st.present {
				at(later(l.turnAt, st.since).Add(l.s.cfg.Reconnect))
			}
		}
		at(l.firstMoveDue())
		if ab := l.s.cfg.AbandonAfter; ab > 0 && st.human && !st.present && l.asked && l.clocks.Deadline(seat) == 0 {
			at(later(l.turnAt, st.since).Add(ab))
		}
	}
	l.timer.Stop()
	if !next.IsZero() {
		l.timer.Reset(max(time.Until(next), 0))
	}
}

// roundish rounds a duration for people: to the second from a second on.
func roundish(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// firstMoveDue returns when the game is aborted if the side to move has
// not made its first move by then (zero: never): in a game with a person,
// each side has AbortAfter for its first move, as on lichess.
func (l *loop) firstMoveDue() time.Time {
	if !l.people() || l.g.Over() || movedBy(l.g, l.opening, l.mover()) {
		return time.Time{}
	}
	from := l.started
	if l.asked && l.turnAt.After(from) {
		from = l.turnAt
	}
	if g := l.seats[l.mover()].graceTo; g.After(from) {
		from = g // a resumed game's mover has its grace first
	}
	return from.Add(l.s.cfg.AbortAfter)
}

// tick handles the timer: whatever is due.
func (l *loop) tick() {
	if l.g.Over() || l.trouble != "" {
		return
	}
	now := time.Now()
	seat := l.mover()
	st := l.seats[seat]
	if due := l.firstMoveDue(); !due.IsZero() && !now.Before(due) {
		l.end(func(g *kalah.Game) error { return g.Abort() }, fmt.Sprintf("Aborted: %s made no first move within %v", st.st.Name, roundish(l.s.cfg.AbortAfter)))
		return
	}
	if !l.asked {
		return // prompt starts the turn when it is due
	}
	if d := l.clocks.Deadline(seat); d > 0 {
		if now.Sub(l.turnAt) >= d {
			if st.bot && !st.present {
				l.forfeit(seat, fmt.Errorf("%w: %s did not come back in time", player.ErrDisconnected, st.st.Name))
				return
			}
			l.flag(seat, now)
		}
		return
	}
	if st.bot && !st.present && now.Sub(later(l.turnAt, st.since)) >= l.s.cfg.Reconnect {
		l.forfeit(seat, fmt.Errorf("%w: %s did not come back within %v", player.ErrDisconnected, st.st.Name, l.s.cfg.Reconnect))
		return
	}
	if ab := l.s.cfg.AbandonAfter; ab > 0 && st.human && !st.present && now.Sub(later(l.turnAt, st.since)) >= ab {
		l.forfeit(seat, fmt.Errorf("%w: %s left the game (gone for %v)", player.ErrDisconnected, st.st.Name, roundish(ab)))
	}
}

// flag ends the game on time for seat.
func (l *loop) flag(seat int, now time.Time) {
	limit := l.clocks.For(seat).Limit()
	err := l.clocks.Charge(seat, now.Sub(l.turnAt))
	if err == nil {
		err = fmt.Errorf("%w: no move within %v", context.DeadlineExceeded, limit)
	}
	l.forfeit(seat, err)
}

// play makes seat's move m, arrived now: it is timed, stored and told,
// and the next turn starts. An illegal move is refused (ErrIllegalMove)
// and changes nothing: the caller decides whether it forfeits (a bot's,
// a program's) or is only refused (a person's slip).
func (l *loop) play(seat int, m kalah.Move) error {
	if l.g.Over() {
		return kalah.ErrGameOver
	}
	if l.mover() != seat {
		return ErrNotYourTurn
	}
	now := time.Now()
	elapsed := time.Duration(0)
	if l.asked {
		elapsed = now.Sub(l.turnAt)
	}
	if !l.g.IsLegal(m) {
		return fmt.Errorf("%w: %s in %s", kalah.ErrIllegalMove, m, l.g.Position())
	}
	if late := l.clocks.Charge(seat, elapsed); late != nil {
		l.forfeit(seat, late)
		return fmt.Errorf("%w: %w", kalah.ErrGameOver, late)
	}
	side := l.g.ToMove()
	l.g.Play(m)
	l.lastAt = now
	rm := kalah.RecordMove{Side: side, House: int(m), Millis: elapsed.Milliseconds()}
	if m == kalah.Swap {
		rm.House, rm.Swap = 0, true
	}
	if len(l.millis) != l.g.Len()-1 {
		// Never written over in place: views share it (publish).
		l.millis = slices.Clone(l.millis[:l.g.Len()-1])
	}
	l.millis = append(l.millis, rm.Millis)
	l.nextTurn()
	if err := l.storeMove(rm); err != nil {
		return err
	}
	last, _ := l.g.Last()
	pos := l.g.Position()
	l.takebackAsk = -1 // a move answers a takeback asked
	l.draw.moved(seat) // and a draw offered to the mover
	l.broadcast(line.Moved(last), line.State(pos))
	l.publishEvent(Event{Kind: "move", Ply: l.g.Len() - 1, Move: &rm, Position: pos.String()})
	if l.g.Over() {
		l.finish(nil)
		return nil
	}
	l.observe()
	return nil
}

// nextTurn ends the turn in progress: a program's ask is called off, and
// the next turn starts after the game's delay.
func (l *loop) nextTurn() {
	if l.cancel != nil {
		l.cancel()
		l.cancel = nil
	}
	l.gen++
	l.asked = false
	l.turnAt = time.Time{}
	l.askAt = time.Now().Add(l.ref.Delay)
}

// storeMove stores the move just played: before anyone hears of it, or,
// with AsyncMoves, before the game's end is stored.
func (l *loop) storeMove(rm kalah.RecordMove) error {
	ply := l.g.Len() - 1
	done := l.s.st.AddMoveAsync(context.WithoutCancel(l.ctx), l.r.id, ply, rm)
	if l.s.cfg.AsyncMoves {
		l.pending = append(l.pending, done)
		for len(l.pending) > 0 {
			select {
			case err := <-l.pending[0]:
				if err != nil {
					return l.retry(err, func() error { return l.s.st.AddMove(context.WithoutCancel(l.ctx), l.r.id, ply, rm) })
				}
				l.pending = l.pending[1:]
				continue
			default:
			}
			break
		}
		return nil
	}
	if err := <-done; err != nil {
		return l.retry(err, func() error { return l.s.st.AddMove(context.WithoutCancel(l.ctx), l.r.id, ply, rm) })
	}
	return nil
}

// retry is what a round does when the store fails: it tells the players
// in words, waits and tries again until the write is stored or the server
// stops, so that no result is lost; the clocks do not run meanwhile.
func (l *loop) retry(first error, write func() error) error {
	err := first
	wait := 100 * time.Millisecond
	for attempt := 1; err != nil; attempt++ {
		if errors.Is(err, store.ErrClosed) {
			l.halted = err // no store to wait for: the game stops
			return err
		}
		if l.ctx.Err() != nil {
			return err
		}
		if l.trouble == "" {
			l.trouble = "The server cannot save this game right now; it keeps trying, and the game goes on once it can."
			l.s.log.Error("cannot store a game; retrying", "game", l.r.id, "err", err)
			l.publishEvent(Event{Kind: "trouble", Position: l.g.Position().String(), Text: l.trouble})
			l.publish()
		}
		select {
		case <-time.After(wait):
		case <-l.ctx.Done():
			return l.ctx.Err()
		}
		wait = min(2*wait, 5*time.Second)
		err = write()
	}
	if l.trouble != "" {
		l.trouble = ""
		l.s.log.Info("the store works again", "game", l.r.id)
		// Nobody was charged the time the store was down.
		if l.asked && !l.turnAt.IsZero() {
			l.turnAt = time.Now()
		}
		l.publishEvent(Event{Kind: "trouble", Position: l.g.Position().String()})
	}
	return nil
}

// observe shows the game to the players that watch it (KGP clients,
// programs), each through its own asker, in order.
func (l *loop) observe() {
	for i, st := range l.seats {
		if st.ask != nil && st.ask.observer {
			st.ask.watch(l.ctx, l.g.Clone(), i, l.gen)
		}
	}
}

// answered handles an asked player's answer, or a failed observation.
func (l *loop) answered(a answer) {
	if l.g.Over() {
		return
	}
	if a.observe {
		if a.err != nil && l.ctx.Err() == nil {
			l.forfeit(a.seat, a.err)
		}
		return
	}
	if a.gen != l.gen || a.seat != l.mover() {
		return // the game moved on (a takeback, say) while it thought
	}
	l.cancel = nil
	if a.err == nil && !l.g.IsLegal(a.m) {
		a.err = fmt.Errorf("%w: %s by %s in %s", kalah.ErrIllegalMove, a.m, l.g.ToMove(), l.g.Position())
	}
	if a.err != nil {
		if late := l.clocks.Charge(a.seat, time.Since(l.turnAt)); late != nil && errors.Is(a.err, context.Canceled) {
			a.err = late
		}
		l.forfeit(a.seat, a.err)
		return
	}
	if err := l.play(a.seat, a.m); err != nil && !errors.Is(err, kalah.ErrGameOver) {
		l.s.log.Warn("a player's move was not played", "game", l.r.id, "err", err)
	}
}

// forfeit ends the game with a loss for seat, for cause.
func (l *loop) forfeit(seat int, cause error) {
	term := referee.Classify(cause)
	reason := l.reasonFor(seat, term, cause)
	if l.people() && !l.bothMoved() {
		// In a game with a person, before both sides have moved, leaving
		// costs nothing: the game is aborted, as on lichess.
		l.end(func(g *kalah.Game) error { return g.Abort() }, "Aborted: "+reason)
		return
	}
	l.end(func(g *kalah.Game) error { return g.Forfeit(g.PlayerSide(seat), term) }, reason)
}

// people reports whether a person plays in the game.
func (l *loop) people() bool { return l.seats[0].human || l.seats[1].human }

// bothMoved reports whether each side has made a move of its own.
func (l *loop) bothMoved() bool {
	return movedBy(l.g, l.opening, 0) && movedBy(l.g, l.opening, 1)
}

// end ends the game by how (a forfeit, an abort, an adjudication), with
// reason in words, and stores it.
func (l *loop) end(how func(g *kalah.Game) error, reason string) {
	if l.g.Over() {
		return
	}
	before := l.g.Position()
	if err := how(l.g); err != nil {
		l.s.log.Error("cannot end a game", "game", l.r.id, "err", err)
		return
	}
	l.nextTurn()
	l.reason = identity.CleanText(reason, 300)
	if l.g.Position() != before {
		// A forfeit gave the board to the winner.
		l.broadcast(line.State(l.g.Position()))
	}
	l.finish(errors.New(l.reason))
}

// finish stores the game's end and its rating, tells everyone, and ends
// the loop. why is the forfeit's cause (nil for an end by the rules).
func (l *loop) finish(why error) {
	for _, done := range l.pending {
		if err := <-done; err != nil {
			l.s.log.Error("a move of a finished game was not stored", "game", l.r.id, "err", err)
		}
	}
	l.pending = nil
	rec := l.g.Record()
	for i := range rec.Moves {
		if i < len(l.millis) {
			rec.Moves[i].Millis = l.millis[i]
		}
	}
	stored := rec
	stored.Tags = nil // the stored tags stay as they are
	if l.reason != "" {
		stored.Tags = map[string]string{ReasonTag: l.reason}
		l.tags[ReasonTag] = l.reason
	}
	if why := l.unratedWhy(); why != "" {
		// Too early to count, as an abort (farming.go).
		if stored.Tags == nil {
			stored.Tags = map[string]string{}
		}
		stored.Tags[tagRated], stored.Tags[tagUnrated] = "no", why
		l.tags[tagRated], l.tags[tagUnrated] = "no", why
	}
	if err := l.retry(l.s.st.FinishGame(context.WithoutCancel(l.ctx), l.r.id, stored), func() error {
		err := l.s.st.FinishGame(context.WithoutCancel(l.ctx), l.r.id, stored)
		if errors.Is(err, store.ErrNotFound) {
			return nil // stored by the try before, which only seemed to fail
		}
		return err
	}); err != nil {
		l.s.log.Error("game not stored as finished", "game", l.r.id, "err", err)
		return // the server stops: the next one resumes it
	}
	l.s.rate(l)
	l.over = true
	// The bots are free for their next game before they hear this one
	// ended.
	l.release()
	// Players that watch (KGP clients) hear how it ended.
	for i, st := range l.seats {
		if st.ask != nil && st.ask.observer {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(l.ctx), 5*time.Second)
			st.ask.watch(ctx, l.g.Clone(), i, l.gen)
			time.AfterFunc(5*time.Second, cancel)
		}
	}
	e := line.EndOf(l.g)
	l.broadcast(e.Msg())
	l.publishEvent(Event{Kind: "end", Ply: l.g.Len(), Position: l.g.Position().String(),
		Result: e.Result, Termination: e.Termination, Score: kalah.Score{South: e.South, North: e.North}})
	rec.Tags = maps.Clone(l.tags)
	l.r.outcome = &roundOutcome{record: rec, reason: l.reason}
	l.s.log.Info("game over", "game", l.r.id, "south", l.seats[0].st.Name, "north", l.seats[1].st.Name,
		"result", l.g.Result(), "termination", l.g.Termination())
	l.publish()
}

// release frees the round's bots for other games.
func (l *loop) release() {
	l.s.mu.Lock()
	for _, st := range l.seats {
		if st.bot && l.s.seats[st.st.ID.Key()] == l.r {
			delete(l.s.seats, st.st.ID.Key())
		}
	}
	l.s.freeLocked()
	l.s.mu.Unlock()
	for _, st := range l.seats {
		if st.conn != nil {
			st.conn.clearGame(l.r)
		}
	}
}

// reasonFor says in words why seat lost by term: who ran out of time,
// resigned, left or failed, with the cause's own words where a program
// failed.
func (l *loop) reasonFor(seat int, term kalah.Termination, cause error) string {
	name := l.seats[seat].st.Name
	var said requestReason
	if errors.As(cause, &said) {
		return string(said)
	}
	switch term {
	case kalah.Timeout:
		if l.ref.Budget > 0 {
			return name + " ran out of time"
		}
		return fmt.Sprintf("%s took longer than the %v a move allows", name, l.ref.PerMove)
	case kalah.Resign:
		return fmt.Sprintf("%s resigned at move %d", name, moveNumber(l.g))
	case kalah.Disconnect:
		// The cause says how, where it says more than the sentinel.
		if why, ok := strings.CutPrefix(cause.Error(), player.ErrDisconnected.Error()+": "); ok && why != "" {
			return why
		}
		return name + " left the game"
	case kalah.IllegalMove:
		return fmt.Sprintf("%s made an illegal move (%v)", name, cause)
	case kalah.ProtocolError:
		return fmt.Sprintf("%s broke the protocol (%v)", name, cause)
	case kalah.Crash:
		return fmt.Sprintf("%s stopped working (%v)", name, cause)
	}
	return cause.Error()
}

// moveNumber is the number of the move in progress as the game's text
// numbers them ("1. 3+6 2 2. ..."): a turn of each side a move.
func moveNumber(g *kalah.Game) int {
	turns := g.Turns()
	i := len(turns)
	if last, ok := g.Last(); ok && last.Effect&kalah.Extra != 0 && last.Effect&kalah.End == 0 {
		i-- // the mover goes on with the turn it started
	}
	return max(i, 0)/2 + 1
}

// requestReason is why a request (a claim, an abort) ended a game,
// already in words.
type requestReason string

func (r requestReason) Error() string { return string(r) }

// broadcast sends lines to the seats' bots and the spectators on our
// protocol.
func (l *loop) broadcast(msgs ...line.Msg) {
	for _, st := range l.seats {
		if st.conn != nil {
			for _, m := range msgs {
				st.conn.sendMsg(m)
			}
		}
	}
	for c := range l.watchers {
		for _, m := range msgs {
			c.sendMsg(m)
		}
	}
}

// publishEvent queues an event for subscribers: publish hands it on once
// the view shows what it tells, so that a subscriber who looks at the
// view on hearing of it sees the change.
func (l *loop) publishEvent(e Event) {
	e.Game = l.r.id
	l.outbox = append(l.outbox, e)
}

// deliver hands the queued events to subscribers; one that does not keep
// up is dropped (its channel closed).
func (l *loop) deliver() {
	for len(l.outbox) > 0 {
		e := l.outbox[0]
		l.outbox = l.outbox[1:]
		for ch, sb := range l.subs {
			select {
			case ch <- e:
			default:
				close(ch)
				delete(l.subs, ch)
				l.unview(sb) // may queue an event of its own
			}
		}
	}
	l.outbox = nil
}

// publish replaces the round's view with the state as it is now, then
// delivers the events queued meanwhile.
func (l *loop) publish() {
	defer l.deliver()
	// The game and its times are shared with the loop, never copied a
	// move: the loop only appends to them (Game.Snapshot).
	v := &view{g: l.g.Snapshot(), millis: l.millis[:len(l.millis):len(l.millis)], tags: maps.Clone(l.tags), ref: l.ref,
		casual: l.casual, running: -1, takebackAsk: l.takebackAsk, drawOffer: l.draw.by, reason: l.reason, trouble: l.trouble,
		watchers: len(l.subs) + len(l.watchers), spectators: l.spectators(), over: l.over, openingPlies: l.opening,
		draws: canAnswer(l.seats[0]) && canAnswer(l.seats[1])}
	if old := l.r.view.Load(); old != nil {
		v.created = old.created
	}
	for i, st := range l.seats {
		v.seats[i] = st.st
		v.away[i] = (st.bot || st.human) && !st.present
		v.awaySince[i] = st.since
		v.left[i] = l.clocks.Left(i)
	}
	if !l.g.Over() && l.asked && l.trouble == "" {
		v.running, v.turnAt = l.mover(), l.turnAt
	}
	l.r.view.Store(v)
}

// closePlayers stops the asked players and the players that hold
// resources (processes).
func (l *loop) closePlayers() {
	if l.cancel != nil {
		l.cancel()
	}
	for _, st := range l.seats {
		if st.ask != nil {
			st.ask.stop()
		}
	}
}

// spent returns each seat's budget used by the moves already played
// (a resumed game), increments deducted, leaving at least a millisecond.
func spent(g *kalah.Game, millis []int64, budget, increment time.Duration) [2]time.Duration {
	var used [2]time.Duration
	for i, seat := range moveSeats(g) {
		if i < len(millis) {
			used[seat] += time.Duration(millis[i]) * time.Millisecond
		}
		used[seat] -= increment
	}
	for i := range used {
		used[i] = min(max(used[i], -budget), budget-time.Millisecond)
	}
	return used
}

// tagGiven keeps the time each seat was given by its opponent: "MS,MS"
// (South's seat first).
const tagGiven = core.TagGiven

// given reads tagGiven.
func given(tags map[string]string) [2]time.Duration {
	var out [2]time.Duration
	a, b, ok := cutComma(tags[tagGiven])
	if !ok {
		return out
	}
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	return [2]time.Duration{time.Duration(x) * time.Millisecond, time.Duration(y) * time.Millisecond}
}

func cutComma(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

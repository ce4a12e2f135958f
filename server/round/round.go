// Package round is a live game: the one authority over it, as lila's
// round module is. Everything that can happen to the game (a move from
// any transport, a resignation, an abort, a takeback asked or answered, a
// claim, time given, a seat taken, a bot coming or going, a spectator
// arriving) is a message to the round's loop, which alone changes the
// game, applies messages in the order they arrive, stores each change
// before anyone hears of it, and publishes what readers see as an
// immutable View. No request is refused because another is in flight: it
// waits its turn in the inbox. What the round needs of the server goes
// through its Host; a bot's connection is a Link.
package round

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// A Round is a live game. Its state is its loop's alone: a Round is
// reached only by messages (its commands, commands.go) and read through
// its View.
type Round struct {
	id int64
	// inbox holds the messages for the loop, in arrival order: a few, as
	// each sender but the posts waits for its answer (a message buffered
	// is 16 bytes the collector scans in every live game).
	inbox chan message
	// view is what readers see: replaced, never changed, by the loop.
	view atomic.Pointer[View]
	// done is closed once the loop has ended: the game is over and stored,
	// or the server stops and leaves it to the next.
	done chan struct{}
	// gate is held (read) by each message on its way into the inbox, and
	// taken (write) by the loop once it has ended, before it empties the
	// inbox: a message is in the inbox before the loop looks at it for the
	// last time, or is refused (closed).
	gate   sync.RWMutex
	closed bool
	// outcome, set before done is closed, is how the game ended (nil if it
	// did not: the server stopped first).
	outcome *Outcome
	// ticket is the game's place at the gate, given back when it ends.
	ticket *gate.Ticket
}

// Outcome is a finished game as its loop ended it.
type Outcome struct {
	Record kalah.Record // with each move's time
	Reason string       // why, in words, for a forfeit, an abort or an adjudication
}

// inboxSize is the messages a round's inbox holds before a sender waits.
const inboxSize = 16

// New returns a round not yet started (Start starts it), for game id
// (0: set by Start from its Setup).
func New(id int64) *Round {
	return &Round{id: id, inbox: make(chan message, inboxSize), done: make(chan struct{})}
}

// ID returns the round's game.
func (r *Round) ID() int64 { return r.id }

// Done is closed once the round's loop has ended.
func (r *Round) Done() <-chan struct{} { return r.done }

// Outcome returns how the game ended, once Done is closed (nil if it did
// not: the server stopped first).
func (r *Round) Outcome() *Outcome { return r.outcome }

// View returns what readers see of the round now (nil before it starts).
func (r *Round) View() *View { return r.view.Load() }

// message is one thing to do to a round, run by its loop.
type message struct {
	do    func(l *loop) error
	reply chan error // nil: nobody waits
}

// ErrGone answers a message sent to a round whose loop has ended.
var ErrGone = fmt.Errorf("%w: the game is over or the server is stopping", kalah.ErrGameOver)

// enter puts m in the inbox, unless the loop has ended (false).
func (r *Round) enter(ctx context.Context, m message) (bool, error) {
	r.gate.RLock()
	defer r.gate.RUnlock()
	if r.closed {
		return false, nil
	}
	select {
	case r.inbox <- m:
		return true, nil
	case <-r.done:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// send has the round's loop run do, and returns its answer; it waits
// while the message is in the inbox, but not beyond ctx.
func (r *Round) send(ctx context.Context, do func(l *loop) error) error {
	m := message{do: do, reply: make(chan error, 1)}
	if in, err := r.enter(ctx, m); err != nil {
		return err
	} else if !in {
		return ErrGone
	}
	select {
	case err := <-m.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// post hands do to the loop without waiting for it; it returns false if
// the loop has ended. A message posted (true) is run: by the loop, or,
// if the loop ended meanwhile, by the loop's last look at its inbox.
func (r *Round) post(do func(l *loop) error) bool {
	in, _ := r.enter(context.Background(), message{do: do})
	return in
}

// View is a round as readers see it, at one moment. Nothing in it changes
// once published.
type View struct {
	G       *kalah.Game // the game as it stands
	Seats   [2]store.Seat
	Millis  []int64           // each move's thinking time
	Tags    map[string]string // shared by the views until the tags change: read only
	Created time.Time
	Ref     referee.Referee // the clock's settings
	Casual  bool
	// Left is each seat's budget as of TurnAt (for the seat to move) or
	// now (for the other); Running is the seat whose clock runs (-1: none,
	// during a pause, a resume's grace or after the end).
	Left    [2]time.Duration
	Running int
	TurnAt  time.Time
	Away    [2]bool // bots whose connection dropped, people gone
	// AwaySince is when each seat's player was last there or not (the
	// last change of Away).
	AwaySince [2]time.Time
	// TakebackAsk is the seat asking the other person to take back a move
	// (-1: none); DrawOffer the seat offering a draw (-1: none).
	TakebackAsk int
	DrawOffer   int
	Reason      string // why the game ended, in words, once it is over
	Trouble     string // the store fails: the game waits, and says so
	Watchers    int
	Spectators  int  // watchers who play no seat
	Draws       bool // both seats can answer a draw offer
	Over        bool // over and stored
	Ended       bool // the loop has ended (over, or left for the next server)
	// OpeningPlies are the moves the game started with: a seat "has moved"
	// only after them.
	OpeningPlies int
}

// MoveSeats returns the seat (0: the player who started as South) that
// made each move of g: a pie rule's swap exchanges the seats after it.
func MoveSeats(g *kalah.Game) []int {
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

// MovedBy reports whether seat has made a move of its own in g, after its
// opening's plies.
func MovedBy(g *kalah.Game, opening, seat int) bool {
	seats := MoveSeats(g)
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

// Seat is one side of a round, as its loop knows it. Its caller fills
// St and one of P, Bot or Human; the rest is the loop's.
type Seat struct {
	St store.Seat
	// P, for a player the loop asks (a program, a KGP client, a bot in an
	// arranged game that could not come), is asked through ask.
	P   player.Player
	ask *asker
	// Bot is set for a bot over our line protocol: its moves come as
	// messages from its connection, conn while it is connected.
	Bot  bool
	conn Link
	// Human is set for a person moving through the API or the page.
	Human bool
	// present: the player is there (a bot connected, a person with the
	// game open or acting lately, a program always); since is when that
	// last changed.
	present bool
	since   time.Time
	// Returns: a bot that went away may come back; a KGP client cannot.
	Returns bool
	// viewers counts a person's open streams of the game.
	viewers int
	// graceTo, after a restart, is until when the seat's player may come
	// back before its clock runs (zero: no grace, or it is back). Each
	// seat has its own: one player back first, and moving, does not
	// start the other's clock.
	graceTo time.Time
}

// BotSeat returns a new seat for bot id, which plays over our protocol.
func BotSeat(id identity.ID) *Seat {
	return &Seat{Bot: true, Returns: true, St: store.Seat{Name: id.Name, Kind: "bot", ID: id}}
}

// loop is the state a round's loop owns: nothing else reads or writes it.
type loop struct {
	r      *Round
	host   Host
	cfg    Config
	log    *slog.Logger
	ctx    context.Context
	g      *kalah.Game
	seats  [2]*Seat
	ref    referee.Referee
	clocks *referee.Clocks
	millis []int64
	tags   map[string]string
	// viewTags is the copy of tags the views share, read only; made anew
	// when tags changed since (tagsChanged), not a publish.
	viewTags    map[string]string
	tagsChanged bool
	casual      bool
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
	answers     chan answer // nil in a game with no program in a seat
	subs        map[chan Event]*sub
	outbox      []Event // events for subscribers, told once the view shows them
	watchers    map[Link]struct{}
	pending     []<-chan error // moves being committed, with AsyncMoves
	timer       *time.Timer
	over        bool
	// ended is set once the loop has ended: what it is posted after that
	// (commands.go) finds the game gone.
	ended bool
	// halted is why the game stopped unfinished (the store closed).
	halted error
	// lastAt is when the last move arrived (for the referee's own time).
	lastAt time.Time
	// readAt is when the line of the bot's move being played was read
	// (zero: none, or not known); confirmed counts it once it is out.
	readAt time.Time
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

// Setup is what a new or resumed round starts from.
type Setup struct {
	ID      int64
	G       *kalah.Game
	Seats   [2]*Seat
	Ref     referee.Referee
	Casual  bool
	Tags    map[string]string
	Millis  []int64
	Created time.Time
	Opening int
	Resumed bool
	// Ticket is the game's admission at the gate, given back when the
	// round ends.
	Ticket *gate.Ticket
}

// Start starts r's loop on su, for host; it returns nil if the host is
// stopping (Host.Register refused it: the game stays live in the store
// for the next server).
func Start(host Host, r *Round, su Setup) *Round {
	if r.id == 0 {
		r.id = su.ID
	}
	r.ticket = su.Ticket
	cfg := host.Config()
	ctx, cancel := context.WithCancel(host.Context())
	now := time.Now()
	l := &loop{r: r, host: host, cfg: cfg, log: host.Log(), ctx: ctx, g: su.G, seats: su.Seats, ref: su.Ref, casual: su.Casual, tags: su.Tags,
		millis: su.Millis, opening: su.Opening, takebackAsk: -1, draw: newDrawOffer(),
		subs: map[chan Event]*sub{}, watchers: map[Link]struct{}{}, started: now, created: su.Created}
	if l.tags == nil {
		l.tags = map[string]string{}
	}
	if len(l.millis) < l.g.Len() {
		l.millis = append(l.millis, make([]int64, l.g.Len()-len(l.millis))...)
	}
	// Each seat resumes with exactly the time it had at the last stored
	// move, and time given since.
	if l.ref.Budget > 0 && l.g.Len() > 0 {
		l.ref.Spent = Spent(l.g, l.millis, l.ref.Budget, l.ref.Increment)
	}
	l.clocks = l.ref.Clocks()
	for i, give := range Given(l.tags) {
		l.clocks.Give(i, give)
	}
	for _, st := range l.seats {
		st.since = now
		if st.P != nil && st.ask == nil {
			if l.answers == nil {
				// Only a game with a program in a seat has answers to
				// wait for: a channel of them a round is a kilobyte.
				l.answers = make(chan answer, 8)
			}
			st.ask = newAsker(st.P, l.answers)
		}
		if st.P != nil && !st.Bot {
			st.present = true
		}
	}
	l.askAt = now
	if su.Resumed {
		// After a restart every seat whose player must come back (a bot, a
		// person) has the whole of ResumeGrace to do so before its clock
		// runs, whoever comes back first and whoever is to move: nobody
		// loses on time for the server's downtime.
		for _, st := range l.seats {
			if st.Bot || st.Human {
				st.graceTo = now.Add(cfg.ResumeGrace)
			}
		}
	}
	l.timer = time.NewTimer(time.Hour)
	l.timer.Stop()
	// A view before the round is live: whoever finds it live (a bot told
	// its game started) finds it to read.
	l.publish()
	// The host registers the round as live, and hands it the connections
	// of its bots logged in, under its own lock: nothing runs the loop yet.
	if !host.Register(r, l.seats, l.attach) {
		cancel()
		l.closePlayers()
		if r.ticket != nil {
			r.ticket.Release()
		}
		l.drain()
		l.flush()
		return nil
	}
	l.publish()
	go func() {
		defer host.Exited()
		defer cancel()
		l.run()
	}()
	return r
}

// drain ends the round for messages: done is closed, and once no message
// is on its way into the inbox, the inbox is closed to new ones. What is
// left in it got in before: a message sent is answered that the game is
// gone, one posted is run (on a loop that has ended, which each command
// checks).
func (l *loop) drain() {
	r := l.r
	l.ended = true
	close(r.done)
	r.gate.Lock()
	r.closed = true
	r.gate.Unlock()
	for {
		select {
		case m := <-r.inbox:
			if m.reply != nil {
				m.reply <- ErrGone
			} else {
				m.do(l)
			}
		default:
			return
		}
	}
}

// run is the round's loop.
func (l *loop) run() {
	r := l.r
	defer func() {
		l.flush()
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
		l.host.Unregister(r)
		l.release()
		if r.ticket != nil {
			r.ticket.Release()
		}
		v := *r.view.Load()
		v.Ended = true
		r.view.Store(&v)
		for ch := range l.subs {
			close(ch)
		}
		l.subs = map[chan Event]*sub{}
		l.drain()
		l.flush()
	}()
	// What Register's attach queued for the bots goes out with the first
	// turn, in one write a bot, or alone if the turn waits.
	if l.prompt() {
		l.publish()
	}
	l.flush()
	for !l.over && l.halted == nil {
		if l.prompt() {
			l.publish()
			l.flush()
		}
		l.arm()
		// Each change is published before anyone hears it is done.
		select {
		case m := <-r.inbox:
			err := m.do(l)
			l.next()
			l.publish()
			l.flush()
			l.confirmed()
			if m.reply != nil {
				m.reply <- err
			}
		case a := <-l.answers:
			l.answered(a)
			l.next()
			l.publish()
			l.flush()
		case <-l.timer.C:
			l.tick()
			l.next()
			l.publish()
			l.flush()
		case <-l.ctx.Done():
			l.log.Info("game stopped unfinished", "game", r.id, "moves", l.g.Len())
			return
		}
	}
	if l.halted != nil {
		// The store is gone: the game stays live in it for the next server.
		l.log.Error("game stopped", "game", r.id, "err", l.halted)
		l.broadcast(line.Errorf(line.CodeShutdown, "game %d stopped: %v", r.id, l.halted))
	}
}

// next starts the next turn, if its time has come, before the change that
// let it start is published: a move and the turn after it make one view,
// not two (each view a new allocation, on every move of every game).
func (l *loop) next() {
	if !l.over && l.halted == nil {
		l.prompt()
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
		l.host.CountMove(now.Sub(l.lastAt))
	}
	clock := l.clocks.For(seat)
	switch {
	case st.ask != nil:
		ctx, cancel := context.WithCancel(l.ctx)
		l.cancel = cancel
		st.ask.move(ctx, l.g.Clone(), clock, seat, l.gen)
	case st.Bot && st.conn != nil:
		st.conn.Queue(line.Turn{PerMove: clock.PerMove, Remaining: clock.Remaining, Position: l.g.Position()}.Msg())
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
			} else if st.Bot && !st.present {
				at(later(l.turnAt, st.since).Add(l.cfg.Reconnect))
			}
		}
		at(l.firstMoveDue())
		if ab := l.cfg.AbandonAfter; ab > 0 && st.Human && !st.present && l.asked && l.clocks.Deadline(seat) == 0 {
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
	if !l.people() || l.g.Over() || MovedBy(l.g, l.opening, l.mover()) {
		return time.Time{}
	}
	from := l.started
	if l.asked && l.turnAt.After(from) {
		from = l.turnAt
	}
	if g := l.seats[l.mover()].graceTo; g.After(from) {
		from = g // a resumed game's mover has its grace first
	}
	return from.Add(l.cfg.AbortAfter)
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
		l.end(func(g *kalah.Game) error { return g.Abort() }, fmt.Sprintf("Aborted: %s made no first move within %v", st.St.Name, roundish(l.cfg.AbortAfter)))
		return
	}
	if !l.asked {
		return // prompt starts the turn when it is due
	}
	if d := l.clocks.Deadline(seat); d > 0 {
		if now.Sub(l.turnAt) >= d {
			if st.Bot && !st.present {
				l.forfeit(seat, fmt.Errorf("%w: %s did not come back in time", player.ErrDisconnected, st.St.Name))
				return
			}
			l.flag(seat, now)
		}
		return
	}
	if st.Bot && !st.present && now.Sub(later(l.turnAt, st.since)) >= l.cfg.Reconnect {
		l.forfeit(seat, fmt.Errorf("%w: %s did not come back within %v", player.ErrDisconnected, st.St.Name, l.cfg.Reconnect))
		return
	}
	if ab := l.cfg.AbandonAfter; ab > 0 && st.Human && !st.present && now.Sub(later(l.turnAt, st.since)) >= ab {
		l.forfeit(seat, fmt.Errorf("%w: %s left the game (gone for %v)", player.ErrDisconnected, st.St.Name, roundish(ab)))
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
		return core.ErrNotYourTurn
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
		// The last move is stored: its players hear of it now, not after
		// the game's end and ratings are committed (which wait their turn
		// behind every game ending at that moment).
		l.flush()
		l.confirmed()
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
	ctx := context.WithoutCancel(l.ctx)
	if !l.cfg.AsyncMoves {
		// Appended to the store's journal by this goroutine itself (one
		// write), with no wake of another between the move and its
		// confirmation.
		if err := l.host.AddMove(ctx, l.r.id, ply, rm); err != nil {
			return l.retry(err, func() error { return l.host.AddMove(ctx, l.r.id, ply, rm) })
		}
		return nil
	}
	l.pending = append(l.pending, l.host.AddMoveAsync(ctx, l.r.id, ply, rm))
	for len(l.pending) > 0 {
		select {
		case err := <-l.pending[0]:
			if err != nil {
				return l.retry(err, func() error { return l.host.AddMove(ctx, l.r.id, ply, rm) })
			}
			l.pending = l.pending[1:]
			continue
		default:
		}
		break
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
			l.log.Error("cannot store a game; retrying", "game", l.r.id, "err", err)
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
		l.log.Info("the store works again", "game", l.r.id)
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
		l.log.Warn("a player's move was not played", "game", l.r.id, "err", err)
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
func (l *loop) people() bool { return l.seats[0].Human || l.seats[1].Human }

// bothMoved reports whether each side has made a move of its own.
func (l *loop) bothMoved() bool {
	return MovedBy(l.g, l.opening, 0) && MovedBy(l.g, l.opening, 1)
}

// end ends the game by how (a forfeit, an abort, an adjudication), with
// reason in words, and stores it.
func (l *loop) end(how func(g *kalah.Game) error, reason string) {
	if l.g.Over() {
		return
	}
	before := l.g.Position()
	if err := how(l.g); err != nil {
		l.log.Error("cannot end a game", "game", l.r.id, "err", err)
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
			l.log.Error("a move of a finished game was not stored", "game", l.r.id, "err", err)
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
		stored.Tags = map[string]string{core.ReasonTag: l.reason}
		l.tags[core.ReasonTag] = l.reason
		l.tagsChanged = true
	}
	if why := l.host.UnratedWhy(l.g, l.opening, l.tags); why != "" {
		// Too early to count, as an abort (the Host's UnratedWhy).
		if stored.Tags == nil {
			stored.Tags = map[string]string{}
		}
		stored.Tags[core.TagRated], stored.Tags[core.TagUnrated] = "no", why
		l.tags[core.TagRated], l.tags[core.TagUnrated] = "no", why
		l.tagsChanged = true
	}
	rated := Rated{ID: l.r.id, G: l.g, Tags: l.tags, Ref: l.ref, BothMoved: l.bothMoved(),
		Seats: [2]identity.ID{l.seats[0].St.ID, l.seats[1].St.ID}}
	finish := func() error {
		return l.host.FinishGame(context.WithoutCancel(l.ctx), stored, rated)
	}
	if err := l.retry(finish(), func() error {
		err := finish()
		if errors.Is(err, store.ErrNotFound) {
			return nil // stored by the try before, which only seemed to fail
		}
		return err
	}); err != nil {
		l.log.Error("game not stored as finished", "game", l.r.id, "err", err)
		return // the server stops: the next one resumes it
	}
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
	l.r.outcome = &Outcome{Record: rec, Reason: l.reason}
	// At debug: a busy server ends hundreds of games a second, each in
	// the store and counted in the metrics.
	if l.log.Enabled(l.ctx, slog.LevelDebug) {
		l.log.Debug("game over", "game", l.r.id, "south", l.seats[0].St.Name, "north", l.seats[1].St.Name,
			"result", l.g.Result(), "termination", l.g.Termination())
	}
	l.publish()
}

// release frees the round's bots for other games.
func (l *loop) release() {
	l.host.Release(l.r, l.seats)
	for _, st := range l.seats {
		if st.conn != nil {
			st.conn.ClearGame(l.r)
		}
	}
}

// reasonFor says in words why seat lost by term: who ran out of time,
// resigned, left or failed, with the cause's own words where a program
// failed.
func (l *loop) reasonFor(seat int, term kalah.Termination, cause error) string {
	name := l.seats[seat].St.Name
	var said RequestReason
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

// RequestReason is why a request (a claim, an abort) ended a game,
// already in words.
type RequestReason string

func (r RequestReason) Error() string { return string(r) }

// broadcast queues lines for the seats' bots and the spectators on our
// protocol; they go out when the loop has done with the message that made
// them (flush), together with the next turn's "go".
func (l *loop) broadcast(msgs ...line.Msg) {
	var lines [4]string // formatted once for every connection
	text := lines[:0]
	for _, m := range msgs {
		text = append(text, m.String())
	}
	for _, st := range l.seats {
		if st.conn != nil {
			for _, s := range text {
				st.conn.QueueLine(s)
			}
		}
	}
	for c := range l.watchers {
		for _, s := range text {
			c.QueueLine(s)
		}
	}
}

// confirmed counts a bot's move whose confirmation the last flush wrote,
// from its line read (kalah_move_confirm_seconds).
func (l *loop) confirmed() {
	if !l.readAt.IsZero() {
		l.host.MoveConfirmed(time.Since(l.readAt))
		l.readAt = time.Time{}
	}
}

// flush sends what broadcast and prompt queued: one write a connection
// for a move, its new position and the next turn.
func (l *loop) flush() {
	for _, st := range l.seats {
		if st.conn != nil {
			st.conn.Flush()
		}
	}
	for c := range l.watchers {
		c.Flush()
	}
}

// publishEvent queues an event for subscribers: publish hands it on once
// the view shows what it tells, so that a subscriber who looks at the
// view on hearing of it sees the change.
func (l *loop) publishEvent(e Event) {
	if len(l.subs) == 0 {
		return // nobody to hand it to: a bot game's moves make none
	}
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
	// move: the loop only appends to them (Game.Snapshot); its tags are
	// copied only when they changed.
	if l.viewTags == nil || l.tagsChanged {
		l.viewTags, l.tagsChanged = maps.Clone(l.tags), false
	}
	v := &View{G: l.g.Snapshot(), Millis: l.millis[:len(l.millis):len(l.millis)], Tags: l.viewTags, Ref: l.ref,
		Casual: l.casual, Running: -1, TakebackAsk: l.takebackAsk, DrawOffer: l.draw.by, Reason: l.reason, Trouble: l.trouble,
		Watchers: len(l.subs) + len(l.watchers), Spectators: l.spectators(), Over: l.over, OpeningPlies: l.opening,
		Draws: canAnswer(l.seats[0]) && canAnswer(l.seats[1])}
	if old := l.r.view.Load(); old != nil {
		v.Created = old.Created
	}
	for i, st := range l.seats {
		v.Seats[i] = st.St
		v.Away[i] = (st.Bot || st.Human) && !st.present
		v.AwaySince[i] = st.since
		v.Left[i] = l.clocks.Left(i)
	}
	if !l.g.Over() && l.asked && l.trouble == "" {
		v.Running, v.TurnAt = l.mover(), l.turnAt
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

// Spent returns each seat's budget used by the moves already played
// (a resumed game), increments deducted, leaving at least a millisecond.
func Spent(g *kalah.Game, millis []int64, budget, increment time.Duration) [2]time.Duration {
	var used [2]time.Duration
	for i, seat := range MoveSeats(g) {
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

// Given reads core.TagGiven.
func Given(tags map[string]string) [2]time.Duration {
	var out [2]time.Duration
	a, b, ok := cutComma(tags[core.TagGiven])
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

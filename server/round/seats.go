package round

import (
	"context"
	"fmt"
	"io"
	"time"

	"kalah"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/server/core"
)

// asker asks one player the loop does not hear from by messages (a
// program, a KGP client) for its moves, and shows it the game, in order,
// on a goroutine of its own so the loop never waits for it.
type asker struct {
	p        player.Player
	observer bool
	tasks    chan askTask
	out      chan<- answer
	quit     chan struct{} // closed when nobody reads answers any more
	stopped  chan struct{} // closed once the goroutine has ended
}

type askTask struct {
	ctx     context.Context
	g       *kalah.Game
	clock   player.Clock
	seat    int
	gen     int
	observe bool
}

func newAsker(p player.Player, out chan<- answer) *asker {
	_, obs := p.(player.Observer)
	a := &asker{p: p, observer: obs, tasks: make(chan askTask, 64), out: out, quit: make(chan struct{}), stopped: make(chan struct{})}
	go a.run()
	return a
}

// move asks for a move in g (the asker's own copy) under clock.
func (a *asker) move(ctx context.Context, g *kalah.Game, clock player.Clock, seat, gen int) {
	a.give(askTask{ctx: ctx, g: g, clock: clock, seat: seat, gen: gen})
}

// watch shows the player the game as it stands.
func (a *asker) watch(ctx context.Context, g *kalah.Game, seat, gen int) {
	a.give(askTask{ctx: ctx, g: g, seat: seat, gen: gen, observe: true})
}

func (a *asker) give(t askTask) {
	select {
	case a.tasks <- t:
	default:
		// A player 64 tasks behind is stuck: its move will time out.
	}
}

// stop ends the asker once it has done what it was given; the player is
// closed then, if it holds resources (a process).
func (a *asker) stop() {
	select {
	case <-a.quit:
	default:
		close(a.quit)
		close(a.tasks)
	}
}

func (a *asker) run() {
	defer close(a.stopped)
	defer func() {
		if c, ok := a.p.(io.Closer); ok {
			c.Close()
		}
	}()
	for t := range a.tasks {
		var ans answer
		if t.observe {
			err := safeObserve(t.ctx, a.p.(player.Observer), t.g)
			if err == nil || t.ctx.Err() != nil {
				continue
			}
			ans = answer{seat: t.seat, gen: t.gen, observe: true, err: err}
		} else {
			if t.ctx.Err() != nil {
				continue // called off before it began
			}
			m, err := safeMove(t.ctx, a.p, t.g, t.clock)
			ans = answer{seat: t.seat, gen: t.gen, m: m, err: err}
			if rep, ok := a.p.(player.Reporter); ok && err == nil {
				ans.report = rep.LastReport()
			}
		}
		select {
		case a.out <- ans:
		case <-a.quit:
		}
	}
}

func safeMove(ctx context.Context, p player.Player, g *kalah.Game, c player.Clock) (m kalah.Move, err error) {
	defer func() {
		if v := recover(); v != nil {
			m, err = kalah.NoMove, fmt.Errorf("%w: panic: %v", player.ErrCrashed, v)
		}
	}()
	return p.Move(ctx, g, c)
}

func safeObserve(ctx context.Context, o player.Observer, g *kalah.Game) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: panic: %v", player.ErrCrashed, v)
		}
	}()
	return o.Observe(ctx, g)
}

// attach gives bot seat i its connection (the bot logged in): it is told
// the game, the position and, if it is to move, its turn, in the one
// write of the loop's next flush.
func (l *loop) attach(i int, c Link) {
	st := l.seats[i]
	if !st.Bot || l.g.Over() || l.ended || st.conn == c {
		return
	}
	old := st.conn
	st.conn = c
	c.SetGame(l.r)
	side := l.g.PlayerSide(i)
	opp := l.seats[1-i].St.Name
	c.Queue(line.Start{Game: fmt.Sprint(l.r.id), Side: side, Opponent: opp, Rules: l.g.Rules()}.Msg())
	c.Queue(line.State(l.g.Position()))
	if l.asked && l.mover() == i {
		// Its turn goes on: it is told the time left of it.
		clock := l.clocks.For(i)
		el := time.Since(l.turnAt)
		if clock.PerMove > 0 {
			clock.PerMove = max(clock.PerMove-el, time.Millisecond)
		}
		if clock.Remaining > 0 {
			clock.Remaining = max(clock.Remaining-el, time.Millisecond)
		}
		c.Queue(line.Turn{PerMove: clock.PerMove, Remaining: clock.Remaining, Position: l.g.Position()}.Msg())
	}
	if old == nil && !st.present {
		l.presence(i, true)
	}
}

// detach takes bot seat i's connection away (it closed).
func (l *loop) detach(i int, c Link) {
	st := l.seats[i]
	if st.conn != c || l.ended {
		return
	}
	st.conn = nil
	if st.present {
		l.presence(i, false)
	}
}

// presence marks seat i's player there or gone and tells the others.
func (l *loop) presence(i int, back bool) {
	st := l.seats[i]
	if st.present == back || l.ended {
		return
	}
	st.present, st.since = back, time.Now()
	if back {
		// Back after a restart: the seat's grace is over, its clock as
		// stored.
		st.graceTo = time.Time{}
	}
	if l.g.Over() {
		return
	}
	kind := "away"
	if back {
		kind = "back"
	}
	msg := line.Msg{Cmd: kind, Args: []string{l.g.PlayerSide(i).Letter()}}
	for j, o := range l.seats {
		if j != i && o.conn != nil {
			o.conn.Queue(msg)
		}
	}
	for c := range l.watchers {
		c.Queue(msg)
	}
	l.publishEvent(Event{Kind: kind, Seat: i, Ply: l.g.Len(), Position: l.g.Position().String()})
}

// acted marks a person's seat present for a moment: they just did
// something in the game.
func (l *loop) acted(i int) {
	st := l.seats[i]
	if st.Human {
		st.since = time.Now()
		if !st.present && st.viewers == 0 && !st.graceTo.IsZero() && l.mover() == i {
			// Back after a restart: the grace for them is over.
			st.graceTo = time.Time{}
		}
	}
}

// subscribe adds a subscriber of the round's events; seat, if 0 or 1, is
// the seat of the person who follows (their open game keeps them present).
func (l *loop) subscribe(ch chan Event, seat int) {
	l.subs[ch] = &sub{seat: seat}
	if seat < 0 {
		l.spectated()
	}
	if seat >= 0 && l.seats[seat].Human {
		l.seats[seat].viewers++
		l.presence(seat, true)
	}
}

// spectated tells subscribers that the spectators changed: a page shows
// how many watch.
func (l *loop) spectated() {
	l.publishEvent(Event{Kind: "spectators", Ply: l.g.Len(), Position: l.g.Position().String()})
}

// spectators counts who follows the game and plays no seat in it: event
// streams of no seat and spectators on our protocol.
func (l *loop) spectators() int {
	n := len(l.watchers)
	for _, sb := range l.subs {
		if sb.seat < 0 {
			n++
		}
	}
	return n
}

// unsubscribe removes a subscriber and closes its channel.
func (l *loop) unsubscribe(ch chan Event) {
	sb, ok := l.subs[ch]
	if !ok {
		return
	}
	delete(l.subs, ch)
	close(ch)
	l.unview(sb)
}

func (l *loop) unview(sb *sub) {
	if sb.seat < 0 {
		l.spectated()
	}
	if sb.seat >= 0 && l.seats[sb.seat].Human {
		st := l.seats[sb.seat]
		if st.viewers--; st.viewers <= 0 {
			st.viewers = 0
			l.presence(sb.seat, false)
		}
	}
}

// watch makes a connection a spectator on our protocol: it is sent the
// game so far, then every move and the end.
func (l *loop) watch(c Link) error {
	if l.g.Over() || l.ended {
		return fmt.Errorf("game %d is over: %w", l.r.id, core.ErrNotFound)
	}
	l.watchers[c] = struct{}{}
	l.spectated()
	c.Queue(line.Msg{Cmd: "watching", Args: []string{fmt.Sprint(l.r.id), l.seats[0].St.Name, l.seats[1].St.Name, line.RulesToken(l.g.Rules())}})
	for _, p := range l.g.Moves() {
		c.Queue(line.Moved(p))
	}
	c.Queue(line.State(l.g.Position()))
	return nil
}

// Absent returns the player of a seat whose player is not there: asked to
// move, it fails with err, which forfeits the game.
func Absent(err error) player.Player { return absent{err} }

type absent struct{ err error }

// Move fails with the seat's error.
func (a absent) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	return kalah.NoMove, a.err
}

// Package referee runs a game between two players and owns the truth: it
// asks the player to move for a move under its clock, validates it, applies
// forfeits (an illegal move, a timeout, a crash or a disconnect loses at once
// and the board goes to the winner) and reports every move as it is made.
// The match command, the server and tournaments all play through it.
package referee

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kalah"
	"kalah/player"
)

// Referee plays games under a clock. The zero value plays without any time
// limit.
type Referee struct {
	// PerMove limits each move (GameLink, the thesis); zero means none.
	PerMove time.Duration
	// Budget is each player's cumulative time for the game (Manchester);
	// zero means none.
	Budget time.Duration
	// Increment is added to a player's budget after each of its moves.
	Increment time.Duration
	// Spent is what each seat has already used of its budget, increments
	// deducted, for a game resumed after a restart; zero for a new game.
	Spent [2]time.Duration
	// Delay pauses before each move so people can follow (GameLink's
	// MoveDelay); it is not charged to anyone's clock.
	Delay time.Duration
	// Grace is slack allowed beyond a limit for transport latency before a
	// move counts as late.
	Grace time.Duration

	// OnMove, if set, is called after each move is made and before the next
	// is asked for; it is where moves are stored and broadcast. An error
	// stops the game (unfinished) and is returned by Play.
	OnMove func(g *kalah.Game, m Move) error
	// OnEnd, if set, is called once the game is over, normally or by a
	// forfeit; an error is returned by Play.
	OnEnd func(g *kalah.Game, o *Outcome) error
	// Now is the clock; nil means time.Now. Tests may replace it.
	Now func() time.Time
}

// Move is one move as the referee saw it.
type Move struct {
	kalah.Played
	Seat    int           // 0: the player who started as South, 1: North
	Elapsed time.Duration // thinking time charged
	Report  player.Report // the player's own account, if it gives one
}

// Outcome is a game the referee finished.
type Outcome struct {
	Game  *kalah.Game
	Moves []Move // the moves made under the referee, in order
	// Reason explains a forfeit: the player's error or the illegal move.
	Reason error
	// Remaining is each seat's budget left, when there is a budget.
	Remaining [2]time.Duration
}

// Record returns the game as a record with each move's time.
func (o *Outcome) Record() kalah.Record {
	rec := o.Game.Record()
	off := len(rec.Moves) - len(o.Moves)
	for i, m := range o.Moves {
		rec.Moves[off+i].Millis = m.Elapsed.Milliseconds()
	}
	return rec
}

func (r *Referee) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Play runs g to its end between players, indexed by seat (0 for the player
// who started as South). If ctx ends first, Play returns ctx's error and
// leaves the game unfinished, to be resumed or adjudicated.
func (r *Referee) Play(ctx context.Context, g *kalah.Game, players [2]player.Player) (*Outcome, error) {
	out := &Outcome{Game: g}
	clocks := r.Clocks()
	defer func() { out.Remaining = [2]time.Duration{clocks.left[0], clocks.left[1]} }()
	for !g.Over() {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if r.Delay > 0 {
			if err := sleep(ctx, r.Delay); err != nil {
				return out, err
			}
		}
		side := g.ToMove()
		seat := g.Seat(side)
		m, elapsed, err := r.ask(ctx, players[seat], g, clocks.For(seat))
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if late := clocks.Charge(seat, elapsed); err == nil {
			err = late
		}
		if err == nil && !g.IsLegal(m) {
			err = fmt.Errorf("%w: %s by %s in %s", kalah.ErrIllegalMove, m, side, g.Position())
		}
		if err != nil {
			out.Reason = err
			if ferr := g.Forfeit(side, Classify(err)); ferr != nil {
				return out, ferr
			}
			break
		}
		played := Move{Seat: seat, Elapsed: elapsed}
		if rep, ok := players[seat].(player.Reporter); ok {
			played.Report = rep.LastReport()
		}
		eff, _ := g.Play(m)
		played.Played = kalah.Played{Side: side, Move: m, Effect: eff}
		out.Moves = append(out.Moves, played)
		if r.OnMove != nil {
			if err := r.OnMove(g, played); err != nil {
				return out, err
			}
		}
		if g.Over() {
			break
		}
		if loser, err := r.observe(ctx, g, players); err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			out.Reason = err
			if ferr := g.Forfeit(g.PlayerSide(loser), Classify(err)); ferr != nil {
				return out, ferr
			}
		}
	}
	// Tell observers how it ended; their errors no longer matter.
	r.observe(ctx, g, players)
	if r.OnEnd != nil {
		if err := r.OnEnd(g, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// observe shows the game to every player that watches it, and returns the
// seat of the first that fails.
func (r *Referee) observe(ctx context.Context, g *kalah.Game, players [2]player.Player) (int, error) {
	for seat, p := range players {
		if o, ok := p.(player.Observer); ok {
			if err := safeObserve(ctx, o, g.Clone()); err != nil {
				return seat, err
			}
		}
	}
	return 0, nil
}

func safeObserve(ctx context.Context, o player.Observer, g *kalah.Game) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: panic: %v", player.ErrCrashed, v)
		}
	}()
	return o.Observe(ctx, g)
}

type answer struct {
	m   kalah.Move
	err error
}

// ask gets a move from p under clock c. A player that does not return by
// its limit (plus grace) is abandoned and loses on time.
func (r *Referee) ask(ctx context.Context, p player.Player, g *kalah.Game, c player.Clock) (kalah.Move, time.Duration, error) {
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	limit := c.Limit()
	var timer <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit + r.Grace)
		defer t.Stop()
		timer = t.C
	}
	ch := make(chan answer, 1)
	start := r.now()
	view := g.Clone()
	go func() {
		defer func() {
			if v := recover(); v != nil {
				ch <- answer{err: fmt.Errorf("%w: panic: %v", player.ErrCrashed, v)}
			}
		}()
		m, err := p.Move(mctx, view, c)
		ch <- answer{m, err}
	}()
	select {
	case a := <-ch:
		return a.m, r.now().Sub(start), a.err
	case <-timer:
		cancel()
		return kalah.NoMove, r.now().Sub(start), fmt.Errorf("%w: no move within %v", context.DeadlineExceeded, limit)
	case <-ctx.Done():
		cancel()
		<-ch
		return kalah.NoMove, r.now().Sub(start), ctx.Err()
	}
}

// Classify maps a player's error to the forfeit it causes.
func Classify(err error) kalah.Termination {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return kalah.Timeout
	case errors.Is(err, kalah.ErrIllegalMove):
		return kalah.IllegalMove
	case errors.Is(err, player.ErrDisconnected):
		return kalah.Disconnect
	case errors.Is(err, player.ErrProtocol):
		return kalah.ProtocolError
	case errors.Is(err, player.ErrResigned):
		return kalah.Resign
	}
	return kalah.Crash
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

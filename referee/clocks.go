package referee

import (
	"context"
	"fmt"
	"time"

	"kalah/player"
)

// Clocks are the two seats' time in one game under a Referee's settings:
// the one arithmetic of clocks for every game, whether Play runs it or a
// server's game loop does. Seats are numbered as in Play (0: the player
// who started as South).
type Clocks struct {
	perMove, budget, increment, grace time.Duration
	left                              [2]time.Duration
}

// Clocks returns the seats' clocks as play starts: each seat's budget less
// what Spent says it used already.
func (r *Referee) Clocks() *Clocks {
	return &Clocks{perMove: r.PerMove, budget: r.Budget, increment: r.Increment, grace: r.Grace,
		left: [2]time.Duration{r.Budget - r.Spent[0], r.Budget - r.Spent[1]}}
}

// For returns what seat is told of its clock when asked to move.
func (c *Clocks) For(seat int) player.Clock {
	pc := player.Clock{PerMove: c.perMove, Increment: c.increment}
	if c.budget > 0 {
		pc.Remaining = c.left[seat]
	}
	return pc
}

// Left returns seat's budget left (zero for a game without a budget).
func (c *Clocks) Left(seat int) time.Duration {
	if c.budget <= 0 {
		return 0
	}
	return c.left[seat]
}

// Budgeted reports whether the game has a budget (a clock for the game,
// not only a limit a move).
func (c *Clocks) Budgeted() bool { return c.budget > 0 }

// Deadline returns how long seat may think now before it loses on time,
// grace included; zero means no limit.
func (c *Clocks) Deadline(seat int) time.Duration {
	limit := c.For(seat).Limit()
	if limit <= 0 {
		return 0
	}
	return limit + c.grace
}

// Charge takes a move's thinking time from seat's clock and adds the
// increment. The error, wrapping context.DeadlineExceeded, says the move
// came too late: beyond the move's limit (and the grace), or after the
// budget ran out.
func (c *Clocks) Charge(seat int, elapsed time.Duration) error {
	var err error
	if limit := c.For(seat).Limit(); limit > 0 && elapsed > limit+c.grace {
		err = fmt.Errorf("%w: took %v, limit %v", context.DeadlineExceeded, elapsed.Round(time.Millisecond), limit)
	}
	if c.budget > 0 {
		c.left[seat] -= elapsed
		if c.left[seat] <= 0 && err == nil {
			err = fmt.Errorf("%w: budget of %v used up", context.DeadlineExceeded, c.budget)
		}
		c.left[seat] += c.increment
	}
	return err
}

// Give adds d to seat's budget: time its opponent gave it.
func (c *Clocks) Give(seat int, d time.Duration) {
	if c.budget > 0 {
		c.left[seat] += d
	}
}

package referee_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"kalah"
	"kalah/heuristic"
	"kalah/player"
	"kalah/referee"
)

// scripted plays a fixed behaviour: a move, an error, a panic or a delay.
type scripted struct {
	move  kalah.Move
	err   error
	panic bool
	delay time.Duration
	obs   int
}

func (s *scripted) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	if s.panic {
		panic("bot bug")
	}
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return kalah.NoMove, ctx.Err()
		}
	}
	if s.err != nil {
		return kalah.NoMove, s.err
	}
	if s.move != kalah.NoMove {
		return s.move, nil
	}
	return heuristic.First{}.Move(ctx, g, c)
}

func (s *scripted) Observe(ctx context.Context, g *kalah.Game) error { s.obs++; return nil }

func newGame(t *testing.T) *kalah.Game {
	t.Helper()
	g, err := kalah.NewGame(kalah.Standard())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestForfeits(t *testing.T) {
	for _, tc := range []struct {
		name string
		bad  *scripted
		want kalah.Termination
	}{
		{"illegal move", &scripted{move: 9}, kalah.IllegalMove},
		{"error", &scripted{err: errors.New("boom")}, kalah.Crash},
		{"panic", &scripted{panic: true}, kalah.Crash},
		{"disconnect", &scripted{err: player.ErrDisconnected}, kalah.Disconnect},
		{"protocol", &scripted{err: player.ErrProtocol}, kalah.ProtocolError},
		{"resign", &scripted{err: player.ErrResigned}, kalah.Resign},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGame(t)
			var r referee.Referee
			out, err := r.Play(context.Background(), g, [2]player.Player{tc.bad, &scripted{}})
			if err != nil {
				t.Fatal(err)
			}
			if g.Termination() != tc.want || g.Result() != kalah.NorthWins {
				t.Fatalf("got %s %s, want %s, north wins", g.Result(), g.Termination(), tc.want)
			}
			if out.Reason == nil {
				t.Error("no reason for the forfeit")
			}
			// GameLink's rule: every seed left on the board goes to the winner.
			if s, n := g.Score(); s != 0 || n != 48 {
				t.Errorf("score %d-%d, want 0-48", s, n)
			}
		})
	}
}

func TestTimeoutPerMove(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGame(t)
		r := referee.Referee{PerMove: time.Second}
		slow := &scripted{delay: 5 * time.Second}
		start := time.Now()
		if _, err := r.Play(context.Background(), g, [2]player.Player{&scripted{}, slow}); err != nil {
			t.Fatal(err)
		}
		if g.Termination() != kalah.Timeout || g.Result() != kalah.SouthWins {
			t.Fatalf("got %s %s, want south wins on time", g.Result(), g.Termination())
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("the referee waited %v for a late move", d)
		}
	})
}

func TestBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 3 s of budget, 1 s a move: the slow side runs out on its third move.
		g := newGame(t)
		r := referee.Referee{Budget: 3 * time.Second}
		slow := &scripted{delay: time.Second + time.Millisecond}
		if _, err := r.Play(context.Background(), g, [2]player.Player{slow, &scripted{}}); err != nil {
			t.Fatal(err)
		}
		if g.Termination() != kalah.Timeout || g.Result() != kalah.NorthWins {
			t.Fatalf("got %s %s, want north wins on time", g.Result(), g.Termination())
		}
	})
}

func TestHooksAndObservers(t *testing.T) {
	g := newGame(t)
	a, b := &scripted{}, &scripted{}
	var moves, ends int
	r := referee.Referee{
		OnMove: func(g *kalah.Game, m referee.Move) error { moves++; return nil },
		OnEnd:  func(g *kalah.Game, o *referee.Outcome) error { ends++; return nil },
	}
	out, err := r.Play(context.Background(), g, [2]player.Player{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Over() || g.Termination() != kalah.Normal {
		t.Fatalf("game not finished normally: %s", g.Termination())
	}
	if moves != g.Len() || len(out.Moves) != g.Len() || ends != 1 {
		t.Errorf("OnMove %d, Moves %d, OnEnd %d, game has %d moves", moves, len(out.Moves), ends, g.Len())
	}
	if a.obs != g.Len() || b.obs != g.Len() {
		t.Errorf("observers saw %d and %d updates, want %d (each move and the end)", a.obs, b.obs, g.Len())
	}
	rec := out.Record()
	if _, err := rec.Game(); err != nil {
		t.Errorf("the outcome's record does not replay: %v", err)
	}
}

func TestCancelLeavesGameUnfinished(t *testing.T) {
	g := newGame(t)
	ctx, cancel := context.WithCancel(context.Background())
	r := referee.Referee{OnMove: func(g *kalah.Game, m referee.Move) error {
		if g.Len() == 3 {
			cancel()
		}
		return nil
	}}
	_, err := r.Play(ctx, g, [2]player.Player{&scripted{}, &scripted{}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if g.Over() || g.Len() != 3 {
		t.Fatalf("game over=%v after %d moves; want unfinished after 3", g.Over(), g.Len())
	}
}

func TestClassify(t *testing.T) {
	for err, want := range map[error]kalah.Termination{
		context.DeadlineExceeded: kalah.Timeout,
		kalah.ErrIllegalMove:     kalah.IllegalMove,
		player.ErrDisconnected:   kalah.Disconnect,
		errors.New("x"):          kalah.Crash,
	} {
		if got := referee.Classify(err); got != want {
			t.Errorf("Classify(%v) = %s, want %s", err, got, want)
		}
	}
}

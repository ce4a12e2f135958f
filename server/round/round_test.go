package round

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kalah/player"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
)

// testHost is a server with a store that takes everything and registers
// every round; exited is closed once a round's loop is gone.
type testHost struct {
	ctx    context.Context
	exited chan struct{}
}

func (h *testHost) Context() context.Context { return h.ctx }
func (h *testHost) Log() *slog.Logger        { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func (h *testHost) Config() Config {
	return Config{AbortAfter: time.Hour, ClaimAfter: time.Hour, Reconnect: time.Hour, ResumeGrace: time.Hour}
}
func (h *testHost) AddMoveAsync(ctx context.Context, id int64, ply int, rm kalah.RecordMove) <-chan error {
	ch := make(chan error, 1)
	ch <- nil
	return ch
}
func (h *testHost) AddMove(context.Context, int64, int, kalah.RecordMove) error { return nil }
func (h *testHost) FinishGame(context.Context, kalah.Record, Rated) error       { return nil }
func (h *testHost) TakeBack(context.Context, int64, int, string) error          { return nil }
func (h *testHost) SetTag(context.Context, int64, string, string) error         { return nil }
func (h *testHost) SetSeats(context.Context, int64, [2]store.Seat) error        { return nil }
func (h *testHost) UnratedWhy(*kalah.Game, int, map[string]string) string       { return "" }
func (h *testHost) Ratable(context.Context, [2]identity.ID) bool                { return false }
func (h *testHost) Register(*Round, [2]*Seat, func(int, Link)) bool             { return true }
func (h *testHost) Unregister(*Round)                                           {}
func (h *testHost) Release(*Round, [2]*Seat)                                    {}
func (h *testHost) Exited()                                                     { close(h.exited) }
func (h *testHost) CountMove(time.Duration)                                     {}
func (h *testHost) MoveConfirmed(time.Duration)                                 {}
func (h *testHost) ReserveRated(context.Context, [2]identity.ID) (bool, int, func()) {
	return false, 0, func() {}
}

// startPeople starts a round between two people on h.
func startPeople(t *testing.T, h *testHost) *Round {
	t.Helper()
	g, err := kalah.NewGame(kalah.Rules{Houses: 4, Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	seats := [2]*Seat{
		{Human: true, St: store.Seat{Kind: "human", Name: "ann", TokenHash: TokenHash("ann")}},
		{Human: true, St: store.Seat{Kind: "human", Name: "bob", TokenHash: TokenHash("bob")}},
	}
	r := Start(h, New(1), Setup{ID: 1, G: g, Seats: seats})
	if r == nil {
		t.Fatal("the round did not start")
	}
	return r
}

// TestPostRacingTheEndRunsOrIsRefused posts messages to a round while it
// ends and after: each post accepted (true) must run, on the loop or on
// its last look at the inbox; one that cannot run must be refused.
func TestPostRacingTheEndRunsOrIsRefused(t *testing.T) {
	for range 20 {
		h := &testHost{ctx: t.Context(), exited: make(chan struct{})}
		r := startPeople(t, h)
		var accepted, ran atomic.Int64
		post := func() {
			if r.post(func(l *loop) error { ran.Add(1); return nil }) {
				accepted.Add(1)
			}
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
						post()
					}
				}
			})
		}
		if err := r.Abandon(t.Context(), "the test ends it"); err != nil {
			t.Fatal(err)
		}
		<-r.Done()
		for range 100 {
			post() // after the end: refused, or run
		}
		close(stop)
		wg.Wait()
		<-h.exited
		if a, n := accepted.Load(), ran.Load(); a != n {
			t.Fatalf("%d posts accepted, %d run", a, n)
		}
		if r.Outcome() == nil || r.Outcome().Reason != "the test ends it" {
			t.Fatalf("outcome %+v", r.Outcome())
		}
	}
}

// TestSendAfterTheEndIsRefused: a command sent to a round that has ended
// is answered ErrGone, at once.
func TestSendAfterTheEndIsRefused(t *testing.T) {
	h := &testHost{ctx: t.Context(), exited: make(chan struct{})}
	r := startPeople(t, h)
	ann := core.Actor{Token: "ann"}
	if err := r.Resign(t.Context(), ann); err != nil {
		t.Fatal(err)
	}
	<-r.Done()
	<-h.exited
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := r.Move(ctx, ann, 1); err != ErrGone {
		t.Fatalf("a move after the end: %v, want ErrGone", err)
	}
}

// TestPeoplePlayToTheEnd plays a game between two people through the
// round's commands alone: each move is the mover's, the other's is
// refused, and the end is stored through the Host and told to the
// subscriber.
func TestPeoplePlayToTheEnd(t *testing.T) {
	h := &testHost{ctx: t.Context(), exited: make(chan struct{})}
	r := startPeople(t, h)
	ctx := t.Context()
	events := make(chan Event, 64)
	if err := r.Subscribe(ctx, events, core.Actor{}); err != nil {
		t.Fatal(err)
	}
	actors := [2]core.Actor{{Token: "ann"}, {Token: "bob"}}
	for ply := 0; ; ply++ {
		v := r.View()
		if v.Over {
			break
		}
		if ply > 200 {
			t.Fatal("the game does not end")
		}
		seat := v.G.Seat(v.G.ToMove())
		m := v.G.Legal()[0]
		if err := r.Move(ctx, actors[1-seat], m); !errors.Is(err, core.ErrNotYourTurn) {
			t.Fatalf("the other seat's move: %v, want ErrNotYourTurn", err)
		}
		if err := r.Move(ctx, actors[seat], m); err != nil {
			t.Fatalf("ply %d: %v", ply, err)
		}
	}
	<-r.Done()
	<-h.exited
	if o := r.Outcome(); o == nil || o.Record.Result == kalah.Ongoing {
		t.Fatalf("outcome %+v", o)
	}
	last := Event{}
	for e := range events {
		last = e
	}
	if last.Kind != "end" {
		t.Fatalf("the last event is %q, want end", last.Kind)
	}
}

// TestAnswersOnlyWithAProgram: a round waits for a program's answers on a
// channel it makes only when a program plays a seat; a game of two people
// (or two bots) has none, for the kilobyte it would hold in every live game.
func TestAnswersOnlyWithAProgram(t *testing.T) {
	hasAnswers := func(r *Round) bool {
		var has bool
		if err := r.send(t.Context(), func(l *loop) error { has = l.answers != nil; return nil }); err != nil {
			t.Fatal(err)
		}
		return has
	}
	h := &testHost{ctx: t.Context(), exited: make(chan struct{})}
	r := startPeople(t, h)
	if hasAnswers(r) {
		t.Error("two people's round has a channel for a program's answers")
	}
	r.Abandon(t.Context(), "the test ends it")
	<-h.exited

	g, err := kalah.NewGame(kalah.Rules{Houses: 4, Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	h = &testHost{ctx: t.Context(), exited: make(chan struct{})}
	seats := [2]*Seat{
		{Human: true, St: store.Seat{Kind: "human", Name: "ann", TokenHash: TokenHash("ann")}},
		{P: firstHouse{}, St: store.Seat{Kind: "program", Name: "first"}},
	}
	r = Start(h, New(2), Setup{ID: 2, G: g, Seats: seats})
	if r == nil {
		t.Fatal("the round did not start")
	}
	if !hasAnswers(r) {
		t.Error("a round with a program in a seat has no channel for its answers")
	}
	r.Abandon(t.Context(), "the test ends it")
	<-h.exited
}

// firstHouse is a program that plays its first legal move.
type firstHouse struct{}

func (firstHouse) Move(_ context.Context, g *kalah.Game, _ player.Clock) (kalah.Move, error) {
	return g.Legal()[0], nil
}

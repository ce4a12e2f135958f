package gate

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

func guest(i int, addr string) Party {
	return Party{Who: fmt.Sprintf("guest:%d", i), Addr: addr, Person: true, Guest: true}
}

func TestAdmitCaps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lim    Limits
		before []Request // admitted first, and kept
		req    Request
		want   error
	}{
		{"server full", Limits{MaxGames: 1}, []Request{{Path: Queue}}, Request{Path: Computer}, ErrFull},
		{"resumed games pass a full server", Limits{MaxGames: 1}, []Request{{Path: Queue}}, Request{Path: Resumed}, nil},
		{"a person's unfinished games", Limits{PerPerson: 2},
			[]Request{{Path: Computer, Parties: []Party{{Who: "user:a", Person: true}}}, {Path: Invite, Parties: []Party{{Who: "user:a", Person: true}}}},
			Request{Path: Seek, Parties: []Party{{Who: "user:a", Person: true}, {Who: "user:b", Person: true}}}, ErrTooMany},
		{"another person is not counted", Limits{PerPerson: 1},
			[]Request{{Path: Computer, Parties: []Party{{Who: "user:a", Person: true}}}},
			Request{Path: Computer, Parties: []Party{{Who: "user:b", Person: true}}}, nil},
		{"bots are not persons", Limits{PerPerson: 1},
			[]Request{{Path: Queue, Parties: []Party{{Who: "bot:x"}, {Who: "bot:y"}}}},
			Request{Path: Queue, Parties: []Party{{Who: "bot:x"}, {Who: "bot:z"}}}, nil},
		{"guests of one address", Limits{GuestsPerAddr: 1},
			[]Request{{Path: Computer, Parties: []Party{guest(1, "10.0.0.1")}}},
			Request{Path: Computer, Parties: []Party{guest(2, "10.0.0.1")}}, ErrTooMany},
		{"accounts of one address are not guests", Limits{GuestsPerAddr: 1},
			[]Request{{Path: Computer, Parties: []Party{guest(1, "10.0.0.1")}}},
			Request{Path: Computer, Parties: []Party{{Who: "user:a", Addr: "10.0.0.1", Person: true}}}, nil},
		{"a tournament's pairing is the tournament's", Limits{GuestsPerAddr: 1},
			[]Request{{Path: Computer, Parties: []Party{guest(1, "10.0.0.1")}}},
			Request{Path: Tournament, Parties: []Party{guest(2, "10.0.0.1")}}, nil},
		{"starts of an address", Limits{StartsPerMinute: 1, StartsBurst: 2},
			[]Request{{Path: Computer, Parties: []Party{{Who: "user:a", Addr: "h", Person: true}}}, {Path: Computer, Parties: []Party{{Who: "user:b", Addr: "h", Person: true}}}},
			Request{Path: Rematch, Parties: []Party{{Who: "user:c", Addr: "h", Person: true}}}, ErrTooFast},
		{"work of one identity", Limits{WorkPerIdentity: time.Hour},
			[]Request{{Path: Computer, Parties: []Party{{Who: "user:a", Person: true}}, Work: 50 * time.Minute}},
			Request{Path: Computer, Parties: []Party{{Who: "user:a", Person: true}}, Work: 20 * time.Minute}, ErrOverBudget},
		{"work of the server", Limits{WorkTotal: time.Hour},
			[]Request{{Path: Computer, Parties: []Party{{Who: "user:a", Person: true}}, Work: 50 * time.Minute}},
			Request{Path: Computer, Parties: []Party{{Who: "user:b", Person: true}}, Work: 20 * time.Minute}, ErrOverBudget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := New(tc.lim)
			for i, r := range tc.before {
				if _, err := g.Admit(r); err != nil {
					t.Fatalf("before %d: %v", i, err)
				}
			}
			tk, err := g.Admit(tc.req)
			if !errors.Is(err, tc.want) || (err == nil) != (tk != nil) {
				t.Fatalf("Admit: %v, want %v", err, tc.want)
			}
			if err != nil {
				t.Logf("refused: %v", err)
			}
		})
	}
}

// TestReleaseGivesBack checks every count a ticket took is given back
// once, however often Release is called.
func TestReleaseGivesBack(t *testing.T) {
	g := New(Limits{MaxGames: 1, PerPerson: 1, GuestsPerAddr: 1, WorkTotal: time.Minute})
	req := Request{Path: Computer, Parties: []Party{guest(1, "h")}, Work: time.Minute}
	tk, err := g.Admit(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Admit(req); err == nil {
		t.Fatal("a second game admitted")
	}
	tk.Release()
	tk.Release()
	if st := g.Stats(); st.Live != 0 || st.Work != 0 {
		t.Fatalf("after release: %+v", st)
	}
	if _, err := g.Admit(req); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// TestLeftGamesMakeRoom: an address at its cap for guests' games ends the
// oldest game whose guest has left to admit a newcomer, never one whose
// guest is there, nor one too young to tell.
func TestLeftGamesMakeRoom(t *testing.T) {
	now := time.Unix(1000, 0)
	g := New(Limits{GuestsPerAddr: 2, LeftAfter: 10 * time.Second})
	g.now = func() time.Time { return now }
	var left [3]atomic.Bool
	var ended [3]atomic.Bool
	done := make(chan int, 3)
	var tickets [3]*Ticket
	for i := range 2 {
		tk, err := g.Admit(Request{Path: Computer, Parties: []Party{guest(i, "school")}})
		if err != nil {
			t.Fatal(err)
		}
		tk.Watch(left[i].Load, func() { ended[i].Store(true); done <- i })
		tickets[i] = tk
	}
	if _, err := g.Admit(Request{Path: Computer, Parties: []Party{guest(9, "school")}}); !errors.Is(err, ErrTooMany) {
		t.Fatalf("nobody left: %v", err)
	}
	left[1].Store(true)
	if _, err := g.Admit(Request{Path: Computer, Parties: []Party{guest(9, "school")}}); !errors.Is(err, ErrTooMany) {
		t.Fatalf("left too lately to tell: %v", err)
	}
	now = now.Add(11 * time.Second)
	if _, err := g.Admit(Request{Path: Computer, Parties: []Party{guest(9, "school")}}); err != nil {
		t.Fatalf("a left game should make room: %v", err)
	}
	if i := <-done; i != 1 || ended[0].Load() {
		t.Fatalf("ended game %d (want 1, the one left)", i)
	}
	tickets[1].Release() // the game's own end: counted once only
	if n := g.Live(); n != 2 {
		t.Fatalf("live %d, want 2", n)
	}
}

func TestCharge(t *testing.T) {
	g := New(Limits{WorkPerIdentity: time.Hour, WorkTotal: 2 * time.Hour})
	free, err := g.Charge("user:a", 50*time.Minute, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Charge("user:a", 20*time.Minute, false); !errors.Is(err, ErrOverBudget) {
		t.Fatalf("over a's budget: %v", err)
	}
	if _, err := g.Charge("user:a", 20*time.Minute, true); err != nil {
		t.Fatalf("forced: %v", err)
	}
	free()
	free()
	if w := g.Stats().Work; w != 20*time.Minute {
		t.Fatalf("work %v after giving back 50m of 70m", w)
	}
}

// TestTooFastEndsNothing: a start refused for its address's rate ends no
// left game to make room for it.
func TestTooFastEndsNothing(t *testing.T) {
	now := time.Unix(1000, 0)
	g := New(Limits{GuestsPerAddr: 1, StartsPerMinute: 1, StartsBurst: 1, LeftAfter: 10 * time.Second})
	g.now = func() time.Time { return now }
	tk, err := g.Admit(Request{Path: Computer, Parties: []Party{guest(1, "h")}})
	if err != nil {
		t.Fatal(err)
	}
	var ended atomic.Bool
	tk.Watch(func() bool { return true }, func() { ended.Store(true) })
	now = now.Add(11 * time.Second)
	if _, err := g.Admit(Request{Path: Computer, Parties: []Party{guest(2, "h")}}); !errors.Is(err, ErrTooFast) {
		t.Fatalf("a second start within the minute: %v", err)
	}
	time.Sleep(10 * time.Millisecond)
	if ended.Load() || g.Live() != 1 {
		t.Fatal("a start refused as too fast ended a left game")
	}
}

package bots

import (
	"context"
	"errors"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/server/core"
	"kalah/server/gate"
	"kalah/server/round"
)

// fakeHost is a server with no live games that records the games asked
// for and the refusals counted; what a test does not use it leaves nil.
type fakeHost struct {
	Host
	started [][2]*Entry
	refused []string
}

func (h *fakeHost) Context() context.Context       { return context.Background() }
func (h *fakeHost) Seated(key string) *round.Round { return nil }
func (h *fakeHost) Refused(reason string)          { h.refused = append(h.refused, reason) }

func (h *fakeHost) Start(r kalah.Rules, es [2]*Entry, path gate.Path) error {
	h.started = append(h.started, es)
	return nil
}

func entry(key string, rules *kalah.Rules) *Entry {
	return &Entry{seat: &round.Seat{St: store.Seat{Name: key}}, key: key, rules: rules, result: make(chan error, 1)}
}

// TestQueuePairsAndCloses: the queue pairs an entry with the first that
// waits with rules it accepts, the one who waited first; one identity
// waits once; once closed it fails those waiting and takes no more.
func TestQueuePairsAndCloses(t *testing.T) {
	h := &fakeHost{}
	b := New(Config{Rules: kalah.Standard()}, h)
	small := kalah.Standard()
	small.Seeds = 3
	std := kalah.Standard()
	a, c := entry("a", &small), entry("c", &std)
	for _, e := range []*Entry{a, c} {
		if err := b.enqueue(e); err != nil {
			t.Fatalf("enqueue %s: %v", e.key, err)
		}
	}
	if err := b.enqueue(entry("a", nil)); !errors.Is(err, core.ErrBusy) {
		t.Fatalf("a second entry of a: %v, want ErrBusy", err)
	}
	if len(h.started) != 0 || len(b.Queued()) != 2 {
		t.Fatalf("entries of other rules paired: %d games, %d waiting", len(h.started), len(b.Queued()))
	}
	d := entry("d", &std)
	if err := b.enqueue(d); err != nil {
		t.Fatal(err)
	}
	if len(h.started) != 1 || h.started[0] != [2]*Entry{c, d} {
		t.Fatalf("games %v, want c against d", h.started)
	}
	if q := b.Queued(); len(q) != 1 || q[0] != a {
		t.Fatalf("waiting %v, want a", q)
	}
	b.Close()
	if err := <-a.result; !errors.Is(err, core.ErrClosed) {
		t.Fatalf("a waiting at the close heard %v, want ErrClosed", err)
	}
	if err := b.enqueue(entry("e", nil)); !errors.Is(err, core.ErrClosed) || len(b.Queued()) != 0 {
		t.Fatalf("enqueue after the close: %v, %d waiting", err, len(b.Queued()))
	}
}

// TestChallengesBounded: a bot may have MaxChallenges open at once, the
// next refused and counted; a challenge is taken only by the bot it is
// for, and a connection that ends takes its challenges with it.
func TestChallengesBounded(t *testing.T) {
	h := &fakeHost{}
	b := New(Config{MaxChallenges: 2}, h)
	from, to, other := &Conn{}, &Conn{}, &Conn{}
	var open []*challenge
	for range 2 {
		ch := &challenge{from: from, to: to, at: time.Now()}
		if why := b.openChallenge(ch, ""); why != "" {
			t.Fatalf("challenge refused: %s", why)
		}
		open = append(open, ch)
	}
	if why := b.openChallenge(&challenge{from: from, to: to, at: time.Now()}, ""); why == "" || len(h.refused) != 1 {
		t.Fatalf("a third challenge taken (%q), refusals %v", why, h.refused)
	}
	if b.chals.take(open[0].id, other) != nil {
		t.Fatal("a challenge taken by a bot it is not for")
	}
	if b.chals.take(open[0].id, to) != open[0] || b.chals.take(open[0].id, to) != nil {
		t.Fatal("a challenge not taken once by its bot")
	}
	b.chals.forget(to)
	if b.chals.take(open[1].id, to) != nil {
		t.Fatal("a challenge outlived its bot's connection")
	}
}

// TestHouseWaitEndsWithTheWait: an entry that waits alone has a house
// game arranged (HouseBotAfter); once it leaves the queue, paired, taken
// out or at the queue's close, that is called off, so that the entry, and
// the game it went to, are not held until the wait would have ended.
func TestHouseWaitEndsWithTheWait(t *testing.T) {
	h := &fakeHost{}
	b := New(Config{Rules: kalah.Standard(), HouseBotAfter: time.Hour}, h)
	kgp := func(key string) *Entry {
		e := entry(key, nil)
		e.seat.St.Kind = "kgp"
		return e
	}
	a, c, d, e := kgp("a"), kgp("c"), kgp("d"), kgp("e")
	for _, step := range []struct {
		name    string
		do      func()
		waiting *Entry // has a house game arranged
		gone    []*Entry
	}{
		{"a waits alone", func() { b.enqueue(a) }, a, nil},
		{"c pairs with a", func() { b.enqueue(c) }, nil, []*Entry{a, c}},
		{"d waits alone", func() { b.enqueue(d) }, d, nil},
		{"d taken out", func() { b.queue.remove(d) }, nil, []*Entry{d}},
		{"e waits alone", func() { b.enqueue(e) }, e, nil},
		{"the queue closes", func() { b.Close() }, nil, []*Entry{e}},
	} {
		step.do()
		if step.waiting != nil && step.waiting.house == nil {
			t.Errorf("%s: no house game arranged for %s", step.name, step.waiting.key)
		}
		for _, g := range step.gone {
			if g.house != nil {
				t.Errorf("%s: %s's house game still arranged", step.name, g.key)
			}
		}
	}
	if len(h.started) != 1 || h.started[0] != [2]*Entry{a, c} {
		t.Fatalf("games %v, want a against c", h.started)
	}
}

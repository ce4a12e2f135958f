package lobby

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/server/core"
	"kalah/server/gate"
)

// fakeHost is a Host that knows people by the X-Who header, rates them
// by the X-Rating header's value kept per name, starts every game it is
// asked to and fails the test if the lobby calls it with its lock held.
type fakeHost struct {
	t *testing.T
	l *Lobby

	mu      sync.Mutex
	ratings map[string]int
	started []Pairing
}

func (h *fakeHost) unlocked(what string) {
	if !h.l.mu.TryLock() {
		h.t.Errorf("%s called with the lobby's lock held", what)
		return
	}
	h.l.mu.Unlock()
}

func (h *fakeHost) Actor(w http.ResponseWriter, r *http.Request, create bool) (core.Actor, error) {
	h.unlocked("Actor")
	name := r.Header.Get("X-Who")
	if name == "" {
		return core.Actor{}, nil
	}
	return core.Actor{ID: identity.Of(identity.Person, name), Addr: core.HostOf(r)}, nil
}

func (h *fakeHost) Rating(ctx context.Context, who identity.ID, rules kalah.Rules, clockMS, incrementMS int64) Rating {
	h.unlocked("Rating")
	h.mu.Lock()
	defer h.mu.Unlock()
	if r, ok := h.ratings[who.Name]; ok {
		return Rating{Rating: r}
	}
	return Rating{Rating: 1500, Provisional: true}
}

func (h *fakeHost) Start(ctx context.Context, p Pairing) (Started, error) {
	h.unlocked("Start")
	h.mu.Lock()
	defer h.mu.Unlock()
	h.started = append(h.started, p)
	return Started{ID: int64(len(h.started)), Tokens: [2]string{"south-token", "north-token"}}, nil
}

func (h *fakeHost) Refused(reason string) { h.unlocked("Refused") }

func newFake(t *testing.T, ratings map[string]int) (*Lobby, *fakeHost) {
	h := &fakeHost{t: t, ratings: ratings}
	h.l = New(h, Config{Rules: kalah.Standard(), Done: t.Context().Done()})
	return h.l, h
}

// call makes a request of handler as who, with id as the route's {id},
// and decodes a 2xx answer into out.
func call(t *testing.T, handler http.HandlerFunc, who string, id int64, body string, out any) int {
	t.Helper()
	r := httptest.NewRequest("POST", "/api/seeks", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Who", who)
	r.SetPathValue("id", strconv.FormatInt(id, 10))
	w := httptest.NewRecorder()
	handler(w, r)
	if w.Code/100 == 2 && out != nil {
		if err := json.Unmarshal(w.Body.Bytes(), out); err != nil {
			t.Fatalf("%s: %v", w.Body, err)
		}
	}
	return w.Code
}

// TestPartnerNearestThenOldest: a seek's partner is the open equal offer
// of someone else, each within the other's range, the nearest in rating,
// then the oldest.
func TestPartnerNearestThenOldest(t *testing.T) {
	offer := func(id int64, who string, rating float64, rng int, rated bool) *entry {
		return &entry{Seek: Seek{ID: id, ByID: identity.Of(identity.Person, who), Rules: kalah.Standard(), ClockMS: 60000, Rated: rated, Range: rng}, rating: rating, done: make(chan struct{})}
	}
	e := offer(100, "ann", 1500, 0, true)
	all := map[int64]*entry{e.ID: e}
	for _, o := range []*entry{
		offer(1, "bob", 1600, 0, true),
		offer(2, "carl", 1400, 0, true),
		offer(3, "dora", 1450, 10, true), // ann is outside her range
		offer(4, "ann", 1500, 0, true),   // ann's own
		offer(5, "eve", 1500, 0, false),  // another offer: casual
		offer(6, "fay", 1500, 0, true),   // gone
	} {
		all[o.ID] = o
	}
	all[6].gone = true
	if p := partner(e, all); p == nil || p.ID != 1 {
		t.Fatalf("partner %+v, want bob's (as near as carl's, older)", p)
	}
	all[1].Game = 7 // paired meanwhile
	if p := partner(e, all); p == nil || p.ID != 2 {
		t.Fatalf("partner %+v, want carl's", p)
	}
	all[8] = offer(8, "gil", 1490, 0, true)
	if p := partner(e, all); p == nil || p.ID != 8 {
		t.Fatalf("partner %+v, want gil's, the nearest", p)
	}
	e.Range = 5
	if p := partner(e, all); p != nil {
		t.Fatalf("partner %+v outside ann's ±5", p)
	}
}

// TestQuickPairing: a seek is paired at once, by the quick path, with an
// equal offer waiting that fits, and only then; a person's new seek
// replaces their open one; the host is never called with the lobby's
// lock held.
func TestQuickPairing(t *testing.T) {
	l, h := newFake(t, map[string]int{"ann": 1620, "bob": 1600, "carl": 1650, "dora": 1580, "eve": 1585})
	seek := func(who, body string) Seek {
		var sk Seek
		if code := call(t, l.Create, who, 0, body, &sk); code != http.StatusCreated {
			t.Fatalf("%s's seek: %d", who, code)
		}
		return sk
	}
	bob := seek("bob", `{"clock_ms":60000,"rated":true,"range":20}`)
	carl := seek("carl", `{"clock_ms":60000,"rated":true,"range":20}`)
	dora := seek("dora", `{"clock_ms":60000,"rated":true,"range":10}`)
	seek("ann", `{"clock_ms":60000}`) // another offer: casual
	if bob.Game != 0 || carl.Game != 0 || dora.Game != 0 || len(h.started) != 0 {
		t.Fatalf("paired out of range: %+v %+v %+v", bob, carl, dora)
	}
	// Ann (1620) is in bob's ±20 only.
	ann := seek("ann", `{"clock_ms":60000,"rated":true}`)
	if ann.Game != 1 || len(h.started) != 1 {
		t.Fatalf("ann's seek %+v, games %+v", ann, h.started)
	}
	if p := h.started[0]; !(p.Seats[0].Name == "ann" && p.Seats[1].Name == "bob" || p.Seats[0].Name == "bob" && p.Seats[1].Name == "ann") || p.Path != gate.Quick || !p.Rated {
		t.Fatalf("paired %+v, want ann and bob quickly, rated", p)
	}
	// Eve (1585) is in dora's ±10, not carl's ±20.
	eve := seek("eve", `{"clock_ms":60000,"rated":true}`)
	if p := h.started[len(h.started)-1]; eve.Game != 2 || !(p.Seats[0].Name == "dora" || p.Seats[1].Name == "dora") {
		t.Fatalf("eve's seek %+v paired %+v, want with dora", eve, p)
	}
	var open []Seek
	r := httptest.NewRequest("GET", "/api/seeks", nil)
	w := httptest.NewRecorder()
	l.List(w, r)
	if err := json.Unmarshal(w.Body.Bytes(), &open); err != nil || len(open) != 1 || open[0].ID != carl.ID || open[0].Rating == nil || open[0].Rating.Rating != 1650 {
		t.Fatalf("open seeks %s (%v), want carl's alone with his rating", w.Body, err)
	}
}

// TestAcceptAndCancel: a seek accepted from the list starts its game by
// the seek path and answers the accepter's token; its seeker cannot
// cancel it then, nor anyone accept it again; one's own seek cannot be
// accepted, another's not cancelled.
func TestAcceptAndCancel(t *testing.T) {
	l, h := newFake(t, nil)
	var sk Seek
	call(t, l.Create, "ann", 0, `{"clock_ms":60000}`, &sk)
	if code := call(t, l.Accept, "ann", sk.ID, `{}`, nil); code/100 == 2 {
		t.Fatalf("ann accepted her own seek: %d", code)
	}
	if code := call(t, l.Cancel, "bob", sk.ID, `{}`, nil); code/100 == 2 {
		t.Fatalf("bob cancelled ann's seek: %d", code)
	}
	var st struct {
		ID     int64     `json:"id"`
		Tokens [2]string `json:"tokens"`
	}
	if code := call(t, l.Accept, "bob", sk.ID, `{}`, &st); code != http.StatusCreated || st.ID != 1 || st.Tokens[0] == st.Tokens[1] {
		t.Fatalf("bob's accept: %d %+v", code, st)
	}
	if p := h.started[0]; p.Path != gate.Seek || p.Rated {
		t.Fatalf("started %+v", p)
	}
	if code := call(t, l.Accept, "carl", sk.ID, `{}`, nil); code/100 == 2 {
		t.Fatalf("carl accepted a paired seek: %d", code)
	}
	if code := call(t, l.Cancel, "ann", sk.ID, `{}`, nil); code/100 == 2 {
		t.Fatalf("ann cancelled a paired seek: %d", code)
	}
	var mine Seek
	if code := call(t, l.State, "ann", sk.ID, ``, &mine); code != http.StatusOK || mine.Game != 1 || mine.Token == "" {
		t.Fatalf("ann's paired seek: %d %+v", code, mine)
	}
}

// TestSeekGoesAfterTheGrace: a seek no stream follows goes after the
// grace.
func TestSeekGoesAfterTheGrace(t *testing.T) {
	l, _ := newFake(t, nil)
	l.SetGrace(50 * time.Millisecond)
	var sk Seek
	call(t, l.Create, "ann", 0, `{"clock_ms":60000}`, &sk)
	if code := call(t, l.State, "ann", sk.ID, ``, nil); code != http.StatusOK {
		t.Fatalf("a new seek: %d", code)
	}
	time.Sleep(60 * time.Millisecond)
	if code := call(t, l.State, "ann", sk.ID, ``, nil); code/100 == 2 {
		t.Fatalf("a seek past its grace: %d", code)
	}
}

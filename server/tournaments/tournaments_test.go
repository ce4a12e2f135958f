package tournaments

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
	_ "kalah/heuristic"
	"kalah/internal/httpapi"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
	"kalah/tournament"
)

// fakeHost is a server that plays every game by a fake executor, which
// holds each game until release is closed and then plays it here, giving
// a reason.
type fakeHost struct {
	release chan struct{}
	refuse  error // Charge's refusal, if set

	mu      sync.Mutex
	charged time.Duration // work charged and not given back
	payers  []string
	entered []string // bots MayEnter was asked about
}

func (h *fakeHost) Executor(wait time.Duration, log *slog.Logger, onStart func(job tournament.Job, game int64)) tournament.Executor {
	return fakeExec{h, onStart}
}

func (h *fakeHost) Startable(spec string, admin bool) error {
	if spec == "first" || spec == "greedy" || spec == "random" {
		return nil
	}
	return core.ErrBadRequest
}

func (h *fakeHost) MayEnter(ctx context.Context, org Organizer, name string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entered = append(h.entered, name)
	if org.Admin || name == "alice" {
		return nil
	}
	return core.ErrForbidden
}

func (h *fakeHost) BotName(spec string) (string, bool, error) {
	name, ok := strings.CutPrefix(spec, botPrefix)
	if ok && name == "" {
		return "", false, errors.New("a bot without a name")
	}
	return name, ok, nil
}

func (h *fakeHost) WaitingBots() []string { return []string{"alice", "bob"} }

// GameWork costs a second a program in each game.
func (h *fakeHost) GameWork(r kalah.Rules, specs ...string) time.Duration {
	var w time.Duration
	for _, s := range specs {
		if s != "" {
			w += time.Second
		}
	}
	return w
}

func (h *fakeHost) Charge(payer string, work time.Duration, force bool) (func(), error) {
	if h.refuse != nil && !force {
		return nil, h.refuse
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.charged += work
	h.payers = append(h.payers, payer)
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			h.charged -= work
			h.mu.Unlock()
		})
	}, nil
}

func (h *fakeHost) outstanding() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.charged
}

func (h *fakeHost) Trusted(r *http.Request) bool { return r.Header.Get("X-Signed-In") != "" }

func (h *fakeHost) SessionUser(r *http.Request) string { return r.Header.Get("X-Signed-In") }

func (h *fakeHost) Actor(w http.ResponseWriter, r *http.Request) core.Actor { return core.Actor{} }

type fakeExec struct {
	h       *fakeHost
	onStart func(job tournament.Job, game int64)
}

func (x fakeExec) Execute(ctx context.Context, jobs []tournament.Job, commit func([]tournament.Result) error) error {
	for _, j := range jobs {
		x.onStart(j, 1000+j.Game.ID)
		select {
		case <-x.h.release:
		case <-ctx.Done():
			return ctx.Err()
		}
		r, err := tournament.Play(ctx, j, "fake")
		if err != nil {
			return err
		}
		r.Reason = "played by the fake"
		if err := commit([]tournament.Result{r}); err != nil {
			return err
		}
	}
	return nil
}

// fakePeople is one people's tournament, p1.
type fakePeople struct{ created time.Time }

func (p fakePeople) IsID(id string) bool { return strings.HasPrefix(id, "p") }

func (p fakePeople) Create(ctx context.Context, creator identity.ID, req NewPeople) (string, error) {
	return "p1", nil
}

func (p fakePeople) State(ctx context.Context, id string, viewer identity.ID) (any, error) {
	if id != "p1" {
		return nil, ErrNoTournament
	}
	return map[string]any{"id": id, "people": true}, nil
}

func (p fakePeople) Enter(ctx context.Context, id string, a core.Actor, org Organizer, bot string, withdraw bool) error {
	return nil
}

func (p fakePeople) List(ctx context.Context) ([]State, error) {
	return []State{{ID: "p1", Name: "Arena", People: true, Status: "waiting", Created: p.created}}, nil
}

func (p fakePeople) Resume(ctx context.Context) error { return nil }

func newTours(t *testing.T, max int) (*Tournaments, *fakeHost, context.CancelFunc) {
	t.Helper()
	st, err := store.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &fakeHost{release: make(chan struct{})}
	errs := httpapi.NewErrors().Map(http.StatusBadRequest, core.ErrBadRequest).Map(http.StatusUnauthorized, core.ErrSignIn).
		Map(http.StatusNotFound, ErrNoTournament).Map(http.StatusMethodNotAllowed, core.ErrMethod)
	tours, err := New(ctx, Config{Host: h, People: fakePeople{created: time.Now().Add(time.Hour)}, Store: st, Errors: errs, Max: max})
	if err != nil {
		t.Fatal(err)
	}
	if err := tours.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		tours.Wait()
		st.Close()
	})
	return tours, h, cancel
}

var small = kalah.Rules{Houses: 3, Seeds: 2}

// TestCreateChargesRunsAndGivesBack: a tournament is charged its games'
// work up front, by its organizer; while it runs, its games carry their
// server games' ids and no more tournaments than the most start (charging
// nothing); once it ends its charge is given back and its results are in.
func TestCreateChargesRunsAndGivesBack(t *testing.T) {
	tours, h, _ := newTours(t, 1)
	ctx := context.Background()
	id, err := tours.Create(ctx, Organizer{Account: "ann"}, NewTournament{Rules: small, Players: []string{"first", "greedy"}})
	if err != nil {
		t.Fatal(err)
	}
	// A round robin of two players, once on each side: two games of two
	// programs, two seconds each.
	if got := h.outstanding(); got != 4*time.Second {
		t.Fatalf("charged %v, want 4s", got)
	}
	if want := identity.Of(identity.Person, "ann").Key(); len(h.payers) != 1 || h.payers[0] != want {
		t.Fatalf("payers %q, want [%s]", h.payers, want)
	}
	waitState(t, tours, id, func(s State) bool { return s.Running && len(s.Games) == 2 && s.Games[0].Game != "" })
	if _, err := tours.Create(ctx, Organizer{Account: "ann"}, NewTournament{Rules: small, Players: []string{"first", "random"}}); !errors.Is(err, core.ErrBusy) {
		t.Fatalf("a second tournament over the most: %v, want ErrBusy", err)
	}
	if got := h.outstanding(); got != 4*time.Second {
		t.Fatalf("charged %v after a refused tournament, want 4s", got)
	}
	close(h.release)
	st := waitState(t, tours, id, func(s State) bool { return !s.Running && s.Played == s.Total })
	if st.Total != 2 || st.Error != "" {
		t.Fatalf("finished: %+v", st)
	}
	for _, g := range st.Games {
		if !g.Done || g.Result == kalah.Ongoing || g.Reason != "played by the fake" || !strings.HasPrefix(g.Game, "100") {
			t.Fatalf("game %+v", g)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for h.outstanding() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("charge %v not given back", h.outstanding())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCreateRefuses: what the server would not start, bots nobody let in,
// a refusal of the gate and a stopping server are refused, and nothing is
// stored for them.
func TestCreateRefuses(t *testing.T) {
	tours, h, cancel := newTours(t, 2)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		org  Organizer
		req  NewTournament
		want error
	}{
		{"unstartable", Organizer{}, NewTournament{Rules: small, Players: []string{"first", "exec:true"}}, core.ErrBadRequest},
		{"human", Organizer{}, NewTournament{Rules: small, Players: []string{"first", "human"}}, core.ErrBadRequest},
		{"a bot twice", Organizer{Admin: true}, NewTournament{Rules: small, Players: []string{"bot:alice", "bot:alice"}}, core.ErrBadRequest},
		{"someone else's bot", Organizer{Account: "ann"}, NewTournament{Rules: small, Players: []string{"bot:carol", "first"}}, core.ErrForbidden},
		{"sprt", Organizer{}, NewTournament{Format: "sprt", Rules: small, Players: []string{"first", "greedy"}}, core.ErrBadRequest},
		{"clock", Organizer{}, NewTournament{Rules: small, Players: []string{"first", "greedy"}, DelayMillis: -1}, core.ErrBadRequest},
	} {
		if _, err := tours.Create(ctx, tc.org, tc.req); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if len(h.entered) != 1 || h.entered[0] != "carol" {
		t.Errorf("MayEnter asked about %q, want [carol]", h.entered)
	}
	h.refuse = core.ErrTooMany
	_, err := tours.Create(ctx, Organizer{Account: "ann"}, NewTournament{Rules: small, Players: []string{"first", "greedy"}})
	if !errors.Is(err, core.ErrTooMany) || !strings.Contains(err.Error(), "a tournament of 2 games") {
		t.Errorf("refused by the gate: %v", err)
	}
	h.refuse = nil
	list, err := tours.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != "p1" {
		t.Fatalf("list after refusals: %+v, %v (want the people's tournament alone)", list, err)
	}
	cancel()
	if _, err := tours.Create(ctx, Organizer{Admin: true}, NewTournament{Rules: small, Players: []string{"first", "greedy"}}); !errors.Is(err, core.ErrClosed) {
		t.Errorf("stopping: %v, want ErrClosed", err)
	}
}

// TestRoutes: the API lists both kinds of tournaments, newest first,
// wants a signed-in person to start one, and answers other methods and
// paths as every error of the API.
func TestRoutes(t *testing.T) {
	tours, _, _ := newTours(t, 2)
	do := func(method, path, body string, header ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		tours.ServeHTTP(w, r)
		return w
	}
	req := `{"rules":{"houses":3,"seeds":2},"players":["first","greedy"]}`
	if w := do("POST", "/api/tournaments", req); w.Code != http.StatusUnauthorized {
		t.Fatalf("POST signed out: %d %s", w.Code, w.Body)
	}
	w := do("POST", "/api/tournaments", req, "X-Signed-In", "ann")
	if w.Code != http.StatusCreated {
		t.Fatalf("POST: %d %s", w.Code, w.Body)
	}
	w = do("GET", "/api/tournaments", "")
	var list []State
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil || w.Code != http.StatusOK {
		t.Fatalf("GET: %d %s", w.Code, w.Body)
	}
	if len(list) != 2 || list[0].ID != "p1" || !list[0].People || list[1].People {
		t.Fatalf("list %+v, want the people's (newer) then the server's", list)
	}
	if w := do("POST", "/api/tournaments/"+list[1].ID+"/join", `{}`); w.Code != http.StatusBadRequest {
		t.Errorf("join a server's tournament: %d %s", w.Code, w.Body)
	}
	if w := do("GET", "/api/tournaments/p1", ""); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"people":true`) {
		t.Errorf("GET p1: %d %s", w.Code, w.Body)
	}
	if w := do("DELETE", "/api/tournaments", ""); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, POST" {
		t.Errorf("DELETE: %d, Allow %q", w.Code, w.Header().Get("Allow"))
	}
	for _, path := range []string{"/api/tournaments/99", "/api/tournaments/x/y/z"} {
		if w := do("GET", path, ""); w.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d %s", path, w.Code, w.Body)
		}
	}
}

func waitState(t *testing.T, tours *Tournaments, id string, ok func(State) bool) State {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := tours.State(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("tournament %s: %+v", id, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

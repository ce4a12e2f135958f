package arena

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server/core"
)

// fakeHost starts no game: every bot it is asked for is away, as if it
// never came to play.
type fakeHost struct {
	mu    sync.Mutex
	specs []GameSpec
}

func (h *fakeHost) StartGame(ctx context.Context, spec GameSpec) (LiveGame, [2]bool, error) {
	h.mu.Lock()
	h.specs = append(h.specs, spec)
	h.mu.Unlock()
	missing := [2]bool{spec.IDs[0].Kind == identity.Bot, spec.IDs[1].Kind == identity.Bot}
	if missing[0] || missing[1] {
		return nil, missing, ErrNotFree
	}
	return nil, missing, core.ErrBusy
}
func (h *fakeHost) Live(id int64) LiveGame              { return nil }
func (h *fakeHost) BotFree(key string) bool             { return false }
func (h *fakeHost) WaitingBots() []string               { return nil }
func (h *fakeHost) BotName(name string) (string, error) { return name, nil }
func (h *fakeHost) Refused(reason string)               {}

// TestSwissBotAway runs a one-round Swiss of a person and a bot through
// the Host alone: the bot is never free, so it loses the game that never
// started, and the person wins the tournament; the game asked for is the
// tournament's, under its clock, rated as it is.
func TestSwissBotAway(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "kalah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var runs sync.WaitGroup
	defer func() { cancel(); runs.Wait() }()
	host := &fakeHost{}
	p := NewTours(Config{Host: host, Store: st, Rules: kalah.Standard(), Context: ctx, Go: func(f func()) bool {
		runs.Add(1)
		go func() { defer runs.Done(); f() }()
		return true
	}})
	alice, bot := identity.Of(identity.Person, "alice"), identity.Of(identity.Bot, "b")
	id, err := p.Create(ctx, alice, New{Format: FormatSwiss, Rounds: 1, ClockMS: 60000, IncrementMS: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Join(ctx, id, core.Actor{ID: bot}, Organizer{}, ""); err != nil {
		t.Fatal(err)
	}
	var s State
	for deadline := time.Now().Add(10 * time.Second); s.Status != store.TourFinished; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not finished: %+v", s)
		}
		if s, err = p.State(ctx, id, identity.ID{}); err != nil {
			t.Fatal(err)
		}
	}
	if !s.WinnerID.Is(alice) || len(s.Games) != 1 {
		t.Fatalf("winner %v, games %+v", s.WinnerID, s.Games)
	}
	want := map[bool]string{true: "1-0", false: "0-1"}[s.Games[0].SouthID.Is(alice)]
	if g := s.Games[0]; !g.Done || !g.Counted || g.Result != want || g.Game != "" || g.Note == "" {
		t.Errorf("the game the bot missed: %+v", g)
	}
	if len(s.Standings) != 2 || s.Standings[0].Points != 2 || s.Standings[1].Losses != 1 {
		t.Errorf("standings %+v", s.Standings)
	}
	host.mu.Lock()
	defer host.mu.Unlock()
	if len(host.specs) != 1 {
		t.Fatalf("games asked for: %+v", host.specs)
	}
	g := host.specs[0]
	if g.Clock != time.Minute || g.Increment != time.Second || !g.Rated || g.Tags[core.PeopleTournamentTag] != id || g.Tags["Round"] != "1" {
		t.Errorf("game asked for: %+v", g)
	}
	if _, err := p.State(ctx, "p999", identity.ID{}); !errors.Is(err, ErrNoTournament) {
		t.Errorf("a tournament not there: %v", err)
	}
}

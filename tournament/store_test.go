package tournament

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kalah"
	_ "kalah/heuristic"
	"kalah/player"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	st, err := Open(filepath.Join(t.TempDir(), "sub", "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

var fast = []string{"random", "first", "greedy", "pekar"}

func TestScheduleRoundRobin(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		games    int
		perPair  int
		openings int // distinct openings per pairing and round
	}{
		{"plain", Config{Players: fast, Rounds: 2}, 6 * 2 * 2, 4, 1},
		{"forced", Config{Players: fast, Openings: Forced}, 6 * 12, 12, 6},
		{"paired", Config{Players: fast, Openings: Paired, OpeningPlies: 3, Rounds: 3}, 6 * 2 * 3, 6, 1},
		{"gauntlet", Config{Players: fast, Format: Gauntlet, Rounds: 2}, 3 * 2 * 2, 4, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Players = append([]string(nil), cfg.Players...)
			if err := cfg.Normalize(); err != nil {
				t.Fatal(err)
			}
			gs := fullSchedule(cfg)
			if len(gs) != tt.games {
				t.Fatalf("%d games, want %d", len(gs), tt.games)
			}
			type pair struct{ a, b int }
			asSouth := map[pair]int{}
			keys := map[[3]int]bool{}
			for _, g := range gs {
				asSouth[pair{g.South, g.North}]++
				k := [3]int{g.Round, g.Pairing, g.Leg}
				if keys[k] {
					t.Errorf("duplicate key %v", k)
				}
				keys[k] = true
				if cfg.Openings == Paired && len(g.Opening) != 3 {
					t.Errorf("opening %v, want 3 plies", g.Opening)
				}
			}
			for p, n := range asSouth {
				if other := asSouth[pair{p.b, p.a}]; n != other || n+other != tt.perPair {
					t.Errorf("pair %v: %d games as South, %d as North, want %d in all, equal", p, n, other, tt.perPair)
				}
			}
		})
	}
}

func TestCommitOnce(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	id, err := st.Create(ctx, Config{Players: []string{"random", "first"}})
	if err != nil {
		t.Fatal(err)
	}
	pending, err := st.Pending(ctx, id)
	if err != nil || len(pending) != 2 {
		t.Fatalf("pending %v, %v", pending, err)
	}
	in, _ := st.Tournament(ctx, id)
	job := jobFor(id, in.Config, pending[0])
	r, err := Play(ctx, job, "test")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, false} {
		counted, err := st.Commit(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if counted != want {
			t.Errorf("commit %d counted %v, want %v", i+1, counted, want)
		}
	}
	var moves int
	st.DB().QueryRow(`SELECT count(*) FROM tournament_moves WHERE game_id = ?`, r.GameID).Scan(&moves)
	if moves != len(r.Record.Moves) || moves == 0 {
		t.Errorf("%d moves stored, record has %d", moves, len(r.Record.Moves))
	}
	if pending, _ = st.Pending(ctx, id); len(pending) != 1 {
		t.Errorf("%d pending after one result, want 1", len(pending))
	}
	rec, err := st.Record(ctx, r.GameID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Game(); err != nil {
		t.Errorf("stored record does not replay: %v", err)
	}
}

func TestCheckResultRejects(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Players: []string{"random", "greedy"}, Openings: Forced}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	g := fullSchedule(cfg)[3]
	r, err := Play(ctx, jobFor(1, cfg, g), "w")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkResult(cfg, g, r); err != nil {
		t.Fatalf("honest result rejected: %v", err)
	}
	bad := r
	bad.SouthSeeds++
	if err := checkResult(cfg, g, bad); !errors.Is(err, ErrBadResult) {
		t.Errorf("wrong seeds: %v", err)
	}
	bad = r
	bad.Record.Players.South = "pekar"
	if err := checkResult(cfg, g, bad); !errors.Is(err, ErrBadResult) {
		t.Errorf("wrong player: %v", err)
	}
	other := fullSchedule(cfg)[0] // a different opening
	if err := checkResult(cfg, other, r); !errors.Is(err, ErrBadResult) {
		t.Errorf("wrong opening accepted: %v", err)
	}
}

func TestRunFormats(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		cfg   Config
		games int
	}{
		{"roundrobin", Config{Players: fast, Openings: Forced}, 72},
		{"swiss", Config{Players: append(fast, "pekar-tree:1"), Format: Swiss, Rounds: 3}, 3 * 2 * 2},
		{"sprt", Config{Players: []string{"pekar", "random"}, Format: SPRT, SPRT: SPRTConfig{Elo1: 100, Batch: 4}}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "swiss" {
				if _, _, err := player.Lookup("pekar-tree:1"); err != nil {
					t.Skip("pekar-tree not registered here")
				}
			}
			st := openTemp(t)
			id, err := st.Create(ctx, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var calls int
			if err := st.Run(ctx, id, RunOptions{Executor: Local{Workers: 2}, Progress: func(Progress) { calls++ }}); err != nil {
				t.Fatal(err)
			}
			in, err := st.Tournament(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if in.Status != StatusFinished || in.Played != in.Games {
				t.Errorf("status %s, %d of %d played", in.Status, in.Played, in.Games)
			}
			if tt.games >= 0 && in.Games != tt.games {
				t.Errorf("%d games, want %d", in.Games, tt.games)
			}
			if calls != in.Played {
				t.Errorf("progress called %d times for %d games", calls, in.Played)
			}
			rep, err := st.Report(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range Formats {
				var b []byte
				w := &sliceWriter{&b}
				if err := rep.Write(w, f); err != nil || len(b) == 0 {
					t.Errorf("format %s: %v, %d bytes", f, err, len(b))
				}
			}
			if tt.cfg.Format == SPRT {
				if rep.SPRT == nil || rep.SPRT.Verdict != AcceptH1 {
					t.Errorf("pekar v random SPRT: %+v", rep.SPRT)
				}
			}
			if tt.cfg.Format == Swiss {
				byes, _ := st.byes(ctx, id)
				if len(byes) != 3 {
					t.Errorf("%d byes for 5 players over 3 rounds, want 3", len(byes))
				}
				sched, _ := st.Schedule(ctx, id)
				met := map[[2]int]map[int]bool{}
				for _, g := range sched {
					k := pairKey(g.South, g.North)
					if met[k] == nil {
						met[k] = map[int]bool{}
					}
					met[k][g.Round] = true
				}
				for k, rounds := range met {
					if len(rounds) > 1 {
						t.Errorf("pair %v met in rounds %v", k, rounds)
					}
				}
				seen := map[int]bool{}
				for _, e := range byes {
					if seen[e] {
						t.Errorf("entrant %d had two byes", e)
					}
					seen[e] = true
				}
			}
			// Running a finished tournament again plays nothing.
			if err := st.Run(ctx, id, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			again, _ := st.Tournament(ctx, id)
			if again.Played != in.Played {
				t.Errorf("rerun played %d more", again.Played-in.Played)
			}
		})
	}
}

type sliceWriter struct{ b *[]byte }

func (w *sliceWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

func TestCreateRejects(t *testing.T) {
	st := openTemp(t)
	for _, cfg := range []Config{
		{Players: []string{"random"}},
		{Players: []string{"random", "no-such-player"}},
		{Players: []string{"random", "first", "greedy"}, Format: SPRT},
		{Players: []string{"random", "first"}, Rules: kalah.Rules{Houses: 99, Seeds: 4}},
	} {
		if _, err := st.Create(context.Background(), cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", cfg, err)
		}
	}
}

// crashy is a player that fails in every way a bot can: it panics when
// built for some games, panics in Move in others, returns an error, or
// plays an illegal move.
type crashy struct{ mode uint64 }

func (c crashy) Move(ctx context.Context, g *kalah.Game, _ player.Clock) (kalah.Move, error) {
	switch c.mode {
	case 1:
		panic("crashy player")
	case 2:
		return kalah.NoMove, player.ErrCrashed
	}
	return kalah.Move(99), nil
}

func init() {
	player.Register(player.Info{Name: "crashy-test", Usage: "crashy-test", Summary: "test player that always fails",
		New: func(s player.Spec, o player.Options) (player.Player, error) {
			if o.Seed%4 == 0 {
				panic("crashy constructor")
			}
			return crashy{o.Seed % 4}, nil
		}})
}

// TestCrashingPlayer checks that a player that crashes in every way loses
// only its own games, by forfeit, and the tournament goes on.
func TestCrashingPlayer(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	id, err := st.Create(ctx, Config{Players: []string{"random", "crashy-test", "greedy"}, Openings: Forced})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Run(ctx, id, RunOptions{Executor: Local{Workers: 2}}); err != nil {
		t.Fatal(err)
	}
	games, err := st.Games(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != 36 {
		t.Fatalf("%d games, want 36", len(games))
	}
	forfeits := 0
	reasons := map[string]bool{}
	for _, g := range games {
		for _, r := range []string{"panic starting", "panic: crashy player", "player crashed", "illegal move"} {
			if strings.Contains(g.Reason, r) {
				reasons[r] = true
			}
		}
		if g.South != 1 && g.North != 1 {
			if g.Termination != "normal" {
				t.Errorf("game %d without the crashing player ended %s", g.ID, g.Termination)
			}
			continue
		}
		forfeits++
		if g.Termination == "normal" || g.Reason == "" {
			t.Errorf("game %d with the crashing player ended %s (%q)", g.ID, g.Termination, g.Reason)
		}
	}
	table, _ := st.Standings(ctx, id)
	last := table[len(table)-1]
	if last.Entrant != 1 || last.Points != 0 || last.Losses != 24 {
		t.Errorf("crashing player's line %+v", last)
	}
	if len(reasons) != 4 {
		t.Errorf("failures seen: %v, want all four kinds", reasons)
	}
	if forfeits != 24 {
		t.Errorf("%d games with the crashing player, want 24", forfeits)
	}
}

func TestPlayUnknownPlayer(t *testing.T) {
	cfg := Config{Players: []string{"random", "first"}}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	job := jobFor(1, cfg, fullSchedule(cfg)[0])
	job.North = "not-on-this-worker"
	if _, err := Play(context.Background(), job, "w"); !errors.Is(err, ErrCannotPlay) {
		t.Errorf("unknown player: %v, want ErrCannotPlay", err)
	}
}

func TestRunTwice(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := openTemp(t)
	id, err := st.Create(ctx, Config{Players: fast, Clock: Clock{Delay: 5 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- st.Run(ctx, id, RunOptions{Executor: Local{Workers: 1}, Progress: func(p Progress) {
			if p.Done == 1 {
				close(started)
			}
		}})
	}()
	<-started
	if err := st.Run(ctx, id, RunOptions{}); !errors.Is(err, ErrRunning) {
		t.Errorf("second Run: %v, want ErrRunning", err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Run: %v", err)
	}
	in, _ := st.Tournament(context.Background(), id)
	if in.Status != StatusStopped || in.Played == 0 || in.Played == in.Games {
		t.Errorf("after cancel: %s with %d of %d games", in.Status, in.Played, in.Games)
	}
	// Resumed, it finishes.
	if err := st.Run(context.Background(), id, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	in, _ = st.Tournament(context.Background(), id)
	if in.Status != StatusFinished || in.Played != in.Games {
		t.Errorf("after resume: %s with %d of %d games", in.Status, in.Played, in.Games)
	}
}

// TestReproducible plays the same tournament of random players twice, on
// one worker and on four, and checks every game came out the same: each
// game's randomness comes from its place in the schedule, not from the
// order games are played in.
func TestReproducible(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	cfg := func() Config {
		return Config{Players: []string{"random", "random", "greedy"}, Openings: Paired, Rounds: 3, Seed: 42}
	}
	var runs [2][]Played
	for i, workers := range []int{1, 4} {
		id, err := st.Create(ctx, cfg())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Run(ctx, id, RunOptions{Executor: Local{Workers: workers}}); err != nil {
			t.Fatal(err)
		}
		if runs[i], err = st.Games(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if len(runs[0]) != 18 || len(runs[0]) != len(runs[1]) {
		t.Fatalf("%d and %d games", len(runs[0]), len(runs[1]))
	}
	for i := range runs[0] {
		a, b := runs[0][i], runs[1][i]
		if a.Round != b.Round || a.Leg != b.Leg || a.SouthSeeds != b.SouthSeeds || a.NorthSeeds != b.NorthSeeds || kalah.MovesText(a.Opening) != kalah.MovesText(b.Opening) {
			t.Errorf("game %d differs: %+v and %+v", i, a, b)
		}
	}
	// A different seed gives different games.
	c := cfg()
	c.Seed = 43
	id, err := st.Create(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Run(ctx, id, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	other, _ := st.Games(ctx, id)
	same := 0
	for i := range other {
		if other[i].SouthSeeds == runs[0][i].SouthSeeds && kalah.MovesText(other[i].Opening) == kalah.MovesText(runs[0][i].Opening) {
			same++
		}
	}
	if same == len(other) {
		t.Error("seed 43 played exactly the games of seed 42")
	}
}

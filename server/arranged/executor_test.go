package arranged

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"kalah"
	"kalah/match"
	"kalah/server/client"
	"kalah/server/core"
	"kalah/tournament"
)

// fakeArranged plays every game instantly after a pause, with each mover
// sowing its first legal house, and checks that no bot plays two games at
// once.
type fakeArranged struct {
	t       *testing.T
	pause   time.Duration
	fail    func(n int) error // n counts calls from 1; nil error: play
	mu      sync.Mutex
	calls   int
	playing map[string]bool
	running int
	most    int // games in flight at once, at most
	games   []Arranged
}

func (f *fakeArranged) PlayArranged(ctx context.Context, a Arranged) (ArrangedResult, error) {
	f.mu.Lock()
	f.calls++
	n := f.calls
	f.mu.Unlock()
	if f.fail != nil {
		if err := f.fail(n); err != nil {
			return ArrangedResult{}, err
		}
	}
	bots := TournamentBots(tournament.Job{South: a.South, North: a.North})
	f.mu.Lock()
	for _, b := range bots {
		if b == "" {
			continue
		}
		if f.playing[b] {
			f.t.Errorf("bot %s in two games at once", b)
		}
		f.playing[b] = true
	}
	f.running++
	f.most = max(f.most, f.running)
	f.games = append(f.games, a)
	f.mu.Unlock()
	var err error
	select {
	case <-time.After(f.pause):
	case <-ctx.Done():
		err = ctx.Err()
	}
	f.mu.Lock()
	f.running--
	for _, b := range bots {
		delete(f.playing, b)
	}
	f.mu.Unlock()
	if err != nil {
		return ArrangedResult{}, err
	}
	r := a.Rules
	g, err := kalah.NewGame(r)
	if err != nil {
		return ArrangedResult{}, err
	}
	for _, m := range a.Opening {
		g.Play(m)
	}
	for !g.Over() {
		g.Play(g.Legal()[0])
	}
	if a.OnStart != nil {
		a.OnStart(int64(n))
	}
	rec := g.Record()
	rec.Players = kalah.Players{South: a.South, North: a.North}
	return ArrangedResult{ID: int64(n), Record: rec}, nil
}

// recordingExec is an executor for the jobs without bots: it records them and
// fails if told to.
type recordingExec struct {
	mu   sync.Mutex
	jobs []tournament.Job
	err  error
}

func (r *recordingExec) Execute(ctx context.Context, jobs []tournament.Job, commit func([]tournament.Result) error) error {
	r.mu.Lock()
	r.jobs = append(r.jobs, jobs...)
	r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	for _, j := range jobs {
		if err := commit([]tournament.Result{{GameID: j.Game.ID, Worker: "here"}}); err != nil {
			return err
		}
	}
	return nil
}

func tjobs(pairs ...string) []tournament.Job {
	var out []tournament.Job
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, tournament.Job{Tournament: 3, Game: tournament.Scheduled{ID: int64(i/2 + 1), Round: 1, Seed: uint64(40 + i)},
			South: pairs[i], North: pairs[i+1], Rules: kalah.Rules{Houses: 3, Seeds: 2}, Name: "t"})
	}
	return out
}

func TestTournamentExecutorSplitsAndKeepsBotsToOneGame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeArranged{t: t, pause: time.Second, playing: map[string]bool{}}
		rest := &recordingExec{}
		x := &TournamentExecutor{Server: f, Rest: rest}
		js := tjobs("bot:alice", "bot:bob", "bot:alice", "greedy", "bot:carol", "first", "random", "first", "bot:bob", "bot:carol", "greedy", "bot:bob")
		var got []tournament.Result
		var mu sync.Mutex
		inCommit := false
		err := x.Execute(t.Context(), js, func(rs []tournament.Result) error {
			mu.Lock()
			if inCommit {
				t.Error("commit called from two goroutines at once")
			}
			inCommit = true
			mu.Unlock()
			time.Sleep(time.Millisecond)
			got = append(got, rs...)
			mu.Lock()
			inCommit = false
			mu.Unlock()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(js) {
			t.Fatalf("%d results for %d jobs", len(got), len(js))
		}
		if len(rest.jobs) != 1 || rest.jobs[0].South != "random" {
			t.Errorf("played here: %+v", rest.jobs)
		}
		if len(f.games) != 5 || f.most != 2 {
			t.Errorf("%d games on the server, at most %d bots at once (want 5 games, two at a time)", len(f.games), f.most)
		}
		for _, r := range got {
			j := js[r.GameID-1]
			if !HasBot(j) {
				continue
			}
			kg, err := r.Record.Game()
			if err != nil || r.Worker != "server" || r.Tournament != 3 || r.Record.Players.South != j.South {
				t.Errorf("result %+v: %v", r, err)
				continue
			}
			if s, n := kg.Score(); s != r.SouthSeeds || n != r.NorthSeeds {
				t.Errorf("game %d seeds %d-%d, record %d-%d", r.GameID, r.SouthSeeds, r.NorthSeeds, s, n)
			}
		}
		i := slices.IndexFunc(f.games, func(a Arranged) bool { return a.South == "bot:alice" && a.North == "bot:bob" })
		a := f.games[i]
		if a.Seeds != [2]uint64{match.GameSeed(40, 0, 0), match.GameSeed(40, 0, 1)} || a.Tags["Tournament"] != "3" || a.Tags["Game"] != "1" || a.Tags["Event"] != "t" {
			t.Errorf("arranged %+v", a)
		}
	})
}

func TestTournamentExecutorRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A full server is asked again until it has room.
		f := &fakeArranged{t: t, playing: map[string]bool{}, fail: func(n int) error {
			if n <= 3 {
				return fmt.Errorf("%w: full", core.ErrBusy)
			}
			return nil
		}}
		start := time.Now()
		var started int64
		r, err := (&TournamentExecutor{Server: f, Worker: "w", OnStart: func(_ tournament.Job, id int64) { started = id }}).Play(t.Context(), tjobs("bot:alice", "greedy")[0])
		if err != nil || r.Worker != "w" || started != 4 || time.Since(start) != 3*time.Second {
			t.Fatalf("%+v %v after %v, started %d", r, err, time.Since(start), started)
		}
		// A server that cannot be reached is tried for a while, then not.
		f = &fakeArranged{t: t, fail: func(int) error { return fmt.Errorf("%w: refused", client.ErrUnavailable) }}
		start = time.Now()
		_, err = (&TournamentExecutor{Server: f, Unavailable: time.Minute}).Play(t.Context(), tjobs("bot:alice", "greedy")[0])
		if !errors.Is(err, client.ErrUnavailable) || time.Since(start) < time.Minute || time.Since(start) > 2*time.Minute {
			t.Fatalf("%v after %v", err, time.Since(start))
		}
		// Anything else is returned at once.
		f = &fakeArranged{t: t, fail: func(int) error { return fmt.Errorf("%w: exec", core.ErrForbidden) }}
		if _, err := (&TournamentExecutor{Server: f}).Play(t.Context(), tjobs("bot:alice", "exec:x")[0]); !errors.Is(err, core.ErrForbidden) || f.calls != 1 {
			t.Fatalf("%v after %d calls", err, f.calls)
		}
		// Ending ctx ends the wait for room.
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		f = &fakeArranged{t: t, fail: func(int) error { return core.ErrBusy }}
		if _, err := (&TournamentExecutor{Server: f}).Play(ctx, tjobs("bot:alice", "greedy")[0]); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatal(err)
		}
	})
}

func TestTournamentExecutorStopsAtAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeArranged{t: t, pause: time.Second, playing: map[string]bool{}, fail: func(n int) error {
			if n == 2 {
				return core.ErrForbidden
			}
			return nil
		}}
		x := &TournamentExecutor{Server: f, Rest: &recordingExec{}}
		var got []int64
		err := x.Execute(t.Context(), tjobs("bot:a", "greedy", "bot:b", "exec:x", "bot:a", "first", "bot:c", "first"), func(rs []tournament.Result) error {
			for _, r := range rs {
				got = append(got, r.GameID)
			}
			return nil
		})
		if !errors.Is(err, core.ErrForbidden) || strings.Contains(err.Error(), "canceled") {
			t.Fatalf("err %v", err)
		}
		if slices.Contains(got, 2) {
			t.Errorf("results %v", got)
		}
		// The other executor's failure stops the server's games too.
		rest := &recordingExec{err: errors.New("nats down")}
		x = &TournamentExecutor{Server: &fakeArranged{t: t, pause: time.Hour, playing: map[string]bool{}}, Rest: rest}
		err = x.Execute(t.Context(), tjobs("bot:a", "greedy", "random", "first"), func([]tournament.Result) error { return nil })
		if err != rest.err {
			t.Fatalf("err %v", err)
		}
	})
}

// TestTournamentExecutorAllOnServer: without Rest every job is played on
// the server, games without bots too, Parallel at a time.
func TestTournamentExecutorAllOnServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, parallel := range []int{1, 2} {
			f := &fakeArranged{t: t, pause: time.Second, playing: map[string]bool{}}
			x := &TournamentExecutor{Server: f, Parallel: parallel}
			js := tjobs("greedy", "first", "first", "greedy", "random", "bot:a", "bot:b", "random")
			n := 0
			if err := x.Execute(t.Context(), js, func(rs []tournament.Result) error { n += len(rs); return nil }); err != nil {
				t.Fatal(err)
			}
			if n != len(js) || len(f.games) != len(js) || f.most != parallel {
				t.Errorf("parallel %d: %d results, %d games on the server, at most %d at once", parallel, n, len(f.games), f.most)
			}
		}
	})
}

// TestTournamentExecutorUnlimitedClock: a job without a limit a move or a
// budget takes the Unlimited clock (the server's, for its tournaments);
// a job with a clock of its own keeps it.
func TestTournamentExecutorUnlimitedClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeArranged{t: t, playing: map[string]bool{}}
		x := &TournamentExecutor{Server: f, Unlimited: &tournament.Clock{PerMove: 10 * time.Second, Increment: time.Second}}
		js := tjobs("greedy", "first", "first", "greedy")
		js[0].Clock.Delay = 5 * time.Millisecond
		js[1].Clock = tournament.Clock{Budget: time.Minute}
		if err := x.Execute(t.Context(), js, func([]tournament.Result) error { return nil }); err != nil {
			t.Fatal(err)
		}
		for _, a := range f.games {
			switch a.Tags["Game"] {
			case "1":
				if a.PerMove != 10*time.Second || a.Increment != time.Second || a.Budget != 0 || a.Delay != 5*time.Millisecond {
					t.Errorf("a job without a clock played with %+v", a)
				}
			case "2":
				if a.PerMove != 0 || a.Budget != time.Minute || a.Increment != 0 {
					t.Errorf("a job with a budget played with %+v", a)
				}
			}
		}
		if len(f.games) != 2 {
			t.Errorf("%d games", len(f.games))
		}
	})
}

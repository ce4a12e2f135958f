package arranged

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"kalah/match"
	"kalah/server/client"
	"kalah/server/core"
	"kalah/tournament"
)

// The games and results of arranged games, and the bots' specs, are
// package client's, which speaks them over HTTP too.
type (
	// Arranged describes one arranged game (client.Arranged).
	Arranged = client.Arranged
	// ArrangedResult is an arranged game finished (client.ArrangedResult).
	ArrangedResult = client.ArrangedResult
)

// ArrangedPlayer plays arranged games: the Server in this process, or a
// Remote one reached over HTTP (kalah tournament --server).
type ArrangedPlayer interface {
	PlayArranged(ctx context.Context, a Arranged) (ArrangedResult, error)
}

// TournamentExecutor is the one way a tournament's games are played on a
// match server: each job is an arranged game (PlayArranged), refereed,
// stored and listed there under the server's limits, and its result comes
// back as the job's. A seat the server refuses (a player over its limits,
// a program it does not run, a bot that does not come) is forfeited there
// and stored with the reason: the game is never played anywhere else. It
// implements tournament.Executor, for tournament.Store.Run.
//
// The tournaments the server runs itself (Tournaments) play every game
// here; kalah tournament --server plays the games with bot:NAME seats on
// the server and hands the rest to Rest. A bot plays one game at a time,
// so no two games sharing a bot are started at once.
type TournamentExecutor struct {
	// Server plays the games.
	Server ArrangedPlayer
	// Rest, if set, plays the jobs without bot:NAME seats; nil: they are
	// played on Server too.
	Rest tournament.Executor
	// Parallel bounds the games played on Server at once; zero: only the
	// bots bound them (and the server, which answers core.ErrBusy when full).
	Parallel int
	// Wait bounds how long a game waits for a bot that is not free; zero
	// means the server's Config.ArrangedWait.
	Wait time.Duration
	// Unlimited, if set, is the clock of a job whose own has neither a
	// limit a move nor a budget: the server's own tournaments take the
	// server's clock, so no game of theirs thinks without end.
	Unlimited *tournament.Clock
	// Worker names the results' worker; "server" when empty.
	Worker string
	// OnStart, if set, is called with a job and its game's id on the
	// server once it starts.
	OnStart func(job tournament.Job, id int64)
	// Retry is the pause before asking a full server again (default 1s).
	Retry time.Duration
	// Unavailable is how long to keep trying a server that cannot be
	// reached (or restarts) before giving up (default 2 minutes; the game,
	// if cut, is played again from the start).
	Unavailable time.Duration
	// Log, if set, notes games started and a server that cannot be
	// reached.
	Log *slog.Logger
}

// TournamentBots returns the names of the bots (bot:NAME) seated in a job,
// "" for a seat that is not one.
func TournamentBots(job tournament.Job) [2]string {
	var out [2]string
	for i, spec := range []string{job.South, job.North} {
		if name, ok, err := client.BotName(spec); ok && err == nil {
			out[i] = name
		}
	}
	return out
}

// HasBot reports whether a job has a bot:NAME seat, so its game must be
// played on a server.
func HasBot(job tournament.Job) bool {
	for _, spec := range []string{job.South, job.North} {
		if _, ok, _ := client.BotName(spec); ok {
			return true
		}
	}
	return false
}

// Execute implements tournament.Executor.
func (x *TournamentExecutor) Execute(ctx context.Context, jobs []tournament.Job, commit func([]tournament.Result) error) error {
	var here, rest []tournament.Job
	for _, j := range jobs {
		if x.Rest == nil || HasBot(j) {
			here = append(here, j)
		} else {
			rest = append(rest, j)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex // commit is called from one goroutine at a time
	locked := func(rs []tournament.Result) error {
		mu.Lock()
		defer mu.Unlock()
		return commit(rs)
	}
	// The first failure stops both sides and is the one returned, not
	// the other side's context.Canceled.
	var once sync.Once
	var first error
	fail := func(err error) {
		if err != nil {
			once.Do(func() { first = err; cancel() })
		}
	}
	restDone := make(chan struct{})
	go func() {
		defer close(restDone)
		if len(rest) > 0 {
			fail(x.Rest.Execute(ctx, rest, locked))
		}
	}()
	fail(x.playAll(ctx, here, locked))
	<-restDone
	return first
}

// playAll plays the jobs on the server, each as soon as none of its bots
// is in another of these games and fewer than Parallel are being played.
func (x *TournamentExecutor) playAll(ctx context.Context, jobs []tournament.Job, commit func([]tournament.Result) error) error {
	if len(jobs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type done struct {
		i   int
		res tournament.Result
		err error
	}
	finished := make(chan done)
	busy := map[string]bool{}
	started := make([]bool, len(jobs))
	running, left := 0, len(jobs)
	var first error
	for left > 0 {
		for i, j := range jobs {
			if first != nil || x.Parallel > 0 && running >= x.Parallel {
				break
			}
			if started[i] {
				continue
			}
			bots := TournamentBots(j)
			if busy[bots[0]] || busy[bots[1]] {
				continue
			}
			for _, b := range bots {
				if b != "" {
					busy[b] = true
				}
			}
			started[i] = true
			running++
			go func() {
				res, err := x.Play(ctx, j)
				finished <- done{i, res, err}
			}()
		}
		if running == 0 {
			break
		}
		d := <-finished
		running--
		left--
		for _, b := range TournamentBots(jobs[d.i]) {
			delete(busy, b)
		}
		if first != nil {
			continue
		}
		if d.err == nil {
			d.err = commit([]tournament.Result{d.res})
		}
		if d.err != nil {
			first = d.err
			cancel()
		}
	}
	return first
}

// Play plays one job's game on the server and returns its result. It
// waits while the server is full (core.ErrBusy) and, for up to Unavailable,
// while a remote server cannot be reached (client.ErrUnavailable); any other
// failure (a malformed job, the store failing, the server stopping) is
// returned and the game, not played, is played again when the tournament
// goes on.
func (x *TournamentExecutor) Play(ctx context.Context, job tournament.Job) (tournament.Result, error) {
	start := time.Now()
	g := job.Game
	tags := map[string]string{"Tournament": strconv.FormatInt(job.Tournament, 10), "Game": strconv.FormatInt(g.ID, 10),
		"Round": strconv.Itoa(g.Round), "Pairing": strconv.Itoa(g.Pairing + 1), "Leg": strconv.Itoa(g.Leg + 1),
		"Seed": strconv.FormatUint(g.Seed, 10)}
	if job.Name != "" {
		tags["Event"] = job.Name
	}
	clock := job.Clock
	if x.Unlimited != nil && clock.PerMove <= 0 && clock.Budget <= 0 {
		u := *x.Unlimited
		clock.PerMove, clock.Budget, clock.Increment = u.PerMove, u.Budget, u.Increment
	}
	a := Arranged{Rules: job.Rules, South: job.South, North: job.North, Opening: g.Opening,
		PerMove: clock.PerMove, Budget: clock.Budget, Increment: clock.Increment, Grace: clock.Grace, Delay: clock.Delay,
		Seeds: [2]uint64{match.GameSeed(g.Seed, 0, 0), match.GameSeed(g.Seed, 0, 1)}, Tags: tags, Wait: x.Wait,
		OnStart: func(id int64) {
			if x.Log != nil {
				x.Log.Info("tournament game started on the server", "tournament", job.Tournament, "game", g.ID, "server_game", id, "south", job.South, "north", job.North)
			}
			if x.OnStart != nil {
				x.OnStart(job, id)
			}
		}}
	worker := x.Worker
	if worker == "" {
		worker = "server"
	}
	retry := x.Retry
	if retry <= 0 {
		retry = time.Second
	}
	patience := x.Unavailable
	if patience <= 0 {
		patience = 2 * time.Minute
	}
	var down time.Time // when the server was first found unavailable
	pause := retry
	for {
		res, err := x.Server.PlayArranged(ctx, a)
		if err == nil {
			return tournamentResult(job, res, worker, start)
		}
		switch {
		case ctx.Err() != nil:
			return tournament.Result{}, ctx.Err()
		case errors.Is(err, core.ErrBusy):
			down, pause = time.Time{}, retry
		case errors.Is(err, client.ErrUnavailable):
			if down.IsZero() {
				down = time.Now()
				if x.Log != nil {
					x.Log.Warn("match server unavailable: trying again", "game", g.ID, "for", patience, "err", err)
				}
			}
			if time.Since(down) > patience {
				return tournament.Result{}, fmt.Errorf("game %d: %w", g.ID, err)
			}
			pause = min(2*pause, 15*time.Second)
		default:
			return tournament.Result{}, fmt.Errorf("game %d: %w", g.ID, err)
		}
		select {
		case <-ctx.Done():
			return tournament.Result{}, ctx.Err()
		case <-time.After(pause):
		}
	}
}

// tournamentResult turns a game played on the server into its job's
// result.
func tournamentResult(job tournament.Job, res ArrangedResult, worker string, start time.Time) (tournament.Result, error) {
	g := job.Game
	kg, err := res.Record.Game()
	if err != nil {
		return tournament.Result{}, fmt.Errorf("game %d (server game %d): %w", g.ID, res.ID, err)
	}
	s, n := kg.Score()
	if kg.Swapped() {
		s, n = n, s
	}
	return tournament.Result{GameID: g.ID, Tournament: job.Tournament, SouthSeeds: s, NorthSeeds: n, Record: res.Record,
		Reason: res.Reason, Worker: worker, Millis: time.Since(start).Milliseconds()}, nil
}

// Package botexec plays the tournament games of bots connected to a match
// server (bot:NAME players, see docs/PROTOCOL.md "Tournament games") on
// that server: each such job becomes a server.Arranged game, refereed and
// stored there, and its result comes back as a tournament.Result. The
// server is either the one in this process (*server.Server: kalah serve's
// own tournaments) or one reached over HTTP (*server.Remote: kalah
// tournament --server). Executor splits a tournament's jobs between the
// server and another executor for the games without bots.
package botexec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"kalah/match"
	"kalah/server"
	"kalah/tournament"
)

// Server plays games with the bots connected to a match server:
// *server.Server and *server.Remote are ones.
type Server interface {
	// PlayArranged plays one game with bot:NAME seats and returns it over.
	PlayArranged(ctx context.Context, a server.Arranged) (server.ArrangedResult, error)
	// WaitingBots names the bots that take tournament games.
	WaitingBots() []string
}

// Bots returns the names of the bots (bot:NAME) seated in a job, "" for a
// seat that is not one.
func Bots(job tournament.Job) [2]string {
	var out [2]string
	for i, spec := range []string{job.South, job.North} {
		if name, ok, err := server.BotName(spec); ok && err == nil {
			out[i] = name
		}
	}
	return out
}

// OnServer reports whether a job has a bot:NAME seat, so its game must be
// played on a server.
func OnServer(job tournament.Job) bool {
	for _, spec := range []string{job.South, job.North} {
		if _, ok, _ := server.BotName(spec); ok {
			return true
		}
	}
	return false
}

// Options tune Play.
type Options struct {
	// Wait bounds how long a game waits for a bot that is not free; zero
	// means the server's default.
	Wait time.Duration
	// Worker is reported as the worker of each game.
	Worker string
	// OnStart, if set, is called with the server's game id once it starts.
	OnStart func(id int64)
	// Retry is the pause before asking a full server again (default 1s).
	Retry time.Duration
	// Unavailable is how long to keep trying a server that cannot be
	// reached (or restarts) before giving up (default 2 minutes; the
	// game, if cut, is played again from the start).
	Unavailable time.Duration
	// Log, if set, notes when the server cannot be reached and games
	// started there.
	Log *slog.Logger
}

// Play plays a job's game on srv and returns its result. It waits while
// the server is full (server.ErrBusy) and, for up to o.Unavailable, while
// it cannot be reached (server.ErrUnavailable); any other failure (a
// malformed job, a player the server refuses) is returned, and the game
// must then be played again.
func Play(ctx context.Context, srv Server, job tournament.Job, o Options) (tournament.Result, error) {
	start := time.Now()
	g := job.Game
	tags := map[string]string{"Tournament": strconv.FormatInt(job.Tournament, 10), "Game": strconv.FormatInt(g.ID, 10),
		"Round": strconv.Itoa(g.Round), "Pairing": strconv.Itoa(g.Pairing + 1), "Leg": strconv.Itoa(g.Leg + 1),
		"Seed": strconv.FormatUint(g.Seed, 10)}
	if job.Name != "" {
		tags["Event"] = job.Name
	}
	a := server.Arranged{Rules: job.Rules, South: job.South, North: job.North, Opening: g.Opening,
		PerMove: job.Clock.PerMove, Budget: job.Clock.Budget, Increment: job.Clock.Increment, Grace: job.Clock.Grace, Delay: job.Clock.Delay,
		Seeds: [2]uint64{match.GameSeed(g.Seed, 0, 0), match.GameSeed(g.Seed, 0, 1)}, Tags: tags, Wait: o.Wait, OnStart: o.OnStart}
	retry := o.Retry
	if retry <= 0 {
		retry = time.Second
	}
	patience := o.Unavailable
	if patience <= 0 {
		patience = 2 * time.Minute
	}
	var down time.Time // when the server was first found unavailable
	pause := retry
	for {
		res, err := srv.PlayArranged(ctx, a)
		if err == nil {
			return result(job, res, o.Worker, start)
		}
		switch {
		case ctx.Err() != nil:
			return tournament.Result{}, ctx.Err()
		case errors.Is(err, server.ErrBusy):
			down, pause = time.Time{}, retry
		case errors.Is(err, server.ErrUnavailable) || errors.Is(err, server.ErrClosed):
			if down.IsZero() {
				down = time.Now()
				if o.Log != nil {
					o.Log.Warn("match server unavailable: trying again", "game", g.ID, "for", patience, "err", err)
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

// result turns a game played on the server into the job's result.
func result(job tournament.Job, res server.ArrangedResult, worker string, start time.Time) (tournament.Result, error) {
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

// Executor plays a tournament's jobs with bot:NAME seats on Server and
// hands the others to Rest. A bot plays one game at a time, so it never
// starts two games sharing a bot at once: games with different bots are
// played on the server side by side.
type Executor struct {
	Server Server
	// Rest plays the jobs without bots; nil means tournament.Local.
	Rest tournament.Executor
	// Options for each game on the server; Worker defaults to "server".
	Options Options
}

// Execute implements tournament.Executor.
func (x *Executor) Execute(ctx context.Context, jobs []tournament.Job, commit func([]tournament.Result) error) error {
	var onServer, rest []tournament.Job
	for _, j := range jobs {
		if OnServer(j) {
			onServer = append(onServer, j)
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
		if len(rest) == 0 {
			return
		}
		exec := x.Rest
		if exec == nil {
			exec = tournament.Local{}
		}
		fail(exec.Execute(ctx, rest, locked))
	}()
	fail(x.playOnServer(ctx, onServer, locked))
	<-restDone
	return first
}

// playOnServer plays the jobs on the server, each as soon as none of its
// bots is in another of these games.
func (x *Executor) playOnServer(ctx context.Context, jobs []tournament.Job, commit func([]tournament.Result) error) error {
	if len(jobs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	o := x.Options
	if o.Worker == "" {
		o.Worker = "server"
	}
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
		if first == nil {
			for i, j := range jobs {
				if started[i] {
					continue
				}
				bots := Bots(j)
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
				jo := o
				if o.Log != nil {
					jo.OnStart = func(id int64) {
						o.Log.Info("game started on the server", "game", j.Game.ID, "server_game", id, "south", j.South, "north", j.North)
						if o.OnStart != nil {
							o.OnStart(id)
						}
					}
				}
				go func() {
					res, err := Play(ctx, x.Server, j, jo)
					finished <- done{i, res, err}
				}()
			}
		}
		if running == 0 {
			break
		}
		d := <-finished
		running--
		left--
		for _, b := range Bots(jobs[d.i]) {
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

package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"kalah"
	"kalah/server/arena"
	"kalah/server/tournaments"
	"kalah/tournament"
)

// The tournaments the server runs itself are package tournaments'; this
// file is the server's side of them: the names the rest of package server
// and its users know them by, and tourHost, through which they play their
// games here, ask who a request comes from and reach the people's
// tournaments (arena.go) beside them.

// The tournaments' types, as package server has always named them.
type (
	NewTournament   = tournaments.NewTournament
	Standing        = tournaments.Standing
	Pairing         = tournaments.Pairing
	TournamentState = tournaments.State
	Organizer       = tournaments.Organizer
)

// OrganizerServer is the tournament.Config.Organizer of the tournaments
// the server runs itself, which it resumes after a restart.
const OrganizerServer = tournaments.OrganizerServer

// ErrNoTournament is returned for a tournament id that is not there.
var ErrNoTournament = tournaments.ErrNoTournament

// Tournaments are the tournaments the server runs itself (package
// tournaments: their state, their runs and their part of the API, all
// promoted from it), with the people's tournaments beside them, which
// run under the same context and among the same goroutines.
type Tournaments struct {
	*tournaments.Tournaments
	srv *Server
	ctx context.Context
	log *slog.Logger

	// people runs the people's tournaments (arena.go): arenas and Swiss
	// that people and bots join.
	people *peopleTours
}

// TournamentOptions configure StartTournaments.
type TournamentOptions struct {
	// DataDir, if set, is the data directory whose tournaments.db (where
	// an older release kept its tournaments) is moved into the server's
	// store once.
	DataDir string
	// Wait bounds how long a tournament game waits for a bot that is not
	// free; zero means Config.ArrangedWait.
	Wait time.Duration
	// Max bounds the tournaments running at once (default 8).
	Max int
	// RoundPause is the pause between the rounds of a people's Swiss, for
	// its players to see the standings (default 10s; negative: none).
	RoundPause time.Duration
}

// defaultRoundPause is TournamentOptions.RoundPause's default.
const defaultRoundPause = 10 * time.Second

// StartTournaments returns the server's tournaments, kept in its store
// (moving in those an older release kept in o.DataDir's tournaments.db),
// and goes on with those it was running when it last stopped. They run
// until ctx ends; Wait waits for them to stop.
func (s *Server) StartTournaments(ctx context.Context, o TournamentOptions) (*Tournaments, error) {
	t := &Tournaments{srv: s, ctx: ctx, log: s.log}
	switch {
	case o.RoundPause == 0:
		o.RoundPause = defaultRoundPause
	case o.RoundPause < 0:
		o.RoundPause = 0
	}
	t.people = newPeopleTours(t, o.RoundPause)
	mod, err := tournaments.New(ctx, tournaments.Config{Host: tourHost{t}, People: arena.People{T: t.people.Tours}, Store: s.st,
		Errors: s.errs, Log: s.log, AdminToken: s.cfg.AdminToken, DataDir: o.DataDir, Wait: o.Wait, Max: o.Max})
	if err != nil {
		return nil, err
	}
	t.Tournaments = mod
	if err := mod.Start(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// mayEnter reports whether org may enter bot name in a tournament or an
// arranged game (tournaments.MayEnter).
func (s *Server) mayEnter(ctx context.Context, org Organizer, name string) error {
	return tournaments.MayEnter(ctx, s.st, s.WaitingBots, org, name)
}

// tourHost is the server as the tournaments' Host.
type tourHost struct{ t *Tournaments }

func (h tourHost) Executor(wait time.Duration, log *slog.Logger, onStart func(job tournament.Job, game int64)) tournament.Executor {
	c := h.t.srv.cfg
	return &TournamentExecutor{Server: h.t.srv, Parallel: 1, Wait: wait, Log: log,
		Unlimited: &tournament.Clock{PerMove: c.PerMove, Budget: c.Budget, Increment: c.Increment}, OnStart: onStart}
}

func (h tourHost) Startable(spec string, admin bool) error {
	return tournaments.Startable(spec, admin, h.t.srv.cfg.AllowExec, h.t.srv.limits())
}

func (h tourHost) MayEnter(ctx context.Context, org Organizer, name string) error {
	return h.t.srv.mayEnter(ctx, org, name)
}

func (h tourHost) BotName(spec string) (string, bool, error) { return BotName(spec) }

func (h tourHost) WaitingBots() []string { return h.t.srv.WaitingBots() }

func (h tourHost) GameWork(r kalah.Rules, specs ...string) time.Duration {
	return h.t.srv.gameWork(r, specs...)
}

func (h tourHost) Charge(payer string, work time.Duration, force bool) (func(), error) {
	free, err := h.t.srv.gate.Charge(payer, work, force)
	if err != nil {
		h.t.srv.refused("gate")
		return nil, gateError(err)
	}
	return free, nil
}

func (h tourHost) Trusted(r *http.Request) bool { return h.t.srv.Trusted(r) }

func (h tourHost) SessionUser(r *http.Request) string { return h.t.srv.sessionUser(r) }

func (h tourHost) Actor(w http.ResponseWriter, r *http.Request) Actor {
	return h.t.srv.actor(w, r, "", false)
}

package tournament

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"kalah"
	"kalah/internal/proc"
	"kalah/match"
	"kalah/player"
	"kalah/referee"
)

// Job is everything needed to play one scheduled game, with no database:
// what a worker, local or on another machine, receives.
type Job struct {
	Tournament int64       `json:"tournament"`
	Game       Scheduled   `json:"game"`
	South      string      `json:"south"` // player specs
	North      string      `json:"north"`
	Rules      kalah.Rules `json:"rules"`
	Clock      Clock       `json:"clock"`
	Name       string      `json:"name,omitempty"` // the tournament's, for the record's tags
	// Logs, if set, is a directory (on the machine that plays the game)
	// for the standard error of players that are programs (exec:, mk:).
	Logs string `json:"logs,omitempty"`
}

// jobFor builds the job of a scheduled game.
func jobFor(id int64, cfg Config, g Scheduled) Job {
	return Job{Tournament: id, Game: g, South: cfg.Players[g.South], North: cfg.Players[g.North],
		Rules: cfg.Rules, Clock: cfg.Clock, Name: cfg.Name, Logs: cfg.Logs}
}

// ErrCannotPlay is returned by Play for a job this process cannot play (a
// player it does not know): another worker should play it.
var ErrCannotPlay = errors.New("cannot play this game here")

// Play plays a job's game through the referee with players built fresh for
// it (and closed after it), so a player that crashes, hangs or is a dead
// process costs only this game: the referee turns its failure into a
// forfeit. It returns an error only if ctx ends first or the job itself is
// malformed; the game is then not played and must be played again.
func Play(ctx context.Context, job Job, worker string) (Result, error) {
	start := time.Now()
	g := job.Game
	res := Result{GameID: g.ID, Tournament: job.Tournament, Worker: worker}
	kg, err := kalah.NewGame(job.Rules)
	if err != nil {
		return res, fmt.Errorf("game %d: %w", g.ID, err)
	}
	kg.Players = [2]string{job.South, job.North}
	kg.Tags = map[string]string{
		"Round": fmt.Sprint(g.Round), "Pairing": fmt.Sprint(g.Pairing + 1), "Leg": fmt.Sprint(g.Leg + 1),
		"Game": fmt.Sprint(g.ID), "Tournament": fmt.Sprint(job.Tournament), "Seed": fmt.Sprint(g.Seed),
	}
	if job.Name != "" {
		kg.Tags["Event"] = job.Name
	}
	for i, m := range g.Opening {
		if kg.Over() {
			break
		}
		if _, err := kg.Play(m); err != nil {
			return res, fmt.Errorf("game %d: opening move %d: %w", g.ID, i+1, err)
		}
	}
	var players [2]player.Player
	var failed error
	failedSeat := -1
	for seat, spec := range kg.Players {
		o := player.Options{Rules: job.Rules, Seed: match.GameSeed(g.Seed, 0, seat)}
		if job.Logs != "" {
			lf := proc.LogFile(filepath.Join(job.Logs, fmt.Sprintf("game-%04d-%s.stderr", g.ID, []string{"south", "north"}[seat])))
			defer lf.Close()
			o.Stderr = lf
		}
		p, err := newPlayer(spec, o)
		if errors.Is(err, player.ErrUnknownPlayer) {
			// This worker's binary lacks the player: not the player's fault.
			return res, fmt.Errorf("%w: game %d: %w", ErrCannotPlay, g.ID, err)
		}
		if err != nil {
			if failedSeat < 0 {
				failed, failedSeat = err, seat
			}
			continue
		}
		players[seat] = p
		if c, ok := p.(io.Closer); ok {
			defer c.Close()
		}
	}
	var out *referee.Outcome
	if failedSeat >= 0 {
		// A player that cannot even start loses the game as a crash.
		if !kg.Over() {
			if err := kg.Forfeit(kg.PlayerSide(failedSeat), kalah.Crash); err != nil {
				return res, err
			}
		}
		out = &referee.Outcome{Game: kg, Reason: failed}
	} else {
		// Programs start with their game, not at their first move.
		for _, p := range players {
			if s, ok := p.(interface{ Start() error }); ok {
				s.Start()
			}
		}
		ref := referee.Referee{PerMove: job.Clock.PerMove, Budget: job.Clock.Budget,
			Increment: job.Clock.Increment, Grace: job.Clock.Grace, Delay: job.Clock.Delay}
		out, err = ref.Play(ctx, kg, players)
		if err != nil {
			return res, fmt.Errorf("game %d: %w", g.ID, err)
		}
	}
	res.Record = out.Record()
	if out.Reason != nil {
		res.Reason = out.Reason.Error()
	}
	s, n := kg.Score()
	if kg.Swapped() {
		s, n = n, s
	}
	res.SouthSeeds, res.NorthSeeds = s, n
	res.Millis = time.Since(start).Milliseconds()
	return res, nil
}

// newPlayer builds a player, turning a panic into a crash so a broken
// player cannot take the worker down with it.
func newPlayer(spec string, o player.Options) (p player.Player, err error) {
	defer func() {
		if v := recover(); v != nil {
			p, err = nil, fmt.Errorf("%w: panic starting %s: %v", player.ErrCrashed, spec, v)
		}
	}()
	return player.New(spec, o)
}

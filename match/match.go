// Package match plays a series of games between two players, both sides in
// turn, through the referee, and sums up the results: wins, points, margins,
// and each player's time and nodes a move. Games may run in parallel; the
// results come back in game order and, for players that do not depend on
// the clock, are the same for the same seed.
package match

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"kalah"
	"kalah/internal/proc"
	"kalah/player"
	"kalah/referee"
)

// Config describes a match.
type Config struct {
	A, B  string // player specs
	Rules kalah.Rules
	// Games is the number of games in all; A plays South in even-numbered
	// games (0, 2, ...) and B in the odd ones.
	Games int
	// Seed fixes the players' random draws: the same seed gives the same
	// games.
	Seed uint64
	// Openings forces the opening of each pair of games (2k, 2k+1): the
	// k-th of kalah.Openings(Rules, OpeningPlies), round again when there
	// are more pairs than openings, so that each opening is played once by
	// each player, as the thesis did (with one ply: house k mod n + 1) to
	// vary games between deterministic players.
	Openings bool
	// OpeningPlies is the length of the forced openings in plies (a move
	// that earns an extra turn is one ply); 0 means 1.
	OpeningPlies int
	openings     [][]kalah.Move // kalah.Openings, listed once by Run
	// Parallel is how many games run at once; zero or one plays them one
	// after another.
	Parallel int
	Referee  referee.Referee
	// Logs, if set, is a directory for the standard error of players that
	// are programs (exec:, mk:): game-NNN-A.stderr and game-NNN-B.stderr,
	// made when a program first writes to it.
	Logs string
}

// Game is one finished game of a match.
type Game struct {
	Index   int
	ASouth  bool         // A started as South
	Opening []kalah.Move // the forced opening, or nil
	Outcome *referee.Outcome
}

// Record returns the game as a record with the players' specs and the
// match seed in its tags.
func (g *Game) Record(seed uint64) kalah.Record {
	rec := g.Outcome.Record()
	if rec.Tags == nil {
		rec.Tags = map[string]string{}
	}
	rec.Tags["Game"] = fmt.Sprint(g.Index + 1)
	rec.Tags["Seed"] = fmt.Sprint(seed)
	if g.Outcome.Reason != nil {
		rec.Tags["Reason"] = g.Outcome.Reason.Error()
	}
	if len(g.Opening) > 0 {
		rec.Tags["Opening"] = kalah.MovesText(g.Opening)
	}
	return rec
}

// AScore returns A's and B's final stores.
func (g *Game) AScore() (a, b int) {
	s, n := g.Outcome.Game.Score()
	if g.ASouth != g.Outcome.Game.Swapped() {
		return s, n
	}
	return n, s
}

// ASide returns the side A plays at the end of the game: the side it
// started on, or the other one after a pie-rule swap.
func (g *Game) ASide() kalah.Side {
	if g.ASouth != g.Outcome.Game.Swapped() {
		return kalah.South
	}
	return kalah.North
}

// AFirst reports whether A made the game's first move.
func (g *Game) AFirst() bool {
	return g.ASouth == (g.Outcome.Game.Rules().First == kalah.South)
}

// aSeat is A's seat in the referee's numbering (0: started as South).
func (g *Game) aSeat() int {
	if g.ASouth {
		return 0
	}
	return 1
}

// Stats sums up one player's moves over a match.
type Stats struct {
	Moves    int           // moves made (forced openings excluded)
	Time     time.Duration // thinking time, summed
	MaxTime  time.Duration // the longest move
	Nodes    uint64        // positions searched, summed over moves with a report
	Depth    int           // search depth reached, summed over moves with a report
	Reported int           // moves with a report (the player is a player.Reporter)
	Exact    int           // moves whose report proved the value (a book's or a solve's)
	Forfeits int           // games lost by a forfeit: a timeout, an illegal move, a crash
}

// MeanTime returns the mean thinking time a move.
func (s *Stats) MeanTime() time.Duration {
	if s.Moves == 0 {
		return 0
	}
	return s.Time / time.Duration(s.Moves)
}

// MeanNodes returns the mean positions searched a move, over the moves
// the player reported on.
func (s *Stats) MeanNodes() float64 {
	if s.Reported == 0 {
		return 0
	}
	return float64(s.Nodes) / float64(s.Reported)
}

// MeanDepth returns the mean search depth a move, over the moves the
// player reported on.
func (s *Stats) MeanDepth() float64 {
	if s.Reported == 0 {
		return 0
	}
	return float64(s.Depth) / float64(s.Reported)
}

// NodesPerSecond returns the player's search speed over the match.
func (s *Stats) NodesPerSecond() float64 {
	if s.Time <= 0 {
		return 0
	}
	return float64(s.Nodes) / s.Time.Seconds()
}

// Summary sums up a match from A's view.
type Summary struct {
	Games, Wins, Draws, Losses int
	Margin                     int // A's seeds minus B's, summed
	A, B                       Stats
}

// Add counts a game.
func (s *Summary) Add(g *Game) {
	a, b := g.AScore()
	s.Games++
	s.Margin += a - b
	switch {
	case a > b:
		s.Wins++
	case a < b:
		s.Losses++
	default:
		s.Draws++
	}
	aSeat := g.aSeat()
	for _, m := range g.Outcome.Moves {
		st := &s.B
		if m.Seat == aSeat {
			st = &s.A
		}
		st.Moves++
		st.Time += m.Elapsed
		st.MaxTime = max(st.MaxTime, m.Elapsed)
		if m.Report.Nodes > 0 || m.Report.Depth > 0 {
			st.Reported++
			st.Nodes += m.Report.Nodes
			st.Depth += m.Report.Depth
		}
		if m.Report.Exact {
			st.Exact++
		}
	}
	if kg := g.Outcome.Game; kg.Termination().IsForfeit() {
		if w, ok := kg.Result().Winner(); ok {
			if kg.Seat(w.Other()) == aSeat {
				s.A.Forfeits++
			} else {
				s.B.Forfeits++
			}
		}
	}
}

// Points returns A's points: win 2, draw 1.
func (s *Summary) Points() int { return 2*s.Wins + s.Draws }

// MeanMargin returns A's mean lead in seeds a game.
func (s *Summary) MeanMargin() float64 {
	if s.Games == 0 {
		return 0
	}
	return float64(s.Margin) / float64(s.Games)
}

// GameSeed is the seed for game i's players: distinct per game and side,
// fixed by the match seed.
func GameSeed(seed uint64, i, seat int) uint64 {
	x := seed ^ (uint64(i)*2+uint64(seat)+1)*0x9e3779b97f4a7c15
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	return x
}

// Opening returns the forced opening of game i, or nil when the match
// forces none.
func (cfg *Config) Opening(i int) []kalah.Move {
	if !cfg.Openings || cfg.Rules.Houses < 1 {
		return nil
	}
	lines := cfg.openings
	if lines == nil {
		lines = kalah.Openings(cfg.Rules, max(cfg.OpeningPlies, 1))
	}
	if len(lines) == 0 {
		return nil
	}
	return lines[(i/2)%len(lines)]
}

// errStopped marks games abandoned because the match stopped early.
var errStopped = errors.New("match stopped")

// Run plays the match, Parallel games at a time, calling each with every
// finished game in game order. It stops at the first error, from a game or
// from each.
func Run(ctx context.Context, cfg Config, each func(*Game) error) (Summary, error) {
	var sum Summary
	if cfg.Games <= 0 {
		return sum, nil
	}
	if err := cfg.Rules.Validate(); err != nil {
		return sum, err
	}
	if cfg.Openings {
		cfg.openings = kalah.Openings(cfg.Rules, max(cfg.OpeningPlies, 1))
	}
	workers := min(max(cfg.Parallel, 1), cfg.Games)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	games := make([]*Game, cfg.Games)
	done := make([]chan struct{}, cfg.Games)
	for i := range done {
		done[i] = make(chan struct{})
	}
	var next atomic.Int64
	eg, ectx := errgroup.WithContext(ctx)
	for range workers {
		eg.Go(func() error {
			for {
				i := int(next.Add(1)) - 1
				if i >= cfg.Games || ectx.Err() != nil {
					return nil
				}
				g, err := PlayOne(ectx, cfg, i)
				if err != nil {
					return err
				}
				games[i] = g
				close(done[i])
			}
		})
	}
	var stop error
	for i := range cfg.Games {
		select {
		case <-done[i]:
		case <-ectx.Done():
			select {
			case <-done[i]:
			default:
				stop = errStopped
			}
		}
		if stop != nil {
			break
		}
		sum.Add(games[i])
		if each != nil {
			if err := each(games[i]); err != nil {
				stop = err
				cancel(err)
				break
			}
		}
	}
	err := eg.Wait()
	switch {
	case stop != nil && stop != errStopped:
		return sum, stop
	case err != nil:
		return sum, err
	case stop != nil:
		return sum, context.Cause(ctx)
	}
	return sum, nil
}

// PlayOne plays game i of the match.
func PlayOne(ctx context.Context, cfg Config, i int) (*Game, error) {
	aSouth := i%2 == 0
	specs := [2]string{cfg.A, cfg.B}
	if !aSouth {
		specs = [2]string{cfg.B, cfg.A}
	}
	var players [2]player.Player
	for seat, spec := range specs {
		o := player.Options{Rules: cfg.Rules, Seed: GameSeed(cfg.Seed, i, seat)}
		if cfg.Logs != "" {
			who := "A"
			if (seat == 0) != aSouth {
				who = "B"
			}
			lf := proc.LogFile(filepath.Join(cfg.Logs, fmt.Sprintf("game-%03d-%s.stderr", i+1, who)))
			defer lf.Close()
			o.Stderr = lf
		}
		p, err := player.New(spec, o)
		if err != nil {
			return nil, err
		}
		players[seat] = p
		if c, ok := p.(interface{ Close() error }); ok {
			// Programs end with their game, however it ends.
			defer c.Close()
		}
	}
	// Programs start now, with their game, so that their start-up is not
	// charged to their first move. One that cannot start loses the game at
	// its first move, with the reason.
	for _, p := range players {
		if s, ok := p.(interface{ Start() error }); ok {
			s.Start()
		}
	}
	kg, err := kalah.NewGame(cfg.Rules)
	if err != nil {
		return nil, err
	}
	kg.Players = specs
	opening := cfg.Opening(i)
	for _, m := range opening {
		if _, err := kg.Play(m); err != nil {
			return nil, fmt.Errorf("game %d: opening %s: %w", i+1, kalah.MovesText(opening), err)
		}
	}
	ref := cfg.Referee
	out, err := ref.Play(ctx, kg, players)
	if err != nil {
		return nil, fmt.Errorf("game %d: %w", i+1, err)
	}
	return &Game{Index: i, ASouth: aSouth, Opening: opening, Outcome: out}, nil
}

// Package match plays a series of games between two players, both sides in
// turn, through the referee, and sums up the results.
package match

import (
	"context"
	"fmt"
	"time"

	"kalah"
	"kalah/player"
	"kalah/referee"
)

// Config describes a match.
type Config struct {
	A, B    string // player specs
	Rules   kalah.Rules
	Games   int    // games in all; A plays South in even-numbered games (0, 2, ...)
	Seed    uint64 // the same seed gives the same games
	Referee referee.Referee
}

// Game is one finished game of a match.
type Game struct {
	Index   int
	ASouth  bool // A started as South
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

// Summary sums up a match from A's view.
type Summary struct {
	Games, Wins, Draws, Losses int
	Margin                     int // A's seeds minus B's, summed
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
}

// Points returns A's points: win 2, draw 1.
func (s *Summary) Points() int { return 2*s.Wins + s.Draws }

// GameSeed is the seed for game i's players: distinct per game and side,
// fixed by the match seed.
func GameSeed(seed uint64, i, seat int) uint64 {
	x := seed ^ (uint64(i)*2+uint64(seat)+1)*0x9e3779b97f4a7c15
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	return x
}

// Run plays the match, calling each with every finished game in order.
func Run(ctx context.Context, cfg Config, each func(*Game) error) (Summary, error) {
	var sum Summary
	for i := 0; i < cfg.Games; i++ {
		g, err := PlayOne(ctx, cfg, i)
		if err != nil {
			return sum, err
		}
		sum.Add(g)
		if each != nil {
			if err := each(g); err != nil {
				return sum, err
			}
		}
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
		p, err := player.New(spec, player.Options{Rules: cfg.Rules, Seed: GameSeed(cfg.Seed, i, seat)})
		if err != nil {
			return nil, err
		}
		players[seat] = p
		if c, ok := p.(interface{ Close() error }); ok {
			defer c.Close()
		}
	}
	kg, err := kalah.NewGame(cfg.Rules)
	if err != nil {
		return nil, err
	}
	kg.Players = specs
	ref := cfg.Referee
	start := time.Now()
	out, err := ref.Play(ctx, kg, players)
	if err != nil {
		return nil, fmt.Errorf("game %d: %w", i+1, err)
	}
	_ = start
	return &Game{Index: i, ASouth: aSouth, Outcome: out}, nil
}

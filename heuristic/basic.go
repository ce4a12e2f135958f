// Package heuristic holds the players that choose a move by rule rather
// than by deep search: random, first, greedy, and Pekař's players.
package heuristic

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"

	"kalah"
	"kalah/player"
)

func init() {
	player.Register(player.Info{
		Name:    "random",
		Usage:   "random[:seed=N]",
		Summary: "plays a legal move at random, from a seed so games can be replayed",
		Source:  "baseline",
		Work:    player.Instant,
		New: func(s player.Spec, o player.Options) (player.Player, error) {
			if err := s.Check(0, "seed"); err != nil {
				return nil, err
			}
			seed, err := s.Int("seed", int(o.Seed))
			if err != nil {
				return nil, err
			}
			return NewRandom(uint64(seed)), nil
		},
	})
	player.Register(player.Info{
		Name:    "first",
		Usage:   "first",
		Summary: "plays the first non-empty house from the right",
		Source:  "Pekař et al. 2018, the fallback of the deterministic player (firstHouse)",
		Work:    player.Instant,
		New: func(s player.Spec, o player.Options) (player.Player, error) {
			if err := s.Check(0); err != nil {
				return nil, err
			}
			return First{}, nil
		},
	})
	player.Register(player.Info{
		Name:    "greedy",
		Usage:   "greedy",
		Summary: "plays the move that gains most for its store at once, preferring extra turns",
		Source:  "baseline",
		Work:    player.Instant,
		New: func(s player.Spec, o player.Options) (player.Player, error) {
			if err := s.Check(0); err != nil {
				return nil, err
			}
			return Greedy{}, nil
		},
	})
}

// Random plays a legal move at random.
type Random struct {
	rng *rand.Rand
}

// NewRandom returns a random player drawing from seed.
func NewRandom(seed uint64) *Random {
	return &Random{rng: rand.New(rand.NewPCG(seed, 0x6b616c6168))}
}

// Move picks uniformly among the legal moves.
func (r *Random) Move(ctx context.Context, g *kalah.Game, _ player.Clock) (kalah.Move, error) {
	ms := g.Legal()
	if len(ms) == 0 {
		return kalah.NoMove, kalah.ErrGameOver
	}
	return ms[r.rng.IntN(len(ms))], nil
}

// First plays the first non-empty house from the right, nearest the store.
type First struct{}

// Move returns the rightmost non-empty house.
func (First) Move(ctx context.Context, g *kalah.Game, _ player.Clock) (kalah.Move, error) {
	p := g.Position()
	return FirstFromRight(&p)
}

// FirstFromRight returns the mover's non-empty house nearest its store.
func FirstFromRight(p *kalah.Position) (kalah.Move, error) {
	mask := p.Mask()
	if mask == 0 {
		return kalah.NoMove, fmt.Errorf("%w: no legal move", kalah.ErrGameOver)
	}
	return kalah.Move(bits.Len32(mask)), nil
}

// Greedy plays the move that most improves its store lead at once; an
// extra turn counts as half a seed more, and ties go to the house nearest
// the store.
type Greedy struct{}

// Move returns the greedy choice.
func (Greedy) Move(ctx context.Context, g *kalah.Game, _ player.Clock) (kalah.Move, error) {
	p := g.Position()
	r := g.Rules()
	me := p.ToMove()
	best, bestScore := kalah.NoMove, -1<<30
	for mask := p.Mask(); mask != 0; mask &= mask - 1 {
		h := bits.TrailingZeros32(mask) + 1
		q := p
		eff := q.Play(&r, h)
		score := 2 * (q.Store(me) - q.Store(me.Other()))
		if eff&kalah.Extra != 0 && eff&kalah.End == 0 {
			score++
		}
		if score >= bestScore {
			best, bestScore = kalah.Move(h), score
		}
	}
	if best == kalah.NoMove {
		return kalah.NoMove, kalah.ErrGameOver
	}
	return best, nil
}

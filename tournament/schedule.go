package tournament

import (
	"math/rand/v2"
	"slices"

	"kalah"
	"kalah/match"
)

// openings returns the openings every pairing of a round plays, each twice
// with the players swapping sides.
func openings(cfg Config, round, pairing int) [][]kalah.Move {
	switch cfg.Openings {
	case Forced:
		start := cfg.Rules.Start()
		var out [][]kalah.Move
		for _, m := range start.Moves() {
			if m != kalah.Swap {
				out = append(out, []kalah.Move{m})
			}
		}
		return out
	case Paired:
		return [][]kalah.Move{randomOpening(cfg, round, pairing)}
	}
	return [][]kalah.Move{nil}
}

// randomOpening draws a line of cfg.OpeningPlies moves from the tournament
// seed, the round and the pairing; it stops early if the game ends.
func randomOpening(cfg Config, round, pairing int) []kalah.Move {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(round)<<32|uint64(pairing)))
	g, err := kalah.NewGame(cfg.Rules)
	if err != nil {
		return nil
	}
	var line []kalah.Move
	for len(line) < cfg.OpeningPlies && !g.Over() {
		ms := slices.DeleteFunc(g.Legal(), func(m kalah.Move) bool { return m == kalah.Swap })
		if len(ms) == 0 {
			break
		}
		m := ms[rng.IntN(len(ms))]
		if _, err := g.Play(m); err != nil {
			break
		}
		line = append(line, m)
	}
	return line
}

// gameSeed is the seed of one game, fixed by the tournament seed and the
// game's place in the schedule (not by the order games are stored or played).
func gameSeed(seed uint64, round, pairing, leg int) uint64 {
	return match.GameSeed(seed, round<<20|pairing<<8|leg&0xff, 0) ^ uint64(round)<<40
}

// pairGames returns the games of one pairing of a round: every opening
// twice, a as South first, then b.
func pairGames(cfg Config, round, pairing, a, b int) []Scheduled {
	var out []Scheduled
	for i, op := range openings(cfg, round, pairing) {
		for side := range 2 {
			g := Scheduled{Round: round, Pairing: pairing, Leg: 2*i + side, South: a, North: b, Opening: op}
			if side == 1 {
				g.South, g.North = b, a
			}
			g.Seed = gameSeed(cfg.Seed, round, pairing, g.Leg)
			out = append(out, g)
		}
	}
	return out
}

// legsPerPairing is the number of games each pairing plays in a round.
func legsPerPairing(cfg Config) int { return 2 * len(openings(cfg, 1, 0)) }

// fullSchedule returns every game of a round robin or gauntlet.
func fullSchedule(cfg Config) []Scheduled {
	var out []Scheduled
	n := len(cfg.Players)
	for r := 1; r <= cfg.Rounds; r++ {
		p := 0
		for a := range n {
			for b := a + 1; b < n; b++ {
				if cfg.Format == Gauntlet && a != 0 {
					continue
				}
				out = append(out, pairGames(cfg, r, p, a, b)...)
				p++
			}
		}
	}
	return out
}

// swissRound pairs round r from the standings so far: entrants in order of
// rank, each with the best-ranked one below it it has not met yet (or, if it
// has met them all, the next one). With an odd number, the lowest-ranked
// entrant without a bye sits out. It returns the games and the bye (-1 for
// none).
func swissRound(cfg Config, round int, table []Standing, met map[[2]int]bool, hadBye map[int]bool) ([]Scheduled, int) {
	order := make([]int, len(table))
	for i, s := range table {
		order[i] = s.Entrant
	}
	pairs, bye := PairSwiss(order, met, hadBye)
	var games []Scheduled
	for p, pr := range pairs {
		a, b := pr[0], pr[1]
		// Alternate who starts as South by round so neither side is favoured.
		if round%2 == 0 {
			a, b = b, a
		}
		games = append(games, pairGames(cfg, round, p, a, b)...)
	}
	return games, bye
}

// PairSwiss pairs one Swiss round of entrants given in rank order (best
// first): each with the best-ranked one below it it has not met (met holds
// pairs as PairKey gives them), never twice the same pair while another
// pairing is possible. With an odd number, the lowest-ranked entrant
// without a bye (hadBye) sits out; it returns the pairs, the better-ranked
// entrant first, and the bye (-1 for none). The server's Swiss tournaments
// for people pair their rounds with it too.
func PairSwiss(order []int, met map[[2]int]bool, hadBye map[int]bool) ([][2]int, int) {
	order = slices.Clone(order)
	bye := -1
	if len(order)%2 == 1 {
		for i := len(order) - 1; i >= 0; i-- {
			if !hadBye[order[i]] {
				bye = order[i]
				break
			}
		}
		if bye < 0 {
			bye = order[len(order)-1]
		}
		order = slices.DeleteFunc(order, func(e int) bool { return e == bye })
	}
	return pairUp(order, met), bye
}

// PairKey is the key of the pair a, b in the met map of PairSwiss.
func PairKey(a, b int) [2]int { return pairKey(a, b) }

func pairKey(a, b int) [2]int {
	return [2]int{min(a, b), max(a, b)}
}

// sprtRound schedules round r of an SPRT run: cfg.SPRT.Batch pairings of
// the two entrants, each on its own opening, but never more games than
// left, so that MaxGames is never exceeded.
func sprtRound(cfg Config, round, left int) []Scheduled {
	var out []Scheduled
	for p := range cfg.SPRT.Batch {
		if len(out) >= left {
			break
		}
		out = append(out, pairGames(cfg, round, p, 0, 1)...)
	}
	if len(out) > left {
		out = out[:max(left, 0)]
	}
	return out
}

// lastRound returns the highest round scheduled.
func lastRound(games []Scheduled) int {
	r := 0
	for _, g := range games {
		r = max(r, g.Round)
	}
	return r
}

// pairUp pairs entrants given in rank order: the first with the best-ranked
// one it has not met such that the rest can still be paired without
// rematches, searching back when a choice leads nowhere. If no pairing
// avoids every rematch (or the search grows too long) it pairs neighbours
// in rank order, preferring ones not met.
func pairUp(order []int, met map[[2]int]bool) [][2]int {
	used := make([]bool, len(order))
	var pairs [][2]int
	steps := 0
	var search func() bool
	search = func() bool {
		i := slices.Index(used, false)
		if i < 0 {
			return true
		}
		used[i] = true
		for j := i + 1; j < len(order); j++ {
			if used[j] || met[pairKey(order[i], order[j])] {
				continue
			}
			if steps++; steps > 100000 {
				break
			}
			used[j] = true
			pairs = append(pairs, [2]int{order[i], order[j]})
			if search() {
				return true
			}
			pairs = pairs[:len(pairs)-1]
			used[j] = false
		}
		used[i] = false
		return false
	}
	if search() {
		return pairs
	}
	clear(used)
	pairs = pairs[:0]
	for i := range order {
		if used[i] {
			continue
		}
		pick := -1
		for j := i + 1; j < len(order); j++ {
			if used[j] {
				continue
			}
			if pick < 0 {
				pick = j
			}
			if !met[pairKey(order[i], order[j])] {
				pick = j
				break
			}
		}
		if pick < 0 {
			break
		}
		used[i], used[pick] = true, true
		pairs = append(pairs, [2]int{order[i], order[pick]})
	}
	return pairs
}

// PlannedGames returns the players (indexes into cfg.Players, South
// first) of every game cfg plays in all: a round robin's or a gauntlet's
// whole schedule; a Swiss's rounds of pairings, whose pairs follow the
// results, as each entrant in turn against the next. Servers cost a
// tournament by it before they take it on.
func PlannedGames(cfg Config) [][2]int {
	var out [][2]int
	if cfg.Format != Swiss {
		for _, g := range fullSchedule(cfg) {
			out = append(out, [2]int{g.South, g.North})
		}
		return out
	}
	n := len(cfg.Players)
	for range cfg.Rounds {
		for p := 0; p+1 < n; p += 2 {
			for range legsPerPairing(cfg) {
				out = append(out, [2]int{p, p + 1})
			}
		}
	}
	return out
}

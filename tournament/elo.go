package tournament

import (
	"math"
)

// Rating is an entrant's Elo rating with the half width of its 95% interval.
type Rating struct {
	Elo   float64 `json:"elo"`
	Err95 float64 `json:"err95"`
}

// eloScale converts natural-log strengths to Elo points.
const eloScale = 400 / math.Ln10

// priorDraws is the number of virtual draws each entrant plays against an
// average (Elo 0) opponent. They keep an entrant that won or lost every game
// at a finite rating and pull small samples gently towards the mean.
const priorDraws = 2

// Ratings returns maximum-likelihood Elo ratings of n entrants from their
// games under the Bradley-Terry (logistic) model, a draw counting half a
// win for each side, with priorDraws virtual draws against an average
// opponent. Ratings are shifted to average 0. Err95 is 1.96 standard errors
// from the Fisher information of each rating with the others held fixed.
func Ratings(n int, games []Played) []Rating {
	out := make([]Rating, n)
	if n == 0 {
		return out
	}
	// games[i][j] and score[i] (in wins) over real games.
	cnt := make([][]float64, n)
	for i := range cnt {
		cnt[i] = make([]float64, n)
	}
	score := make([]float64, n)
	for _, g := range games {
		a, b := g.South, g.North
		if a < 0 || a >= n || b < 0 || b >= n || a == b {
			continue
		}
		cnt[a][b]++
		cnt[b][a]++
		ps, pn := gamePoints(g)
		score[a] += float64(ps) / WinPoints
		score[b] += float64(pn) / WinPoints
	}
	// Minorization-maximization (Hunter 2004) on gamma = exp(strength); the
	// virtual opponent has gamma 1.
	gamma := make([]float64, n)
	for i := range gamma {
		gamma[i] = 1
	}
	next := make([]float64, n)
	for iter := 0; iter < 10000; iter++ {
		change := 0.0
		for i := range n {
			den := priorDraws / (gamma[i] + 1)
			for j := range n {
				if cnt[i][j] > 0 {
					den += cnt[i][j] / (gamma[i] + gamma[j])
				}
			}
			next[i] = (score[i] + priorDraws*0.5) / den
			change = max(change, math.Abs(math.Log(next[i]/gamma[i])))
		}
		copy(gamma, next)
		if change < 1e-10 {
			break
		}
	}
	mean := 0.0
	for i := range n {
		mean += math.Log(gamma[i])
	}
	mean /= float64(n)
	for i := range n {
		r := math.Log(gamma[i])
		info := 0.0
		for j := range n {
			if cnt[i][j] > 0 {
				p := gamma[i] / (gamma[i] + gamma[j])
				info += cnt[i][j] * p * (1 - p)
			}
		}
		p := gamma[i] / (gamma[i] + 1)
		info += priorDraws * p * (1 - p)
		out[i] = Rating{Elo: eloScale * (r - mean), Err95: 1.96 * eloScale / math.Sqrt(info)}
	}
	return out
}

// EloDiff returns the Elo difference a score fraction (0..1) implies, and
// the half width of its 95% interval from the win/draw/loss counts (the
// trinomial variance of the per-game score). A perfect or zero score is
// clamped to the score of half a game less or more.
func EloDiff(w, d, l int) (elo, err95 float64) {
	n := float64(w + d + l)
	if n == 0 {
		return 0, math.Inf(1)
	}
	s := (float64(w) + float64(d)/2) / n
	s = math.Min(math.Max(s, 0.5/n), 1-0.5/n)
	v := (float64(w)*(1-s)*(1-s) + float64(d)*(0.5-s)*(0.5-s) + float64(l)*s*s) / n
	se := math.Sqrt(v / n)
	lo := math.Max(s-1.96*se, 1e-6)
	hi := math.Min(s+1.96*se, 1-1e-6)
	return scoreElo(s), (scoreElo(hi) - scoreElo(lo)) / 2
}

// scoreElo is the Elo difference at which the expected score is s.
func scoreElo(s float64) float64 { return -400 * math.Log10(1/s-1) }

// expectedScore is the expected score of a player elo points stronger.
func expectedScore(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }

package tournament

import (
	"fmt"
	"math"
)

// Verdict is the state of a sequential probability ratio test.
type Verdict string

// The verdicts.
const (
	Undecided Verdict = "undecided"
	AcceptH0  Verdict = "H0" // the first player is not elo1 stronger
	AcceptH1  Verdict = "H1" // the first player is at least elo0 stronger
)

// SPRTState is a test's evidence so far, from the first player's view.
type SPRTState struct {
	Config     SPRTConfig `json:"config"`
	Wins       int        `json:"wins"`
	Draws      int        `json:"draws"`
	Losses     int        `json:"losses"`
	LLR        float64    `json:"llr"`
	Lower      float64    `json:"lower"` // accept H0 at or below
	Upper      float64    `json:"upper"` // accept H1 at or above
	Verdict    Verdict    `json:"verdict"`
	Elo        float64    `json:"elo"` // the measured difference
	EloErr     float64    `json:"elo_err"`
	Statement  string     `json:"statement"`
	Exhausted  bool       `json:"exhausted,omitempty"` // stopped at MaxGames undecided
	PlayerA    string     `json:"player_a"`
	PlayerB    string     `json:"player_b"`
	GamesTotal int        `json:"games"`
}

// LLR returns the generalized sequential probability ratio test's
// log-likelihood ratio of H1 (elo1) against H0 (elo0) for w wins, d draws
// and l losses, by the normal approximation to the trinomial: with mean
// score x and per-game variance v, LLR = n (s1-s0)(2x-s0-s1) / 2v, where s0
// and s1 are the expected scores under each hypothesis.
func LLR(w, d, l int, elo0, elo1 float64) float64 {
	n := float64(w + d + l)
	if n == 0 {
		return 0
	}
	x := (float64(w) + float64(d)/2) / n
	v := (float64(w)*(1-x)*(1-x) + float64(d)*(0.5-x)*(0.5-x) + float64(l)*x*x) / n
	if v == 0 {
		// Every game won or every game lost: use the smallest variance one
		// more game could give, so the ratio stays finite.
		v = 0.25 / (n + 1)
	}
	s0, s1 := expectedScore(elo0), expectedScore(elo1)
	return n * (s1 - s0) * (2*x - s0 - s1) / (2 * v)
}

// Bounds returns Wald's stopping bounds for error rates alpha and beta.
func Bounds(alpha, beta float64) (lower, upper float64) {
	return math.Log(beta / (1 - alpha)), math.Log((1 - beta) / alpha)
}

// Evaluate runs the test on the counts so far.
func Evaluate(c SPRTConfig, a, b string, w, d, l int) SPRTState {
	st := SPRTState{Config: c, Wins: w, Draws: d, Losses: l, PlayerA: a, PlayerB: b, GamesTotal: w + d + l}
	st.LLR = LLR(w, d, l, c.Elo0, c.Elo1)
	st.Lower, st.Upper = Bounds(c.Alpha, c.Beta)
	st.Elo, st.EloErr = EloDiff(w, d, l)
	switch {
	case st.LLR >= st.Upper:
		st.Verdict = AcceptH1
		st.Statement = fmt.Sprintf("%s is stronger than %s: H1 (at least %+g Elo rather than %+g) accepted; the chance this is wrong is at most %g%%",
			a, b, c.Elo1, c.Elo0, 100*c.Alpha)
	case st.LLR <= st.Lower:
		st.Verdict = AcceptH0
		st.Statement = fmt.Sprintf("%s is not shown stronger than %s: H0 (%+g Elo rather than %+g) accepted; the chance a real gain of %+g was missed is at most %g%%",
			a, b, c.Elo0, c.Elo1, c.Elo1, 100*c.Beta)
	default:
		st.Verdict = Undecided
		st.Statement = fmt.Sprintf("undecided after %d games: LLR %.2f within (%.2f, %.2f)", st.GamesTotal, st.LLR, st.Lower, st.Upper)
		if c.MaxGames > 0 && st.GamesTotal >= c.MaxGames {
			st.Exhausted = true
			st.Statement += fmt.Sprintf("; stopped at the limit of %d games", c.MaxGames)
		}
	}
	return st
}

// sprtCounts sums the first entrant's wins, draws and losses.
func sprtCounts(games []Played) (w, d, l int) {
	for _, g := range games {
		ps, pn := gamePoints(g)
		p := ps
		if g.North == 0 {
			p = pn
		}
		switch p {
		case WinPoints:
			w++
		case DrawPoints:
			d++
		default:
			l++
		}
	}
	return w, d, l
}

// Package rating rates players with Glicko-2 (Mark Glickman, "Example of
// the Glicko-2 system", 2013): a rating, its deviation (how sure we are of
// it) and a volatility (how erratic the player is). The server rates every
// account, people and bots on one ladder, a ladder for each rule preset
// and time-control class, after every rated game (a rating period of one
// game, as lichess does).
package rating

import "math"

// Defaults of a new player.
const (
	Initial    = 1500.0
	InitialRD  = 350.0
	InitialVol = 0.06
	// Tau constrains the change of volatility; Glickman suggests 0.3 to
	// 1.2; lichess uses 0.75.
	Tau = 0.75
	// ProvisionalRD: a rating whose deviation is above it is provisional
	// (marked "?"), as on lichess.
	ProvisionalRD = 110.0
	// MinRD keeps a deviation from shrinking to nothing.
	MinRD = 45.0

	scale   = 173.7178
	epsilon = 0.000001
)

// Rating is a player's rating on one ladder.
type Rating struct {
	Rating float64 `json:"rating"`
	RD     float64 `json:"rd"`
	Vol    float64 `json:"vol"`
	Games  int     `json:"games"`
}

// New returns a new player's rating.
func New() Rating { return Rating{Rating: Initial, RD: InitialRD, Vol: InitialVol} }

// Provisional reports whether the rating is not yet reliable.
func (r Rating) Provisional() bool { return r.RD > ProvisionalRD }

// Result is one game against an opponent: Score is 1 for a win, 0.5 for a
// draw, 0 for a loss.
type Result struct {
	Opponent Rating
	Score    float64
}

func g(phi float64) float64 { return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi)) }

func expected(mu, muj, phij float64) float64 { return 1 / (1 + math.Exp(-g(phij)*(mu-muj))) }

// Update returns r after a rating period with results (steps 2 to 8 of
// Glickman's example). With no results the deviation grows.
func (r Rating) Update(results []Result) Rating { return r.updateTau(results, Tau) }

func (r Rating) updateTau(results []Result, tau float64) Rating {
	mu := (r.Rating - Initial) / scale
	phi := r.RD / scale
	sigma := r.Vol
	if len(results) == 0 {
		phiStar := math.Sqrt(phi*phi + sigma*sigma)
		return Rating{Rating: r.Rating, RD: math.Min(phiStar*scale, InitialRD), Vol: sigma, Games: r.Games}
	}
	var vInv, sum float64
	for _, res := range results {
		muj := (res.Opponent.Rating - Initial) / scale
		phij := res.Opponent.RD / scale
		e := expected(mu, muj, phij)
		gj := g(phij)
		vInv += gj * gj * e * (1 - e)
		sum += gj * (res.Score - e)
	}
	v := 1 / vInv
	delta := v * sum
	// Step 5: the new volatility, by the Illinois algorithm.
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(tau*tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*tau) < 0 {
			k++
		}
		B = a - k*tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > epsilon && i < 100; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	sigma2 := math.Exp(A / 2)
	phiStar := math.Sqrt(phi*phi + sigma2*sigma2)
	phi2 := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	mu2 := mu + phi2*phi2*sum
	return Rating{Rating: mu2*scale + Initial, RD: math.Max(phi2*scale, MinRD), Vol: sigma2, Games: r.Games + len(results)}
}

// Game rates one game between a and b: score is a's (1, 0.5 or 0). Both
// are updated from their ratings before the game.
func Game(a, b Rating, score float64) (Rating, Rating) {
	return a.Update([]Result{{Opponent: b, Score: score}}), b.Update([]Result{{Opponent: a, Score: 1 - score}})
}

// Class names the time-control class of a game from its clock: the
// estimated time of a 40-move game for one player, as lichess does
// (bullet under 3 minutes, blitz under 8, rapid under 25, classical
// beyond); "untimed" without a clock.
func Class(clockMS, incrementMS, perMoveMS int64) string {
	est := clockMS + 40*incrementMS
	if clockMS == 0 {
		est = 40 * perMoveMS
	}
	switch {
	case est <= 0:
		return "untimed"
	case est < 3*60_000:
		return "bullet"
	case est < 8*60_000:
		return "blitz"
	case est < 25*60_000:
		return "rapid"
	}
	return "classical"
}

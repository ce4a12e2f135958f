package rating

import (
	"math"
	"testing"
)

// TestGlickmanExample is the worked example of Glickman's paper: a player
// of 1500 (RD 200, volatility 0.06) beats a 1400 (RD 30) and loses to a
// 1550 (RD 100) and a 1700 (RD 300) in one period; with tau 0.5 the new
// rating is 1464.06, RD 151.52, volatility 0.05999.
func TestGlickmanExample(t *testing.T) {
	r := Rating{Rating: 1500, RD: 200, Vol: 0.06}
	got := r.updateTau([]Result{
		{Opponent: Rating{Rating: 1400, RD: 30}, Score: 1},
		{Opponent: Rating{Rating: 1550, RD: 100}, Score: 0},
		{Opponent: Rating{Rating: 1700, RD: 300}, Score: 0},
	}, 0.5)
	if math.Abs(got.Rating-1464.06) > 0.01 || math.Abs(got.RD-151.52) > 0.01 || math.Abs(got.Vol-0.05999) > 0.00001 {
		t.Fatalf("got %.2f RD %.2f vol %.5f, want 1464.06, 151.52, 0.05999", got.Rating, got.RD, got.Vol)
	}
}

func TestGameMovesRatingsTheRightWay(t *testing.T) {
	a, b := New(), New()
	a2, b2 := Game(a, b, 1)
	if a2.Rating <= a.Rating || b2.Rating >= b.Rating || a2.RD >= a.RD || a2.Games != 1 {
		t.Fatalf("after a win: %+v %+v", a2, b2)
	}
	// Zero-sum between equals, within rounding.
	if d := (a2.Rating - a.Rating) + (b2.Rating - b.Rating); math.Abs(d) > 1e-6 {
		t.Fatalf("not symmetric: %v", d)
	}
	d1, d2 := Game(a, b, 0.5)
	if math.Abs(d1.Rating-1500) > 1e-9 || math.Abs(d2.Rating-1500) > 1e-9 {
		t.Fatalf("a draw between equals moved them: %v %v", d1.Rating, d2.Rating)
	}
	if !a.Provisional() {
		t.Fatal("a new player is not provisional")
	}
	// Beating a much weaker player gains little; losing to them costs much.
	strong, weak := Rating{Rating: 2000, RD: 60, Vol: 0.06}, Rating{Rating: 1400, RD: 60, Vol: 0.06}
	win, _ := Game(strong, weak, 1)
	loss, _ := Game(strong, weak, 0)
	if win.Rating-strong.Rating > 5 || strong.Rating-loss.Rating < 10*(win.Rating-strong.Rating) {
		t.Fatalf("win +%.1f, loss -%.1f", win.Rating-strong.Rating, strong.Rating-loss.Rating)
	}
}

func TestClass(t *testing.T) {
	for _, tc := range []struct {
		clock, inc, per int64
		want            string
	}{
		{60_000, 0, 0, "bullet"}, {180_000, 2_000, 0, "blitz"}, {300_000, 3_000, 0, "blitz"}, {600_000, 0, 0, "rapid"},
		{1_800_000, 0, 0, "classical"}, {0, 0, 0, "untimed"}, {0, 0, 10_000, "blitz"}, {0, 0, 30_000, "rapid"}, {0, 0, 2_000, "bullet"},
	} {
		if got := Class(tc.clock, tc.inc, tc.per); got != tc.want {
			t.Errorf("Class(%d, %d, %d) = %s, want %s", tc.clock, tc.inc, tc.per, got, tc.want)
		}
	}
}

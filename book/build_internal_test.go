package book

import (
	"math/rand/v2"
	"testing"

	"kalah"
)

// TestProgressFalls: every move of random games, under every switch a book
// supports, lowers the rank Build orders its positions by.
func TestProgressFalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range []kalah.Rules{
		{Houses: 6, Seeds: 4},
		{Houses: 4, Seeds: 3, EmptyCapture: true, End: kalah.MoverStuck},
		{Houses: 5, Seeds: 5, SowOpponentStore: true},
		{Houses: 3, Seeds: 6, End: kalah.MoverEmpty, EmptyCapture: true, SowOpponentStore: true},
	} {
		r = r.Canonical()
		for range 200 {
			p := r.Start()
			for !p.Over(&r) {
				ms := p.Moves()
				q := p
				q.Play(&r, int(ms[rng.IntN(len(ms))]))
				if progress(&q).cmp(progress(&p)) >= 0 {
					t.Fatalf("%s: %s to %s does not lower the rank (%v to %v)", r, p, q, progress(&p), progress(&q))
				}
				p = q
			}
		}
	}
}

package board

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"kalah"
)

// rules lists rule variants of n houses and s seeds with every switch that
// changes sowing or the end.
func rules(n, s int) []kalah.Rules {
	var out []kalah.Rules
	for _, end := range []kalah.EndRule{kalah.EitherEmpty, kalah.MoverStuck, kalah.MoverEmpty} {
		for _, ec := range []bool{false, true} {
			for _, so := range []bool{false, true} {
				for _, ee := range []bool{false, true} {
					out = append(out, kalah.Rules{Houses: n, Seeds: s, End: end, EmptyCapture: ec, SowOpponentStore: so, EarlyEnd: ee})
				}
			}
		}
	}
	return out
}

func diff(p *kalah.Position, s kalah.Side) int { return p.Store(s) - p.Store(s.Other()) }

// TestPlayMatchesPosition plays random games with the rules library and the
// board side by side, under every rule switch: the same change of the store
// difference, extra turns, ends and (mirrored to the mover's view) boards.
func TestPlayMatchesPosition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// {6, 20} and {16, 9} sow whole laps; {16, 9} fills all 32 houses.
	sizes := [][2]int{{1, 3}, {2, 5}, {3, 3}, {4, 6}, {6, 4}, {6, 6}, {7, 7}, {8, 8}, {6, 20}, {16, 9}}
	for _, sz := range sizes {
		for _, r := range rules(sz[0], sz[1]) {
			g := New(r)
			for game := 0; game < 20; game++ {
				p := r.Start()
				for !p.Over(&r) {
					b := g.FromPosition(&p)
					if g.Seeds(&b) != p.Seeds(kalah.South)+p.Seeds(kalah.North) {
						t.Fatalf("%s: %s: board seeds %d", r, p, g.Seeds(&b))
					}
					if !r.EarlyEnd {
						if _, over := g.Terminal(&b); over {
							t.Fatalf("%s: %s in play, terminal on the board", r, p)
						}
					}
					ms := p.Moves()
					m := ms[rng.IntN(len(ms))]
					me := p.ToMove()
					before := diff(&p, me)
					eff := p.Play(&r, int(m))
					for j := 0; j < g.N; j++ {
						if b.H[j] == 0 {
							continue
						}
						pd, pextra := g.Predict(&b, j)
						c := b
						d, extra, over := g.Play(&c, j)
						if !over && (pd != d || pextra != extra) {
							t.Fatalf("%s: house %d of %s: predicted delta %d extra %v, played %d %v", r, j, p, pd, pextra, d, extra)
						}
					}
					d, extra, over := g.Play(&b, int(m)-1)
					if d != diff(&p, me)-before || extra != (eff&kalah.Extra != 0) || over != (eff&kalah.End != 0) {
						t.Fatalf("%s: move %d to %s: board delta %d extra %v over %v; position effect %v delta %d", r, m, p, d, extra, over, eff, diff(&p, me)-before)
					}
					if !over {
						want := g.FromPosition(&p)
						if want != b {
							t.Fatalf("%s: move %d to %s: board %v %v, want %v %v", r, m, p, b.H[:g.M], b.Store, want.H[:g.M], want.Store)
						}
					}
				}
			}
		}
	}
}

// TestTerminal compares Terminal with kalah.Position.Over and Settle on
// every small board of both sides, without the early end.
func TestTerminal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, r := range append(rules(2, 1), rules(6, 4)...) {
		if r.EarlyEnd {
			continue
		}
		g := New(r)
		for code := 0; code < 4*4*4*4; code++ {
			south := []int{code % 4, code / 4 % 4}
			north := []int{code / 16 % 4, code / 64}
			if r.Houses == 6 {
				// Six houses (Terminal reads the rows as words there): a side
				// empty one time in four, each house up to 40 seeds.
				south, north = make([]int, 6), make([]int, 6)
				for i := range 6 {
					if code%4 != 1 {
						south[i] = rng.IntN(41)
					}
					if code%4 != 2 {
						north[i] = rng.IntN(41)
					}
				}
			}
			p, err := kalah.NewPosition(south, north, 0, 0, kalah.South)
			if err != nil {
				t.Fatal(err)
			}
			b := g.FromPosition(&p)
			v, over := g.Terminal(&b)
			if over != p.Over(&r) {
				t.Fatalf("%s: %s: terminal %v, over %v", r, p, over, p.Over(&r))
			}
			if over {
				q := p
				q.Settle(&r)
				if v != diff(&q, kalah.South) {
					t.Fatalf("%s: %s: terminal value %d, settled %d", r, p, v, diff(&q, kalah.South))
				}
			}
		}
	}
}

// TestColexRank checks ColexRank (the unrolled paths for eleven and twelve
// houses and the loop for the others) against the binomial sum computed
// with big integers, on random configurations up to MaxRankSeeds seeds.
func TestColexRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	choose := func(n, k int) *big.Int { return new(big.Int).Binomial(int64(n), int64(k)) }
	for _, m := range []int{1, 2, 6, 11, 12, 13, 32} {
		for range 2000 {
			h := make([]uint8, m)
			left := rng.IntN(MaxRankSeeds + 1)
			if rng.IntN(2) == 0 {
				left = rng.IntN(40)
			}
			for left > 0 {
				j := rng.IntN(m)
				if h[j] < 255 {
					h[j]++
				}
				left--
			}
			want := new(big.Int)
			p := 0
			for j, c := range h {
				p += int(c)
				want.Add(want, choose(p+j, j+1))
			}
			got := ColexRank(h)
			if !want.IsUint64() {
				continue // saturated terms: only the small ranks are used
			}
			if got != want.Uint64() {
				t.Fatalf("ColexRank(%v) = %d, want %d", h, got, want)
			}
		}
	}
}

// FuzzPlay6 checks the standard board's sowing by words (Play) against the
// sowing a seed at a time (play), and its Predict against play and the
// general predict, on any board of up to 255 seeds, under every rule switch
// they serve.
func FuzzPlay6(f *testing.F) {
	f.Add([]byte{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, uint8(2), uint8(0), uint16(0), uint16(0))
	f.Add([]byte{0, 0, 30, 0, 0, 1, 0, 0, 0, 9, 0, 0}, uint8(2), uint8(5), uint16(20), uint16(3))
	f.Add([]byte{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, uint8(5), uint8(1), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, h []byte, house, rule uint8, s0, s1 uint16) {
		var b Board
		total := int(s0%128) + int(s1%128)
		for j := 0; j < 12 && j < len(h); j++ {
			b.H[j] = h[j] % 64
			total += int(b.H[j])
		}
		i := int(house % 6)
		if b.H[i] == 0 || total > 255 {
			t.Skip()
		}
		b.Store = [2]int16{int16(s0 % 128), int16(s1 % 128)}
		ends := []kalah.EndRule{kalah.EitherEmpty, kalah.MoverStuck, kalah.MoverEmpty}
		r := kalah.Rules{Houses: 6, Seeds: 4, End: ends[int(rule)%3], EmptyCapture: rule&4 != 0, EarlyEnd: rule&8 != 0}
		g := New(r)
		if !g.six {
			t.Fatalf("%s: not sown by words", r)
		}
		g.half = total / 2
		want, got := b, b
		wd, we, wo := g.play(&want, i)
		gd, ge, gover := g.Play(&got, i)
		pd, pe := g.Predict(&b, i)
		if !wo && (pd != wd || pe != we) {
			t.Fatalf("%s: house %d of %v: Predict %d %v, play %d %v", r, i, b.H[:12], pd, pe, wd, we)
		}
		if ad, ae := g.predict(&b, i); pd != ad || pe != ae {
			t.Fatalf("%s: house %d of %v: Predict %d %v, predict %d %v", r, i, b.H[:12], pd, pe, ad, ae)
		}
		var to Board
		src := b
		if fd, fe, fo := g.PlayFrom(&to, &src, i); fd != wd || fe != we || fo != wo || to != want || src != b {
			t.Fatalf("%s: house %d of %v %v: PlayFrom %d %v %v %v %v (source after: %v), play %d %v %v %v %v",
				r, i, b.H[:12], b.Store, fd, fe, fo, to.H[:12], to.Store, src.H[:12], wd, we, wo, want.H[:12], want.Store)
		}
		if gd != wd || ge != we || gover != wo || got != want {
			t.Fatalf("%s: house %d of %v %v: Play %d %v %v %v %v, play %d %v %v %v %v",
				r, i, b.H[:12], b.Store, gd, ge, gover, got.H[:12], got.Store, wd, we, wo, want.H[:12], want.Store)
		}
	})
}

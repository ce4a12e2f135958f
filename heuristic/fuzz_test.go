package heuristic

import (
	"testing"

	"kalah"
)

// FuzzPekar checks on any position, under any preset's sowing rules, that
// Pekař's players choose a legal move by the rule they say, and that the
// simulated sowing agrees with the rules' own on captures.
func FuzzPekar(f *testing.F) {
	f.Add([]byte{0, 5, 0, 2, 2, 2, 2, 8, 2, 1, 0, 4, 4, 4, 4, 0, 0})
	f.Add([]byte{0, 5, 0, 13, 8, 8, 8, 8, 8, 4, 4, 4, 4, 4, 4, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		presets := kalah.Presets()
		r := presets[int(data[0])%len(presets)].Rules
		r.Pie = false
		n := 1 + int(data[1])%8
		r.Houses = n
		side := kalah.Side(data[2] & 1)
		data = data[3:]
		seeds := func(i int) int {
			if i < len(data) {
				return int(data[i]) % 20
			}
			return 0
		}
		south, north := make([]int, n), make([]int, n)
		for i := range n {
			south[i], north[i] = seeds(i), seeds(n+i)
		}
		p, err := kalah.NewPosition(south, north, 0, 0, side)
		if err != nil || p.Over(&r) || p.Mask() == 0 {
			return
		}
		m, rule, err := PekarChoice(&r, &p)
		if err != nil || !p.Legal(m) {
			t.Fatalf("%s: pekar chose %s (%v)", p, m, err)
		}
		q := p
		eff := q.Play(&r, int(m))
		switch rule {
		case RuleStore:
			if eff&kalah.Extra == 0 {
				t.Fatalf("%s: store rule chose %s, no extra turn", p, m)
			}
		case RuleCapture:
			if eff&kalah.Capture == 0 {
				t.Fatalf("%s: capture rule chose %s, no capture", p, m)
			}
		}
		for h := 1; h <= n; h++ {
			if p.House(side, h) == 0 {
				continue
			}
			q := p
			if c := captureOf(&r, &p, side, h); c > 0 && q.Play(&r, h)&kalah.Capture == 0 {
				t.Fatalf("%s house %d: captureOf %d, no capture", p, h, c)
			}
		}
		tm, _, _, _, err := NewPekarTree(2).Choose(&r, &p)
		if err != nil || !p.Legal(tm) {
			t.Fatalf("%s: pekar-tree chose %s (%v)", p, tm, err)
		}
	})
}

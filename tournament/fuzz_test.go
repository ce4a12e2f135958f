package tournament

import (
	"testing"
)

// FuzzStandings checks the invariants of any table: every game hands out
// two points, ranks follow points then seeds, and entrants appear once.
func FuzzStandings(f *testing.F) {
	f.Add([]byte{0, 1, 30, 18, 1, 2, 24, 24, 2, 0, 10, 38})
	f.Add([]byte{3, 3, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		const n = 5
		players := []string{"a", "b", "c", "d", "e"}
		var games []Played
		for i := 0; i+3 < len(data); i += 4 {
			s, no := int(data[i])%n, int(data[i+1])%n
			if s == no {
				continue
			}
			games = append(games, game(s, no, int(data[i+2])%50, int(data[i+3])%50))
		}
		table := Compute(players, games, nil, 0)
		if len(table) != n {
			t.Fatalf("%d lines for %d players", len(table), n)
		}
		seen := map[int]bool{}
		points, played := 0, 0
		for i, s := range table {
			if seen[s.Entrant] {
				t.Fatalf("entrant %d listed twice", s.Entrant)
			}
			seen[s.Entrant] = true
			points += s.Points
			played += s.Games
			if s.Wins+s.Draws+s.Losses != s.Games || s.Points != 2*s.Wins+s.Draws {
				t.Fatalf("inconsistent line %+v", s)
			}
			if i > 0 {
				p := table[i-1]
				if p.Points < s.Points || p.Points == s.Points && p.Seeds < s.Seeds ||
					p.Points == s.Points && p.Seeds == s.Seeds && p.HeadToHead < s.HeadToHead {
					t.Fatalf("out of order: %+v before %+v", p, s)
				}
				if p.Rank > s.Rank {
					t.Fatalf("ranks decrease: %+v before %+v", p, s)
				}
			}
		}
		if points != 2*len(games) || played != 2*len(games) {
			t.Fatalf("%d points and %d entries for %d games", points, played, len(games))
		}
		r := Ratings(n, games)
		sum := 0.0
		for _, x := range r {
			sum += x.Elo
			if x.Err95 <= 0 || x.Elo != x.Elo {
				t.Fatalf("rating %+v", x)
			}
		}
		if sum > 1e-6 || sum < -1e-6 {
			t.Fatalf("ratings sum to %v", sum)
		}
	})
}

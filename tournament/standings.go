package tournament

import (
	"cmp"
	"context"
	"slices"
)

// Points for a game: win 2, draw 1, loss 0.
const (
	WinPoints  = 2
	DrawPoints = 1
)

// Standing is one entrant's line in the table.
type Standing struct {
	Rank    int    `json:"rank"` // from 1; tied entrants (equal on every tie-break) share a rank
	Entrant int    `json:"entrant"`
	Player  string `json:"player"` // the entrant's label (Config.Label)
	Spec    string `json:"spec,omitempty"`
	Games   int    `json:"games"`
	Wins    int    `json:"wins"`
	Draws   int    `json:"draws"`
	Losses  int    `json:"losses"`
	Byes    int    `json:"byes,omitempty"`
	// Points is 2 a win and 1 a draw, plus a bye's points.
	Points int `json:"points"`
	// Seeds is the seeds the entrant had in its store at the end of its
	// games, summed: the first tie-break.
	Seeds int `json:"seeds"`
	// HeadToHead is the points scored against the entrants tied with it on
	// points and seeds: the second tie-break (zero when not tied).
	HeadToHead int `json:"head_to_head"`
	// Elo is the maximum-likelihood rating (mean 0) and EloErr the half
	// width of its 95% interval.
	Elo    float64 `json:"elo"`
	EloErr float64 `json:"elo_err"`
}

// Score returns the entrant's share of the points its games offered, 0..1
// (byes left out).
func (s Standing) Score() float64 {
	if s.Games == 0 {
		return 0
	}
	return float64(WinPoints*s.Wins+DrawPoints*s.Draws) / float64(WinPoints*s.Games)
}

// Cell is one entry of a cross-table: how the row's entrant did against the
// column's.
type Cell struct {
	Games  int `json:"games"`
	Wins   int `json:"wins"`
	Draws  int `json:"draws"`
	Losses int `json:"losses"`
	Points int `json:"points"`
	Seeds  int `json:"seeds"` // the row's seeds minus the column's, summed
}

// gamePoints returns the points of the South and North entrants of a game.
func gamePoints(p Played) (south, north int) {
	switch {
	case p.SouthSeeds > p.NorthSeeds:
		return WinPoints, 0
	case p.SouthSeeds < p.NorthSeeds:
		return 0, WinPoints
	}
	return DrawPoints, DrawPoints
}

// Cross returns the cross-table of n entrants: cell [i][j] is entrant i's
// record against entrant j.
func Cross(n int, games []Played) [][]Cell {
	c := make([][]Cell, n)
	for i := range c {
		c[i] = make([]Cell, n)
	}
	add := func(a, b, pa, sa, sb int) {
		if a < 0 || a >= n || b < 0 || b >= n {
			return
		}
		x := &c[a][b]
		x.Games++
		x.Points += pa
		x.Seeds += sa - sb
		switch pa {
		case WinPoints:
			x.Wins++
		case DrawPoints:
			x.Draws++
		default:
			x.Losses++
		}
	}
	for _, g := range games {
		ps, pn := gamePoints(g)
		add(g.South, g.North, ps, g.SouthSeeds, g.NorthSeeds)
		add(g.North, g.South, pn, g.NorthSeeds, g.SouthSeeds)
	}
	return c
}

// Compute returns the standings of players from their games and byes (the
// entrant sitting out each round, given byePoints). Entrants are ranked by
// points, then total seeds, then head-to-head points among those still
// tied, then entrant order; Elo ratings are computed from the same games.
func Compute(players []string, games []Played, byes map[int]int, byePoints int) []Standing {
	n := len(players)
	table := make([]Standing, n)
	for i, p := range players {
		table[i] = Standing{Entrant: i, Player: p}
	}
	valid := func(e int) bool { return e >= 0 && e < n }
	for _, g := range games {
		if !valid(g.South) || !valid(g.North) {
			continue
		}
		ps, pn := gamePoints(g)
		for _, x := range []struct{ e, pts, seeds int }{{g.South, ps, g.SouthSeeds}, {g.North, pn, g.NorthSeeds}} {
			s := &table[x.e]
			s.Games++
			s.Points += x.pts
			s.Seeds += x.seeds
			switch x.pts {
			case WinPoints:
				s.Wins++
			case DrawPoints:
				s.Draws++
			default:
				s.Losses++
			}
		}
	}
	for _, e := range byes {
		if valid(e) {
			table[e].Byes++
			table[e].Points += byePoints
		}
	}
	cross := Cross(n, games)
	for i, r := range Ratings(n, games) {
		table[i].Elo, table[i].EloErr = r.Elo, r.Err95
	}
	// Head-to-head among entrants tied on points and seeds.
	for i := range table {
		for j := range table {
			if i != j && table[i].Points == table[j].Points && table[i].Seeds == table[j].Seeds {
				table[i].HeadToHead += cross[i][j].Points
			}
		}
	}
	slices.SortStableFunc(table, func(a, b Standing) int {
		return cmp.Or(-cmp.Compare(a.Points, b.Points), -cmp.Compare(a.Seeds, b.Seeds),
			-cmp.Compare(a.HeadToHead, b.HeadToHead), cmp.Compare(a.Entrant, b.Entrant))
	})
	for i := range table {
		table[i].Rank = i + 1
		if i > 0 {
			p, s := table[i-1], table[i]
			if p.Points == s.Points && p.Seeds == s.Seeds && p.HeadToHead == s.HeadToHead {
				table[i].Rank = table[i-1].Rank
			}
		}
	}
	return table
}

// Standings returns a tournament's standings, computed from its stored
// results (and byes); it may be called while the tournament runs.
func (s *Store) Standings(ctx context.Context, id int64) ([]Standing, error) {
	in, err := s.Tournament(ctx, id)
	if err != nil {
		return nil, err
	}
	games, err := s.Games(ctx, id)
	if err != nil {
		return nil, err
	}
	byes, err := s.byes(ctx, id)
	if err != nil {
		return nil, err
	}
	table := Compute(in.Config.Labels(), games, byes, WinPoints*legsPerPairing(in.Config))
	for i := range table {
		table[i].Spec = in.Config.Players[table[i].Entrant]
	}
	return table, nil
}

// CrossTable returns a tournament's cross-table from its stored results:
// cell [i][j] is entrant i's record against entrant j, in entrant order.
func (s *Store) CrossTable(ctx context.Context, id int64) ([][]Cell, error) {
	in, err := s.Tournament(ctx, id)
	if err != nil {
		return nil, err
	}
	games, err := s.Games(ctx, id)
	if err != nil {
		return nil, err
	}
	return Cross(len(in.Config.Players), games), nil
}

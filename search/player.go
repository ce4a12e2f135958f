package search

import (
	"context"
	"fmt"
	"time"

	"kalah"
	"kalah/player"
)

// DefaultTime is a searcher's own limit a move when its spec gives neither
// a depth nor a time.
const DefaultTime = time.Second

func init() {
	for _, a := range []struct {
		algo    Algorithm
		summary string
		source  string
	}{
		{Minimax, "minimax, no pruning",
			"the Kalaha search-algorithms thesis, 1.2.3"},
		{AlphaBeta, "minimax with alpha-beta pruning",
			"the Kalaha search-algorithms thesis, 1.2.4 (Figure 3)"},
		{KBAB, "knowledge-based alpha-beta: does not deepen moves that fall max(60-depth,20) behind",
			"the Kalaha search-algorithms thesis, 1.2.5 (Figure 5)"},
	} {
		algo := a.algo
		player.Register(player.Info{
			Name:    algo.String(),
			Usage:   algo.String() + "[:simple|knowledge][:depth=N][:time=D]",
			Summary: a.summary + "; simple or knowledge utility; to a depth or by iterative deepening in a time (default 1s)",
			Source:  a.source,
			Work:    func(player.Spec, kalah.Rules) time.Duration { return DefaultTime },
			New: func(s player.Spec, o player.Options) (player.Player, error) {
				return newFromSpec(algo, s)
			},
		})
	}
	player.RegisterLevel(player.Level{Rank: 40, Name: "hard", Spec: "alphabeta:knowledge:time=1s",
		Description: "alpha-beta search with the thesis's knowledge-based utility, one second a move"})
}

func newFromSpec(algo Algorithm, s player.Spec) (*Player, error) {
	if err := s.Check(1, "depth", "time"); err != nil {
		return nil, err
	}
	u, err := ParseUtility(s.Arg(0, "knowledge"))
	if err != nil {
		return nil, err
	}
	depth, err := s.Int("depth", 0)
	if err != nil {
		return nil, err
	}
	if depth < 0 || depth > MaxDepth {
		return nil, fmt.Errorf("depth=%d out of range (want 1 to %d)", depth, MaxDepth)
	}
	t, err := s.Duration("time", 0)
	if err != nil {
		return nil, err
	}
	if depth == 0 && t == 0 {
		t = DefaultTime
	}
	return &Player{Algorithm: algo, Utility: u, Depth: depth, Time: t}, nil
}

// Player is a searching player: one of the thesis's algorithms with one of
// its utilities, either to a fixed depth or by iterative deepening under a
// time limit a move. It also keeps to the game's clock: it thinks for at
// most the smaller of its own limit and the clock's budget, and stops at
// once, with the best move of the last completed iteration, when the
// context is done.
//
// Depth counts single sowings (an extra turn is a ply of the same side).
// Moves are tried from the house nearest the store leftwards, after the
// best move of the previous iteration, and ties go to the first tried, so
// a fixed-depth search is deterministic. It ignores the pie rule's swap.
//
// A Player is for one game at a time.
type Player struct {
	Algorithm Algorithm
	Utility   Utility
	// Depth is the deepest iteration; zero means as deep as time allows.
	Depth int
	// Time is the player's own limit a move; zero means only the game's
	// clock limits it (and then Depth must be set, or it searches until
	// the game tree ends).
	Time time.Duration
	// Pace is passed to Search (see Params.Pace).
	Pace func()

	last player.Report
}

// Move searches the game's position. Its report's Score is in utility
// units (four a seed), or, when the search reached the end of the game in
// every line, the exact final store difference with Exact set.
func (sp *Player) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	start := time.Now()
	budget := c.Budget()
	if own := (player.Clock{PerMove: sp.Time}).Budget(); own > 0 && (budget == 0 || own < budget) {
		budget = own
	}
	prm := Params{Algorithm: sp.Algorithm, Utility: sp.Utility, Depth: sp.Depth, Pace: sp.Pace}
	if budget > 0 {
		// A tenth more in hand: on a busy machine the operating system may
		// hold the search back for milliseconds between looks at the clock.
		prm.Deadline = start.Add(budget - budget/10)
	}
	p := g.Position()
	res, err := Search(ctx, g.RulesPtr(), p, prm)
	if err != nil {
		return kalah.NoMove, err
	}
	sp.last = player.Report{Nodes: res.Nodes, Depth: res.Depth, Score: res.Score,
		PV: res.PV(), Time: time.Since(start)}
	if res.Resolved {
		// The search saw every line to the end of the game, where both
		// utilities are four times the final store difference.
		sp.last.Score, sp.last.Exact = res.Score/StoreWeight, true
	}
	return res.Move, nil
}

// LastReport says how the last move was chosen.
func (sp *Player) LastReport() player.Report { return sp.last }

// String returns the player's spec.
func (sp *Player) String() string {
	s := sp.Algorithm.String() + ":" + sp.Utility.String()
	if sp.Depth > 0 {
		s += fmt.Sprintf(":depth=%d", sp.Depth)
	}
	if sp.Time > 0 {
		s += ":time=" + sp.Time.String()
	}
	return s
}

package web

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"kalah"
	"kalah/player"
)

// NewTournament asks for a round robin: every pair of players meets Rounds
// times on each side.
type NewTournament struct {
	Name string `json:"name"`
	// Format is "roundrobin" (the default), or "gauntlet" or "swiss" where
	// the Tournaments support them.
	Format        string      `json:"format,omitempty"`
	Rules         kalah.Rules `json:"rules"`
	Players       []string    `json:"players"`
	Rounds        int         `json:"rounds"`
	PerMoveMillis int         `json:"per_move_ms"`
	DelayMillis   int         `json:"delay_ms"`
	Seed          uint64      `json:"seed"`
}

// Standing is one player's line in the table.
type Standing struct {
	Player string  `json:"player"`
	Games  int     `json:"games"`
	Wins   int     `json:"wins"`
	Draws  int     `json:"draws"`
	Losses int     `json:"losses"`
	Points float64 `json:"points"`
	Elo    float64 `json:"elo"`
	// EloErr is the half width of the rating's 95% interval, when known.
	EloErr float64 `json:"elo_err,omitempty"`
}

// Pairing is one game of a tournament.
type Pairing struct {
	South  string       `json:"south"`
	North  string       `json:"north"`
	Game   string       `json:"game,omitempty"`
	Result kalah.Result `json:"result"`
	Score  [2]int       `json:"score"`
	Done   bool         `json:"done"`
}

// TournamentState is a tournament's progress.
type TournamentState struct {
	ID        string      `json:"id"`
	Name      string      `json:"name"`
	Format    string      `json:"format"`
	Rules     string      `json:"rules"`
	Players   []string    `json:"players"`
	Games     []Pairing   `json:"games"`
	Played    int         `json:"played"`
	Total     int         `json:"total"`
	Running   bool        `json:"running"`
	Error     string      `json:"error,omitempty"`
	Standings []Standing  `json:"standings"`
	Cross     [][]float64 `json:"cross"` // Cross[i][j]: points of player i against player j
	Created   time.Time   `json:"created"`
}

// Tournaments is what the page needs of tournaments.
type Tournaments interface {
	Create(ctx context.Context, req NewTournament) (string, error)
	List() []TournamentState
	State(id string) (TournamentState, error)
}

// Director is the built-in Tournaments: it plays round robins one game at
// a time through a Games hub, so every game can be watched.
type Director struct {
	games Games
	ctx   context.Context

	mu    sync.Mutex
	ts    map[string]*TournamentState
	order []string
	seq   int
}

// NewDirector returns a director playing its games on g until ctx ends.
func NewDirector(ctx context.Context, g Games) *Director {
	return &Director{games: g, ctx: ctx, ts: map[string]*TournamentState{}}
}

// Create validates the request and starts the tournament.
func (d *Director) Create(ctx context.Context, req NewTournament) (string, error) {
	if err := req.Rules.Validate(); err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if req.Format != "" && req.Format != "roundrobin" {
		return "", fmt.Errorf("%w: format %q: only round robins here", ErrBadInput, req.Format)
	}
	if len(req.Players) < 2 || len(req.Players) > 12 {
		return "", fmt.Errorf("%w: %d players (want 2 to 12)", ErrBadInput, len(req.Players))
	}
	if req.Rounds == 0 {
		req.Rounds = 1
	}
	if req.Rounds < 0 || req.Rounds > 20 {
		return "", fmt.Errorf("%w: %d rounds (want 1 to 20)", ErrBadInput, req.Rounds)
	}
	if req.PerMoveMillis < 0 || req.PerMoveMillis > 60_000 || req.DelayMillis < 0 || req.DelayMillis > 10_000 {
		return "", fmt.Errorf("%w: clock out of range", ErrBadInput)
	}
	for _, p := range req.Players {
		if p == Human || p == "" {
			return "", fmt.Errorf("%w: tournaments are between computer players", ErrBadInput)
		}
		if _, err := player.New(p, player.Options{Rules: req.Rules}); err != nil {
			return "", fmt.Errorf("%w: %w", ErrBadInput, err)
		}
	}
	d.mu.Lock()
	d.seq++
	id := fmt.Sprintf("t%d", d.seq)
	if req.Name == "" {
		req.Name = fmt.Sprintf("Tournament %d", d.seq)
	}
	t := &TournamentState{ID: id, Name: req.Name, Format: "roundrobin", Rules: req.Rules.String(), Players: slices.Clone(req.Players), Running: true, Created: time.Now()}
	for r := 0; r < req.Rounds; r++ {
		for i := range req.Players {
			for j := range req.Players {
				if i != j {
					t.Games = append(t.Games, Pairing{South: req.Players[i], North: req.Players[j]})
				}
			}
		}
	}
	t.Total = len(t.Games)
	d.tally(t)
	d.ts[id] = t
	d.order = append(d.order, id)
	d.mu.Unlock()
	go d.run(id, req)
	return id, nil
}

func (d *Director) run(id string, req NewTournament) {
	d.mu.Lock()
	total := d.ts[id].Total
	d.mu.Unlock()
	for i := range total {
		d.mu.Lock()
		pr := d.ts[id].Games[i]
		d.mu.Unlock()
		c, err := d.games.Create(d.ctx, NewGame{Rules: req.Rules, South: pr.South, North: pr.North,
			PerMoveMillis: req.PerMoveMillis, DelayMillis: req.DelayMillis, Seed: req.Seed + uint64(i) + 1, Tournament: id})
		if err != nil {
			d.fail(id, err)
			return
		}
		d.mu.Lock()
		d.ts[id].Games[i].Game = c.ID
		d.mu.Unlock()
		st, err := d.wait(c.ID)
		if err != nil {
			d.fail(id, err)
			return
		}
		d.mu.Lock()
		t := d.ts[id]
		t.Games[i].Result, t.Games[i].Score, t.Games[i].Done = st.Result, st.Score, true
		t.Played++
		d.tally(t)
		d.mu.Unlock()
	}
	d.mu.Lock()
	d.ts[id].Running = false
	d.mu.Unlock()
}

// wait follows a game until it is over.
func (d *Director) wait(id string) (State, error) {
	for {
		st, ch, err := d.games.Watch(id)
		if err != nil {
			return State{}, err
		}
		if st.Over {
			return st, nil
		}
		if !st.Live {
			return State{}, fmt.Errorf("game %s stopped unfinished", id)
		}
		select {
		case <-ch:
		case <-d.ctx.Done():
			return State{}, d.ctx.Err()
		}
	}
}

func (d *Director) fail(id string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ts[id].Running = false
	d.ts[id].Error = err.Error()
}

// tally recomputes the standings, cross-table and ratings. d.mu is held.
//
// Ratings are Elo, fitted to every game played so far: starting from 1500,
// each rating moves by its mean expected-score error until the errors
// balance, so the order in which games were played does not matter.
func (d *Director) tally(t *TournamentState) {
	n := len(t.Players)
	idx := map[string]int{}
	for i, p := range t.Players {
		idx[p] = i
	}
	st := make([]Standing, n)
	cross := make([][]float64, n)
	for i := range st {
		st[i].Player = t.Players[i]
		cross[i] = make([]float64, n)
	}
	type res struct {
		a, b int
		sa   float64
	}
	var games []res
	for _, g := range t.Games {
		if !g.Done {
			continue
		}
		a, b := idx[g.South], idx[g.North]
		sa := 0.5
		switch g.Result {
		case kalah.SouthWins:
			sa = 1
			st[a].Wins++
			st[b].Losses++
		case kalah.NorthWins:
			sa = 0
			st[b].Wins++
			st[a].Losses++
		default:
			st[a].Draws++
			st[b].Draws++
		}
		st[a].Games++
		st[b].Games++
		st[a].Points += sa
		st[b].Points += 1 - sa
		cross[a][b] += sa
		cross[b][a] += 1 - sa
		games = append(games, res{a, b, sa})
	}
	elo := make([]float64, n)
	for i := range elo {
		elo[i] = 1500
	}
	played := make([]float64, n)
	for _, g := range games {
		played[g.a]++
		played[g.b]++
	}
	for range 300 {
		grad := make([]float64, n)
		for _, g := range games {
			e := 1 / (1 + math.Pow(10, (elo[g.b]-elo[g.a])/400))
			grad[g.a] += g.sa - e
			grad[g.b] -= g.sa - e
		}
		for i := range elo {
			// Bound ratings of perfect or zero scores so they stay finite.
			elo[i] = math.Max(700, math.Min(2300, elo[i]+200*grad[i]/math.Max(1, played[i])))
		}
	}
	for i := range st {
		st[i].Elo = math.Round(elo[i])
	}
	slices.SortStableFunc(st, func(a, b Standing) int {
		switch {
		case a.Points != b.Points:
			if a.Points > b.Points {
				return -1
			}
			return 1
		}
		return int(b.Elo - a.Elo)
	})
	t.Standings, t.Cross = st, cross
}

// List returns every tournament, newest first.
func (d *Director) List() []TournamentState {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]TournamentState, 0, len(d.order))
	for i := len(d.order) - 1; i >= 0; i-- {
		out = append(out, d.copyLocked(d.ts[d.order[i]]))
	}
	return out
}

// State returns one tournament.
func (d *Director) State(id string) (TournamentState, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.ts[id]
	if !ok {
		return TournamentState{}, fmt.Errorf("%w: tournament %q", ErrNotFound, id)
	}
	return d.copyLocked(t), nil
}

func (d *Director) copyLocked(t *TournamentState) TournamentState {
	c := *t
	c.Players = slices.Clone(t.Players)
	c.Games = slices.Clone(t.Games)
	c.Standings = slices.Clone(t.Standings)
	c.Cross = make([][]float64, len(t.Cross))
	for i := range t.Cross {
		c.Cross[i] = slices.Clone(t.Cross[i])
	}
	return c
}

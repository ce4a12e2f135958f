package web

import (
	"context"
	"fmt"
	"time"

	"kalah"
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

// noTournaments is a page without tournaments.
type noTournaments struct{}

func (noTournaments) Create(ctx context.Context, req NewTournament) (string, error) {
	return "", fmt.Errorf("%w: this page runs no tournaments", ErrNotFound)
}

func (noTournaments) List() []TournamentState { return []TournamentState{} }

func (noTournaments) State(id string) (TournamentState, error) {
	return TournamentState{}, fmt.Errorf("%w: tournament %q", ErrNotFound, id)
}

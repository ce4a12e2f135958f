package tournament_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	_ "kalah/heuristic"
	"kalah/tournament"
)

// A round robin of three deterministic players, each pairing playing every
// first move from both sides, stored in a fresh database.
func Example() {
	dir, err := os.MkdirTemp("", "kalah-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := tournament.Open(filepath.Join(dir, "tournaments.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	id, err := st.Create(ctx, tournament.Config{
		Players:  []string{"first", "greedy", "pekar"},
		Openings: tournament.Forced,
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := st.Run(ctx, id, tournament.RunOptions{}); err != nil {
		log.Fatal(err)
	}
	table, err := st.Standings(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range table {
		fmt.Printf("%d. %-6s %2d games, %2d points, %3d seeds\n", s.Rank, s.Player, s.Games, s.Points, s.Seeds)
	}
	// Output:
	// 1. pekar  24 games, 36 points, 657 seeds
	// 2. greedy 24 games, 28 points, 587 seeds
	// 3. first  24 games,  8 points, 484 seeds
}

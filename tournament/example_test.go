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

// A round robin of three players (random draws from the tournament seed), each pairing playing every
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
		Players:  []string{"first", "greedy", "random"},
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
	// 1. greedy 24 games, 42 points, 696 seeds
	// 2. first  24 games, 22 points, 621 seeds
	// 3. random 24 games,  8 points, 411 seeds
}

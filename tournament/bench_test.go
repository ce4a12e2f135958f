package tournament

import (
	"context"
	"path/filepath"
	"testing"
)

// benchTournament is a round robin of fast players: 72 games.
func benchTournament() Config {
	return Config{Players: []string{"random", "first", "greedy", "pekar"}, Openings: Forced}
}

// BenchmarkRunLocal measures a whole round robin of fast players stored in
// SQLite, played by the local pool: games a second is the figure to watch.
func BenchmarkRunLocal(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "1worker", 2: "2workers"}[workers], func(b *testing.B) {
			ctx := context.Background()
			st, err := Open(filepath.Join(b.TempDir(), "t.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			games := 0
			b.ResetTimer()
			for b.Loop() {
				id, err := st.Create(ctx, benchTournament())
				if err != nil {
					b.Fatal(err)
				}
				if err := st.Run(ctx, id, RunOptions{Executor: Local{Workers: workers}}); err != nil {
					b.Fatal(err)
				}
				games += 72
			}
			b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
		})
	}
}

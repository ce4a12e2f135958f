package dist

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"kalah/tournament"
)

func benchConfig() tournament.Config {
	return tournament.Config{Players: []string{"random", "first", "greedy", "pekar"}, Openings: tournament.Forced}
}

// BenchmarkEmbedded measures a round robin of fast players (72 games) run
// through the embedded NATS server with two in-process worker slots.
func BenchmarkEmbedded(b *testing.B) {
	ctx := context.Background()
	st, err := tournament.Open(filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	emb, err := StartEmbedded(ctx, EmbeddedConfig{Slots: 2})
	if err != nil {
		b.Fatal(err)
	}
	defer emb.Close()
	games := 0
	b.ResetTimer()
	for b.Loop() {
		id, err := st.Create(ctx, benchConfig())
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Run(ctx, id, tournament.RunOptions{Executor: emb.Executor}); err != nil {
			b.Fatal(err)
		}
		games += 72
	}
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
}

// BenchmarkTwoWorkerProcesses measures the same round robin played by two
// "kalah worker" processes (one game at a time each) joined over loopback.
func BenchmarkTwoWorkerProcesses(b *testing.B) {
	if testing.Short() {
		b.Skip("builds the kalah binary")
	}
	bin := filepath.Join(b.TempDir(), "kalah")
	if out, err := exec.Command("go", "build", "-o", bin, "kalah/cmd/kalah").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := tournament.Open(filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	l := fmt.Sprintf("127.0.0.1:%d", freePort(b))
	emb, err := StartEmbedded(ctx, EmbeddedConfig{Listen: l, Slots: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer emb.Close()
	for i := range 2 {
		w := exec.CommandContext(ctx, bin, "worker", "--join", emb.Server.URL(), "--jobs", "1", "--name", fmt.Sprint("bench", i))
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		defer w.Wait()
	}
	// Warm up: let both workers connect.
	id, err := st.Create(ctx, benchConfig())
	if err != nil {
		b.Fatal(err)
	}
	if err := st.Run(ctx, id, tournament.RunOptions{Executor: emb.Executor}); err != nil {
		b.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	games := 0
	b.ResetTimer()
	for b.Loop() {
		id, err := st.Create(ctx, benchConfig())
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Run(ctx, id, tournament.RunOptions{Executor: emb.Executor}); err != nil {
			b.Fatal(err)
		}
		games += 72
	}
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
	b.StopTimer()
	cancel()
}

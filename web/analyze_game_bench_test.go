package web

import (
	"os"
	"path/filepath"
	"testing"

	"kalah"
	"kalah/server"
)

// BenchmarkPageGameAnalysis times the page's analysis of each recorded
// Kalah(6,4) game of engine/testdata/games (POST /api/analyze/game with
// the record, the page's 10 s budget) on a fresh server each iteration,
// with the endgame databases of KALAH_BENCH_EGDB_DIR ("-" or unset: none),
// and reports how many of its positions came out exact. docs/PERFORMANCE.md
// ("Whole-game analysis") records it:
//
//	KALAH_BENCH_EGDB_DIR=DIR go test -run '^$' -bench PageGameAnalysis -benchtime 1x -count 5 ./web
func BenchmarkPageGameAnalysis(b *testing.B) {
	files, err := filepath.Glob("../engine/testdata/games/*.txt")
	if err != nil || len(files) != 3 {
		b.Fatalf("want three recorded games: %v %v", files, err)
	}
	dir := os.Getenv("KALAH_BENCH_EGDB_DIR")
	if dir == "" {
		dir = "-"
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(f), func(b *testing.B) {
			var exact, plies int
			for range b.N {
				b.StopTimer()
				srv, _ := newServerWith(b, server.Config{}, Options{Analyzer: &Engine{EgdbDir: dir}})
				b.StartTimer()
				var out []Ply
				if code := call(b, srv, "POST", Prefix+"analyze/game", GameAnalysisRequest{Rules: kalah.Standard(), Record: string(text), Millis: 10_000}, &out); code != 200 {
					b.Fatalf("status %d", code)
				}
				b.StopTimer()
				exact, plies = 0, len(out)
				for _, p := range out {
					if p.Exact {
						exact++
					}
				}
			}
			b.ReportMetric(float64(exact), "exact")
			b.ReportMetric(float64(plies), "positions")
		})
	}
}

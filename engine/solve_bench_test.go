package engine

import (
	"context"
	"os"
	"strconv"
	"testing"

	"kalah"
)

// BenchmarkSolve63 solves Kalah(6,3) from the start on one thread, without
// a database.
func BenchmarkSolve63(b *testing.B) {
	if v := os.Getenv("TT_MIN"); v != "" {
		ttMinSeeds, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("ETC_MIN"); v != "" {
		etcMinSeeds, _ = strconv.Atoi(v)
	}
	r := kalah.Standard()
	r.Seeds = 3
	for b.Loop() {
		md, _ := strconv.Atoi(os.Getenv("MAXD"))
		e, _ := New(r, Options{TableMB: 64, Threads: 1, MaxDepth: md})
		res, err := e.Solve(context.Background(), r.Start())
		if err != nil || res.Value != 2 {
			b.Fatalf("%+v %v", res, err)
		}
		b.ReportMetric(float64(res.Nodes), "nodes")
	}
}

// TestSolve64 solves standard Kalah(6,4) from the start: long, so only with
// KALAH_LONG=1.
func TestSolve64(t *testing.T) {
	if os.Getenv("KALAH_LONG") == "" {
		t.Skip("set KALAH_LONG=1 to solve Kalah(6,4)")
	}
	r := kalah.Standard()
	e, _ := New(r, Options{TableMB: 1024})
	res, err := e.Solve(context.Background(), r.Start())
	if err != nil {
		t.Fatal(err)
	}
	if res.Value != 8 || len(res.Best) != 1 || res.Best[0] != 3 {
		t.Fatalf("Kalah(6,4): %+v, want +8 by move 3 only", res)
	}
	t.Logf("%+v", res)
}

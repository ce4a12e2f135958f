package main

import (
	"context"
	"fmt"

	"kalah/engine"
)

func init() {
	register(&command{name: "bench", summary: "search fixed positions to a fixed depth: node signature and speed", run: runBench})
}

func runBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench", "", "Searches fixed positions to fixed depths on one thread and prints the total\nnode count (a signature that changes only when search behaviour changes) and\nthe speed.")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	res, err := engine.Bench(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "positions: %d\ntime: %v\nnodes/s: %.0f\nsignature: %d\n", len(engine.BenchPositions), res.Elapsed, res.NodesPerSecond(), res.Nodes)
	return nil
}

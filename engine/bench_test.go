package engine

import (
	"context"
	"testing"
)

// benchSignature is the node count of Bench. A change in search behaviour
// changes it: check that the change is intended (and stronger in self-play),
// then update it.
const benchSignature = 1348736

func TestBenchSignature(t *testing.T) {
	res, err := Bench(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Nodes != benchSignature {
		t.Errorf("bench signature %d, want %d: search behaviour changed", res.Nodes, benchSignature)
	}
}

func BenchmarkBench(b *testing.B) {
	var nodes uint64
	for b.Loop() {
		res, err := Bench(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		nodes += res.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

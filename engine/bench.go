package engine

import (
	"context"
	"time"

	"kalah"
)

// BenchPosition is one position of the bench: rules, position and depth.
type BenchPosition struct {
	Rules    string // preset name
	Position string // in the notation of kalah.ParsePosition; "" for the start
	Depth    int
}

// BenchPositions are searched by Bench. Changing them changes the signature.
var BenchPositions = []BenchPosition{
	{"kalah", "", 14},
	{"kalah", "0,5,5,5,5,4/4,4,4,4,4,4 1-0 N", 14},
	{"kalah", "1,0,7,7,7,6/5,5,5,5,0,6 1-1 S", 14},
	{"kalah", "3,0,2,8,1,0/2,9,0,4,1,3 8-7 S", 18},
	{"egyptian", "", 14},
	{"thesis", "", 12},
	{"dec1961", "", 16},
	{"ludii", "2,2,0,5,6,1/0,4,1,7,0,3 10-7 N", 18},
}

// BenchResult is what Bench measured.
type BenchResult struct {
	Nodes   uint64        // the signature: total nodes searched
	Elapsed time.Duration // search time
}

// NodesPerSecond returns the search speed.
func (b BenchResult) NodesPerSecond() float64 {
	if b.Elapsed <= 0 {
		return 0
	}
	return float64(b.Nodes) / b.Elapsed.Seconds()
}

// Bench searches every bench position to its fixed depth on one thread with
// a fresh 16 MiB table, without endgame databases. The total node count is a
// signature: it changes only when search behaviour changes.
func Bench(ctx context.Context) (BenchResult, error) {
	var out BenchResult
	for _, bp := range BenchPositions {
		r, err := kalah.PresetRules(bp.Rules)
		if err != nil {
			return out, err
		}
		p := r.Start()
		if bp.Position != "" {
			if p, err = kalah.ParsePosition(bp.Position); err != nil {
				return out, err
			}
		}
		e, err := New(r, Options{TableMB: 16, Threads: 1})
		if err != nil {
			return out, err
		}
		res, err := e.SearchDepth(ctx, p, bp.Depth)
		if err != nil {
			return out, err
		}
		out.Nodes += res.Nodes
		out.Elapsed += res.Time
	}
	return out, nil
}

package egdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"kalah"
)

// naive is a plain minimax over kalah.Position (the rules library, not this
// package's sowing): the final store difference for the side to move minus
// the current one.
func naive(r *kalah.Rules, p kalah.Position) int {
	me := p.ToMove()
	diff := func(q *kalah.Position, s kalah.Side) int { return q.Store(s) - q.Store(s.Other()) }
	if p.Over(r) {
		q := p
		q.Settle(r)
		return diff(&q, me) - diff(&p, me)
	}
	best := -1 << 30
	for _, m := range p.Moves() {
		q := p
		q.Play(r, int(m))
		fin := naive(r, q) + diff(&q, q.ToMove())
		if q.ToMove() != me {
			fin = -fin
		}
		best = max(best, fin-diff(&p, me))
	}
	return best
}

func variants(n int) []kalah.Rules {
	var out []kalah.Rules
	for _, end := range []kalah.EndRule{kalah.EitherEmpty, kalah.MoverStuck, kalah.MoverEmpty} {
		for _, ec := range []bool{false, true} {
			for _, so := range []bool{false, true} {
				out = append(out, kalah.Rules{Houses: n, Seeds: 1, End: end, EmptyCapture: ec, SowOpponentStore: so})
			}
		}
	}
	return out
}

func TestRankRoundTrip(t *testing.T) {
	for _, m := range []int{2, 4, 12} {
		for k := 0; k <= 6; k++ {
			h := make([]uint8, m)
			for r := uint64(0); r < Count(k, m); r++ {
				unrank(h, k, r)
				sum := 0
				for _, x := range h {
					sum += int(x)
				}
				if sum != k || Rank(h) != r {
					t.Fatalf("m=%d k=%d rank %d: unrank gives %v (sum %d), rank back %d", m, k, r, h, sum, Rank(h))
				}
			}
		}
	}
}

// TestBuildMatchesNaive checks every entry of small databases against the
// naive minimax, for every rule switch that changes values.
func TestBuildMatchesNaive(t *testing.T) {
	for _, tc := range []struct{ n, k int }{{1, 12}, {2, 10}, {3, 7}, {4, 5}} {
		for _, r := range variants(tc.n) {
			t.Run(fmt.Sprintf("%s/k%d", r, tc.k), func(t *testing.T) {
				db, err := Build(context.Background(), r, tc.k, BuildOptions{Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				m := 2 * tc.n
				h := make([]uint8, m)
				for k := 0; k <= tc.k; k++ {
					for rank := uint64(0); rank < Count(k, m); rank++ {
						unrank(h, k, rank)
						south, north := make([]int, tc.n), make([]int, tc.n)
						for i := range tc.n {
							south[i], north[i] = int(h[i]), int(h[tc.n+i])
						}
						p, err := kalah.NewPosition(south, north, 0, 0, kalah.South)
						if err != nil {
							t.Fatal(err)
						}
						want := naive(&r, p)
						got, ok := db.Value(h, k)
						if !ok || got != want {
							t.Fatalf("%v (%s): database %d, naive %d", h, p, got, want)
						}
						if at := db.ValueIndex(db.Index(h, k)); at != got {
							t.Fatalf("%v (%s): ValueIndex(Index) %d, Value %d", h, p, at, got)
						}
					}
				}
			})
		}
	}
}

func TestFile(t *testing.T) {
	r := kalah.Rules{Houses: 3, Seeds: 3}
	db, err := Build(context.Background(), r, 8, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, FileName(r, 8))
	if err := db.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if db.Path() != path {
		t.Errorf("written to %s, Path() = %q", path, db.Path())
	}
	// Open maps the file, Load reads it into memory: the same database.
	openers := map[string]func(string) (*DB, error){
		"Open": func(p string) (*DB, error) { return Open(p, false) },
		"Load": Load,
	}
	for name, open := range openers {
		got, err := open(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := got.Check(r); err != nil {
			t.Fatal(err)
		}
		if got.Seeds() != 8 || got.Entries() != db.Entries() || got.Entries() != Size(3, 8) || got.Path() != path {
			t.Fatalf("%s: opened %s (%s), built %s", name, got.Describe(), got.Path(), db.Describe())
		}
		for i := range db.vals {
			if db.vals[i] != got.vals[i] {
				t.Fatalf("%s: entry %d: file %d, built %d", name, i, got.vals[i], db.vals[i])
			}
		}
		if err := got.Close(); err != nil {
			t.Fatal(err)
		}
	}

	other := r
	other.EmptyCapture = true
	if err := db.Check(other); !errors.Is(err, ErrMismatch) {
		t.Errorf("check with empty capture: %v, want ErrMismatch", err)
	}
	other = r
	other.Houses = 4
	if err := db.Check(other); !errors.Is(err, ErrMismatch) {
		t.Errorf("check with 4 houses: %v, want ErrMismatch", err)
	}
	other = r
	other.EarlyEnd = true
	if err := db.Check(other); !errors.Is(err, ErrUnsupported) {
		t.Errorf("check with early end: %v, want ErrUnsupported", err)
	}
	same := r
	same.Seeds, same.First, same.Pie = 5, kalah.North, true
	if err := db.Check(same); err != nil {
		t.Errorf("seeds, first side and pie do not change values: %v", err)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hlen := fixedHeader + 8*(8+2) + 4
	for name, bad := range map[string][]byte{
		"payload byte flipped": flip(data, len(data)-7),
		"header byte flipped":  flip(data, 13),
		"offset flipped":       flip(data, fixedHeader+9),
		"magic":                flip(data, 0),
		"truncated":            data[:len(data)-1],
		"truncated header":     data[:hlen-2],
		"padded":               append(append([]byte{}, data...), 0),
		"empty":                nil,
	} {
		p := filepath.Join(dir, "bad.egdb")
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		for how, open := range openers {
			if db, err := open(p); !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: %s gave %v, want ErrCorrupt", name, how, err)
				if db != nil {
					db.Close()
				}
			}
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.egdb")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want ErrNotExist", err)
	}
	// Skipping the payload check still catches it with Verify.
	p := filepath.Join(dir, "bad.egdb")
	if err := os.WriteFile(p, flip(data, len(data)-3), 0o644); err != nil {
		t.Fatal(err)
	}
	lazy, err := Open(p, true)
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	if err := lazy.Verify(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Verify of a flipped payload: %v, want ErrCorrupt", err)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 0x10
	return c
}

func TestBuildCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, kalah.Standard(), 10, BuildOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v", err)
	}
}

// BenchmarkBuild builds the Kalah(6,*) database of KALAH_BENCH_BUILD seeds
// (default 12) in memory on every core; 17 is the database kalah solve
// builds for Kalah(6,4) from nothing.
func BenchmarkBuild(b *testing.B) {
	k := 12
	if v, err := strconv.Atoi(os.Getenv("KALAH_BENCH_BUILD")); err == nil {
		k = v
	}
	for b.Loop() {
		db, err := Build(context.Background(), kalah.Standard(), k, BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	b.ReportMetric(float64(Size(6, k)), "entries")
}

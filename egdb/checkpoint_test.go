package egdb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kalah"
)

// TestBuildResumes: a build with checkpoints stopped once its progress
// passes 40% (between two levels, within one, or killed: its parts as
// they stood, with no checkpoint at the stop) resumes from where its parts
// left it, the first progress of the second run at 40% or more (at least
// where the last checkpoint was, for the kill), and writes the same file,
// byte for byte, as a build never stopped. A part whose bytes went bad,
// or one of other rules, is not taken: the build computes it again.
func TestBuildResumes(t *testing.T) {
	r := kalah.Standard()
	const k = 13 // 5.2 million entries: its last counts take most of the work, as the 24-seed database's do
	dir := t.TempDir()
	whole, err := Build(context.Background(), r, k, BuildOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "whole.egdb")
	if err := whole.WriteFile(want); err != nil {
		t.Fatal(err)
	}
	wantBytes, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	whole.Close()
	total := Size(r.Houses, k)

	for _, tc := range []struct {
		name string
		// stop: how the first run ends once its progress passes 40%
		stop string // "between" levels, "within" one (from another goroutine), "kill"
		// spoil changes the parts the first run left before the second.
		spoil func(t *testing.T, prefix string)
		// least is the least first progress of the second run, of total.
		least float64
	}{
		{name: "stopped between levels", stop: "between", least: 0.4},
		{name: "stopped within a level", stop: "within", least: 0.4},
		{name: "killed", stop: "kill"}, // from where its parts were, killedAt
		{name: "a part gone bad", stop: "between", spoil: func(t *testing.T, prefix string) {
			p := PartPath(prefix, 10)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-7] ^= 1
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "parts of other rules", stop: "between", spoil: func(t *testing.T, prefix string) {
			other := r
			other.EmptyCapture = !other.EmptyCapture
			if _, err := Build(context.Background(), other, 6, BuildOptions{Workers: 2, Checkpoints: prefix}); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			prefix := filepath.Join(dir, FileName(r, k))
			kept := filepath.Join(t.TempDir(), "kept")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stoppedAt uint64
			var killedAt uint64 // the work the parts held when the kill was simulated
			_, err := Build(ctx, r, k, BuildOptions{
				Workers: 2, Checkpoints: prefix, CheckpointEvery: time.Nanosecond,
				Saved: func(seeds int, done uint64, err error) {
					if err != nil {
						t.Errorf("checkpoint of %d seeds: %v", seeds, err)
					}
				},
				Progress: func(done, total uint64) {
					if stoppedAt != 0 || float64(done) < 0.4*float64(total) {
						return
					}
					stoppedAt = done
					switch tc.stop {
					case "between":
						cancel()
					case "within":
						go func() {
							time.Sleep(time.Millisecond)
							cancel()
						}()
					case "kill":
						// The parts as they stand, as a kill -9 would leave
						// them: the checkpoint of the level just done is
						// not written yet.
						killedAt = copyParts(t, prefix, kept)
						cancel()
					}
				},
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("stopped build: %v, want context.Canceled", err)
			}
			if tc.stop == "kill" {
				if err := RemoveCheckpoints(prefix); err != nil {
					t.Fatal(err)
				}
				copyParts(t, kept, prefix)
				if killedAt < uint64(0.3*float64(total)) {
					t.Fatalf("the parts held %d of %d when killed: want a checkpoint of every level", killedAt, total)
				}
			}
			if tc.spoil != nil {
				tc.spoil(t, prefix)
			}
			var first uint64
			told := Checkpointed(prefix, r, k)
			db, err := Build(context.Background(), r, k, BuildOptions{Workers: 2, Checkpoints: prefix, Progress: func(done, total uint64) {
				if first == 0 {
					first = done
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			t.Logf("stopped at %.1f%%, resumed from %.1f%%", 100*float64(stoppedAt)/float64(total), 100*float64(first)/float64(total))
			if tc.spoil == nil && told != first {
				t.Errorf("Checkpointed said %d done, the build resumed from %d", told, first)
			}
			if tc.stop == "kill" && first < killedAt {
				t.Errorf("the second run's first progress is %d, below the %d its parts held", first, killedAt)
			}
			if float64(first) < tc.least*float64(total) {
				t.Errorf("the second run's first progress is %d of %d (%.1f%%), want %.0f%% or more", first, total, 100*float64(first)/float64(total), 100*tc.least)
			}
			got := filepath.Join(dir, "resumed.egdb")
			if err := db.WriteFile(got); err != nil {
				t.Fatal(err)
			}
			gotBytes, err := os.ReadFile(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gotBytes, wantBytes) {
				t.Fatal("the resumed build's file differs from an uninterrupted build's")
			}
			if err := RemoveCheckpoints(prefix); err != nil {
				t.Fatal(err)
			}
			if left, _ := filepath.Glob(prefix + ".*"); len(left) != 0 {
				t.Errorf("RemoveCheckpoints left %v", left)
			}
		})
	}
}

// copyParts copies the part files of prefix to those of another prefix,
// returning the work they hold.
func copyParts(t *testing.T, from, to string) uint64 {
	t.Helper()
	var work uint64
	for j := 0; j <= MaxSeeds; j++ {
		b, err := os.ReadFile(PartPath(from, j))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(PartPath(to, j), b, 0o644); err != nil {
			t.Fatal(err)
		}
		work += binary.LittleEndian.Uint64(b[32:]) // the entries it holds done
	}
	return work
}

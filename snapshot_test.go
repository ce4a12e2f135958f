package kalah

import (
	"slices"
	"testing"
)

// TestSnapshotStaysAsTaken: a snapshot shares the game's history, yet no
// later change of the game shows in it: moves appended, moves undone and
// others played in their place, the snapshot played on by its reader.
func TestSnapshotStaysAsTaken(t *testing.T) {
	g, _ := NewGame(Standard())
	for _, m := range []Move{3, 1, 6} {
		if _, err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	snap := g.Snapshot()
	want := slices.Clone(snap.Moves())
	wantPos := snap.Position()
	check := func(when string) {
		t.Helper()
		if !slices.Equal(snap.Moves(), want) || snap.Position() != wantPos || snap.Len() != len(want) {
			t.Fatalf("%s: the snapshot changed: %v", when, snap.Moves())
		}
		for i, p := range snap.Moves() {
			if snap.PositionAt(i) != g0PositionAt(t, want, i) {
				t.Fatalf("%s: position %d changed", when, i)
			}
			_ = p
		}
	}
	g.Play(g.Legal()[0])
	check("after a move")
	for g.Len() > 1 {
		g.Undo()
	}
	for g.Len() < 5 && !g.Over() {
		// Another move than the snapshot's at each ply it has.
		m := g.Legal()[0]
		if i := g.Len(); i < len(want) && m == want[i].Move {
			m = g.Legal()[len(g.Legal())-1]
		}
		g.Play(m)
	}
	check("after undoing and playing others")
	snap2 := g.Snapshot()
	snap2.Play(snap2.Legal()[0])
	if snap2.Len() != g.Len()+1 {
		t.Fatal("a snapshot played on")
	}
	g.Play(g.Legal()[len(g.Legal())-1])
	if slices.Equal(snap2.Moves()[:g.Len()], g.Moves()) && snap2.Moves()[g.Len()-1] == g.Moves()[g.Len()-1] && g.Legal()[0] != g.Legal()[len(g.Legal())-1] {
		t.Fatal("a snapshot's move and the game's share memory")
	}
	check("at the end")
}

// g0PositionAt replays moves from the start to the position before move i.
func g0PositionAt(t *testing.T, moves []Played, i int) Position {
	g, _ := NewGame(Standard())
	for _, p := range moves[:i] {
		if _, err := g.Play(p.Move); err != nil {
			t.Fatal(err)
		}
	}
	return g.Position()
}

func BenchmarkPublishCopy(b *testing.B) {
	g, _ := NewGame(Standard())
	for !g.Over() && g.Len() < 40 {
		g.Play(g.Legal()[0])
	}
	b.Run("Clone", func(b *testing.B) {
		for b.Loop() {
			_ = g.Clone()
		}
	})
	b.Run("Snapshot", func(b *testing.B) {
		for b.Loop() {
			_ = g.Snapshot()
		}
	})
}

package store

import (
	"context"
	"testing"

	"kalah"
	"kalah/internal/identity"
)

// TestGameRecordAfterSwap stores a Manchester game in which the player
// seated North swaps: the record read back seats the players as at the
// end and says it swapped, so the name beside the side its result names is
// the winner's, and Replay gives the game its starters again.
func TestGameRecordAfterSwap(t *testing.T) {
	ctx := context.Background()
	s, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, _ := kalah.PresetRules("manchester")
	seats := [2]Seat{{Name: "alice", Kind: "bot", ID: identity.Of(identity.Bot, "alice")}, {Name: "bob", Kind: "bot", ID: identity.Of(identity.Bot, "bob")}}
	id, err := s.CreateGame(ctx, NewGame{Rules: r, Seats: seats})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := kalah.NewGame(r)
	g.Players = [2]string{"alice", "bob"}
	for ply := 0; !g.Over(); ply++ {
		m := g.Legal()[0]
		if ply == 1 {
			m = kalah.Swap
		}
		side := g.ToMove()
		if _, err := g.Play(m); err != nil {
			t.Fatal(err)
		}
		rm := kalah.RecordMove{Side: side, House: int(m)}
		if m == kalah.Swap {
			rm = kalah.RecordMove{Side: side, Swap: true}
		}
		if err := s.AddMove(ctx, id, ply, rm); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishGame(ctx, id, g.Record()); err != nil {
		t.Fatal(err)
	}
	sg, err := s.Game(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rec := sg.Record
	if !rec.Swapped || rec.Players != (kalah.Players{South: "bob", North: "alice"}) {
		t.Fatalf("stored record: players %+v swapped %v; want bob South, alice North, swapped", rec.Players, rec.Swapped)
	}
	if w, ok := rec.Result.Winner(); ok {
		name := map[kalah.Side]string{kalah.South: rec.Players.South, kalah.North: rec.Players.North}[w]
		if name != g.Player(w) {
			t.Errorf("the result %v names %s, but %s won", rec.Result, name, g.Player(w))
		}
	}
	kg, err := rec.Game()
	if err != nil {
		t.Fatal(err)
	}
	if kg.Players != g.Players {
		t.Errorf("replayed players %v, want %v", kg.Players, g.Players)
	}
	if rg, err := Replay(rec); err != nil || rg.Players != g.Players {
		t.Errorf("Replay: players %v (%v), want %v", rg.Players, err, g.Players)
	}
}

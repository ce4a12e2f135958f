package round

import (
	"testing"

	"kalah/internal/identity"
)

func TestRegistryReserveTakesAllOrNone(t *testing.T) {
	g := NewRegistry()
	a, b := identity.Of(identity.Bot, "alpha"), identity.Of(identity.Bot, "beta")
	busy, r := New(1), New(2)
	seats := [2]*Seat{BotSeat(a), BotSeat(b)}
	if !g.Add(busy, [2]*Seat{BotSeat(b), {Human: true}}, nil) {
		t.Fatal("Add refused on an open registry")
	}
	if taken, ok := g.Reserve(r, seats, [2]bool{true, true}, true); !ok || taken != [2]bool{} {
		t.Fatalf("all or none with beta playing: taken %v ok %v, want none", taken, ok)
	}
	if g.Seated(a.Key()) != nil {
		t.Fatal("alpha kept though the reservation took none")
	}
	if taken, _ := g.Reserve(r, seats, [2]bool{true, true}, false); taken != [2]bool{true, false} {
		t.Fatalf("those free: taken %v, want alpha only", taken)
	}
	freed := g.Freed()
	g.Release(busy, [2]*Seat{BotSeat(b), {Human: true}})
	select {
	case <-freed:
	default:
		t.Fatal("Release did not wake those waiting for a free bot")
	}
	if taken, _ := g.Reserve(r, seats, [2]bool{true, true}, true); taken != [2]bool{true, true} {
		t.Fatalf("after beta's game: taken %v, want both (alpha is r's already)", taken)
	}
	if g.Seated(a.Key()) != r || g.Seated(b.Key()) != r {
		t.Fatal("both bots should be kept for r")
	}
	g.Close()
	if _, ok := g.Reserve(New(3), seats, [2]bool{true, true}, false); ok {
		t.Fatal("Reserve after Close should report the registry closed")
	}
	added := false
	if g.Add(New(4), seats, func() { added = true }) || added {
		t.Fatal("Add after Close should be refused without counting the game")
	}
	if g.Get(1) != busy || g.Len() != 1 {
		t.Fatalf("live: Get(1) %v, Len %d", g.Get(1), g.Len())
	}
	g.Remove(busy)
	if g.Len() != 0 || len(g.All()) != 0 {
		t.Fatal("Remove left the game live")
	}
}

package kalah_test

import (
	"encoding/json"
	"strings"
	"testing"

	"kalah"
)

// swapGame plays a Manchester game in which bob, who started North,
// swaps after alice's first move and then both take their first legal
// house until the end.
func swapGame(t *testing.T) *kalah.Game {
	t.Helper()
	r, err := kalah.PresetRules("manchester")
	if err != nil {
		t.Fatal(err)
	}
	g, err := kalah.NewGame(r)
	if err != nil {
		t.Fatal(err)
	}
	g.Players = [2]string{"alice", "bob"}
	if _, err := g.Play(1); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Play(kalah.Swap); err != nil {
		t.Fatal(err)
	}
	for !g.Over() {
		if _, err := g.Play(g.Legal()[0]); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// nameOf returns the name a record gives the side its result names.
func nameOf(t *testing.T, p kalah.Players, r kalah.Result) string {
	t.Helper()
	w, ok := r.Winner()
	if !ok {
		t.Fatalf("result %v names no winner", r)
	}
	if w == kalah.South {
		return p.South
	}
	return p.North
}

// TestSwapRecordNamesWinner records a Manchester game with a swap as JSON
// and as text and reads both back: the name beside the side the result
// names is the winner's, the record says it swapped, and the game read
// back has its players by the side each started on again.
func TestSwapRecordNamesWinner(t *testing.T) {
	g := swapGame(t)
	ws, ok := g.Result().Winner()
	if !ok {
		t.Skip("the game was drawn; no winner to name")
	}
	winner := g.Player(ws) // who sat on the winning side at the end
	rec := g.Record()
	if !rec.Swapped {
		t.Fatal("a record of a game with a swap has no swapped flag")
	}
	if got := nameOf(t, rec.Players, rec.Result); got != winner {
		t.Fatalf("the record's result %v names %s beside it, but %s won", rec.Result, got, winner)
	}
	if s, n := rec.Starters(); s != "alice" || n != "bob" {
		t.Errorf("Starters = %s, %s; want alice, bob", s, n)
	}

	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"swapped":true`) {
		t.Errorf("the JSON says nothing of the swap: %s", b)
	}
	var back kalah.Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got := nameOf(t, back.Players, back.Result); got != winner {
		t.Errorf("read back, the result %v names %s, but %s won", back.Result, got, winner)
	}
	rg, err := back.Game()
	if err != nil {
		t.Fatal(err)
	}
	if rg.Players != g.Players || rg.Player(ws) != winner {
		t.Errorf("replayed: players %v (winner %s), want %v (winner %s)", rg.Players, rg.Player(ws), g.Players, winner)
	}

	text := g.String()
	if !strings.Contains(text, `[Swapped "yes"]`) {
		t.Errorf("the text has no Swapped tag:\n%s", text)
	}
	tg, err := kalah.ParseGame(text)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Players != g.Players || tg.Player(ws) != winner {
		t.Errorf("text read back: players %v, want %v", tg.Players, g.Players)
	}
	tr := tg.Record()
	if got := nameOf(t, tr.Players, tr.Result); got != winner {
		t.Errorf("text read back: the result names %s, but %s won", got, winner)
	}
}

// TestSwapRecordEarlierForm reads a record written before the swapped
// flag, its players by the side each started on: it reads as it did.
func TestSwapRecordEarlierForm(t *testing.T) {
	g := swapGame(t)
	rec := g.Record()
	old := rec
	old.Swapped = false
	old.Players = kalah.Players{South: "alice", North: "bob"}
	og, err := old.Game()
	if err != nil {
		t.Fatal(err)
	}
	if og.Players != [2]string{"alice", "bob"} {
		t.Errorf("an earlier record's players read as %v", og.Players)
	}
	if again := og.Record(); again.Players != rec.Players || !again.Swapped {
		t.Errorf("written again: %+v swapped %v, want %+v swapped", again.Players, again.Swapped, rec.Players)
	}
	// A swapped flag with no swap among the moves is refused.
	bad := rec
	bad.Moves = nil
	bad.Result, bad.Termination, bad.Final = kalah.Ongoing, kalah.NotOver, kalah.Score{}
	if _, err := bad.Game(); err == nil {
		t.Error("a record that says it swapped with no swap was read")
	}
}

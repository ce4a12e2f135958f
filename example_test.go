package kalah_test

import (
	"encoding/json"
	"fmt"

	"kalah"
)

// A game from the start: moves, an extra turn, the text form.
func ExampleGame() {
	g, err := kalah.NewGame(kalah.Standard())
	if err != nil {
		panic(err)
	}
	g.Players = [2]string{"ann", "ben"}
	eff, _ := g.Play(3) // four seeds from house 3 end in South's store
	fmt.Println(eff&kalah.Extra != 0, g.ToMove())
	g.Play(6)
	g.Play(1)
	fmt.Println(g.MoveText())
	fmt.Println(g.Position())
	g.Undo()
	fmt.Println(g.Len(), g.ToMove(), g.Legal())
	// Output:
	// true South
	// 1. 3+6 1
	// 4,4,0,5,5,0/0,6,6,6,5,5 2-0 S
	// 2 North [1 2 3 4 5 6]
}

// Position is the fast value type engines use: copy it, play on the copy.
func ExamplePosition_Play() {
	r := kalah.Standard()
	p := r.Start()
	q := p // a copy: p is unchanged below
	eff := q.Play(&r, 3)
	fmt.Println(q, eff&kalah.Extra != 0)
	eff = q.Play(&r, 6)
	fmt.Println(q, eff)
	fmt.Println(p)
	// Output:
	// 4,4,0,5,5,5/4,4,4,4,4,4 1-0 S true
	// 4,4,0,5,5,0/5,5,5,5,4,4 2-0 N 0
	// 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S
}

// The position text: South's houses and North's houses, each from its own
// left, the stores, and the side to move.
func ExampleParsePosition() {
	p, err := kalah.ParsePosition("0,0,0,0,0,1/2,3,0,0,1,0 20-21 S")
	if err != nil {
		panic(err)
	}
	r := kalah.Standard()
	eff := p.Play(&r, 6)
	fmt.Println(p, eff&kalah.End != 0, p.Outcome())
	_, err = kalah.ParsePosition("4,4/4 0-0 S")
	fmt.Println(err)
	// Output:
	// 0,0,0,0,0,0/0,0,0,0,0,0 21-27 S true north
	// invalid position: 2 and 1 houses (want the same number on each side, 1 to 16)
}

// Rules are data: start from a preset and change a switch.
func ExamplePresetRules() {
	r, err := kalah.PresetRules("egyptian")
	if err != nil {
		panic(err)
	}
	fmt.Println(r, r.EmptyCapture)
	r.Houses = 4
	fmt.Println(r.Canonical())
	r.Houses = 0
	fmt.Println(r.Validate())
	_, err = kalah.PresetRules("oware")
	fmt.Println(err)
	// Output:
	// egyptian true
	// Kalah(4,4) empty-capture
	// invalid rules: 0 houses (want 1 to 16)
	// invalid rules: unknown preset "oware" (known: kalah, dec1961, gamelink, pekar, thesis, egyptian, manchester, kgp, ludii)
}

// A game text reads back into a game; a record is its JSON.
func ExampleParseGame() {
	g, err := kalah.ParseGame(`[Rules "kalah"]
[South "ann"]
[North "ben"]

1. 3+6 1 *`)
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Len(), g.ToMove(), g.Player(kalah.North))
	rec := g.Record()
	js, _ := json.Marshal(rec.Moves)
	fmt.Println(string(js))
	// Output:
	// 3 South ben
	// [{"side":"S","house":3},{"side":"S","house":6},{"side":"N","house":1}]
}

// Perft counts the move paths of a given length from a position.
func ExamplePerft() {
	r := kalah.Standard()
	for d := 1; d <= 4; d++ {
		fmt.Print(kalah.Perft(&r, r.Start(), d), " ")
	}
	fmt.Println(kalah.PerftTurns(&r, r.Start(), 2))
	// Output: 6 35 185 942 116
}

// The importers read the Manchester, KGP and OpenSpiel formats.
func ExampleParseKGPBoard() {
	p, err := kalah.ParseKGPBoard("<3,1,2,0,4,4,3,3,3>")
	if err != nil {
		panic(err)
	}
	fmt.Println(p)
	fmt.Println(kalah.ManchesterState(p))
	// Output:
	// 0,4,4/3,3,3 1-2 S
	// 3,3,3,2,0,4,4,1
}

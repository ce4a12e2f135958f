package search_test

import (
	"context"
	"fmt"

	"kalah"
	"kalah/search"
)

// A one-ply alpha-beta search with the simple utility finds South's
// capture: house 1's single seed lands in the empty house 2 and takes
// North's nine seeds opposite.
func ExampleSearch() {
	r := kalah.Standard()
	p, _ := kalah.ParsePosition("1,0,8,8,8,8/4,4,4,4,9,4 0-0 S")
	res, _ := search.Search(context.Background(), &r, p, search.Params{Algorithm: search.AlphaBeta, Utility: search.Simple, Depth: 1})
	fmt.Println(res.Move, res.Score/search.StoreWeight, "seeds ahead")
	// Output: 1 10 seeds ahead
}

// Players are usually built from a spec through package player's registry;
// the same player can be built directly.
func ExamplePlayer() {
	pl := &search.Player{Algorithm: search.KBAB, Utility: search.Knowledge, Depth: 6}
	fmt.Println(pl)
	// Output: kbab:knowledge:depth=6
}

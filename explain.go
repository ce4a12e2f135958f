package kalah

import (
	"fmt"
	"strings"
)

// HowToPlay explains the game under rules r in plain words, for people
// new to it: the board, sowing, the extra turn, captures, the end and who
// wins, with r's own numbers and variants. Lines are at most 72 columns.
func HowToPlay(r Rules) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	first, second := r.First, r.First.Other()
	name := fmt.Sprintf("Kalah(%d,%d)", r.Houses, r.Seeds)
	if r.Name != "" {
		name += ", " + r.Name + " rules"
	}
	p("How to play %s", name)
	p("")
	p("The board. Each player has %d houses in a row on their side, and a", r.Houses)
	p("store at their right-hand end. Every house starts with %d seeds; the", r.Seeds)
	p("stores start empty. %s moves first; then the players take turns.", first)
	p("")
	p("Sowing. On your turn, pick one of your houses that holds seeds. Take")
	p("them all and sow them one by one, counter-clockwise: into the next")
	p("houses along your row, then your store, then the opponent's houses")
	if r.SowOpponentStore {
		p("and their store too, and on round to your own houses.")
	} else {
		p("(skipping their store), and on round to your own houses.")
	}
	p("")
	p("Extra turn. If the last seed lands in your own store, you move again.")
	p("")
	p("Capture. If the last seed lands in one of your own houses that was")
	if r.EmptyCapture {
		p("empty, you take it and all the seeds in the opposite house into your")
		p("store (even when the opposite house is empty: then just that seed).")
	} else {
		p("empty, and the opposite house holds seeds, you take them and your")
		p("last seed into your store. Opposite an empty house nothing happens.")
	}
	p("")
	switch r.End {
	case MoverStuck:
		p("The end. The game ends when the player to move has no seeds in")
		p("their houses; the other player then takes the seeds left on their")
		p("side into their store.")
	case MoverEmpty:
		p("The end. The game ends when the houses of the player who just moved")
		p("are empty (unless they have an extra turn with seeds to sow), or the")
		p("player to move has none; the seeds left go to their owner's store.")
	default:
		p("The end. As soon as either player's houses are all empty, the game")
		p("is over, and each player takes the seeds left on their own side")
		p("into their store.")
	}
	if r.EarlyEnd {
		p("It also ends as soon as one store holds more than half of all seeds.")
	}
	if r.Pie {
		p("")
		p("Pie rule. After %s's first move, %s may swap sides instead of", first, second)
		p("moving, taking over the position %s made.", first)
	}
	p("")
	p("Who wins. The player with more seeds in their store wins; equal")
	p("stores are a draw. The score is the difference between the stores.")
	return b.String()
}

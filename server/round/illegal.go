package round

import (
	"fmt"

	"kalah"
)

// IllegalWhy says why m is not a legal move in g ("illegal move 7: there
// is no house 7 (houses 1 to 6); the game is lost"), for a bot that sent
// it: the game is forfeited for it, and the bot hears which move lost it
// first.
func IllegalWhy(g *kalah.Game, m kalah.Move) string {
	pos := g.Position()
	why := "not a move here"
	switch {
	case m == kalah.Swap:
		why = "the pie rule's swap is not open now"
	case int(m) < 1 || int(m) > pos.Houses():
		why = fmt.Sprintf("there is no house %d (houses 1 to %d)", m, pos.Houses())
	case pos.House(pos.ToMove(), int(m)) == 0:
		why = fmt.Sprintf("house %d is empty", m)
	}
	return fmt.Sprintf("illegal move %s: %s; the game is lost", m, why)
}

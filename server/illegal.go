package server

import (
	"fmt"

	"kalah"
)

// illegal says why m, from c, is not a legal move in the position the seat
// was asked about ("move 7: there is no house 7 (houses 1 to 6); the game
// is lost"), or "" if it is legal or no move is asked of c now. The move
// is still delivered: the referee forfeits the game for it; the bot hears
// which move lost it first.
func (b *botSeat) illegal(c *conn, m kalah.Move) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn != c || b.turn == nil {
		return ""
	}
	pos := b.turn.Position
	for _, l := range pos.Moves() {
		if l == m {
			return ""
		}
	}
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

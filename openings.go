package kalah

// Openings returns every sequence of plies moves from the start of r, in
// the order of the moves (a move that earns an extra turn is one ply, the
// same player's next move the next): the forced openings from which tests
// and experiments play, such as the perfect player's from every opening of
// two plies. Lines that end the game sooner are left out.
func Openings(r Rules, plies int) [][]Move {
	var out [][]Move
	var walk func(p Position, line []Move)
	walk = func(p Position, line []Move) {
		if len(line) == plies {
			out = append(out, append([]Move(nil), line...))
			return
		}
		for _, m := range p.Moves() {
			q := p
			if q.Play(&r, int(m))&End != 0 && len(line)+1 < plies {
				continue
			}
			walk(q, append(line, m))
		}
	}
	walk(r.Start(), nil)
	return out
}

// Package book holds the opening and strategy books: exact values computed
// once by the engine (kalah book build, kalah book strategy) and embedded in
// the binary, so that the engine answers their positions at once. The books
// built in are listed in data/README.md.
//
// An opening book holds the exact value of every legal move in every
// position within a few plies of the start: Kalah(6,3) to 6 plies,
// Kalah(6,4) to 3, and of Kalah(6,5) the start alone (its value and optimal
// move: one solve of 18 minutes on two cores).
//
// A strategy book holds what the perfect player needs to answer at once
// beyond the opening book: every position it meets when it follows the books
// (the optimal move nearest the store, Choice) from any position within a
// few plies of the start, whatever its opponent plays, down to positions its
// own search answers within a fixed number of nodes (BuildStrategy). Each
// holds the values of its optimal moves.
//
// # Positions and values
//
// A book covers one rule variant: the number of houses, the empty capture,
// the end rule and sowing into the opponent's store (the switches that
// change values; the book refuses the early end and the pie rule), and the
// positions reachable from the start of Seeds a house by at most Plies moves
// (an extra turn is a ply too), from either side's first move. A position is
// keyed exactly by its houses from the view of the side to move (its houses
// from its left, then the opponent's): a colex rank of the stars-and-bars
// bar positions, distinct for distinct boards. The stores do not enter the
// key: without the early end they never change future play.
//
// Each entry holds, for each house of the mover, the exact value of sowing
// it (or NoMove where the house is empty), in the engine's units: the final
// store difference the mover can force after that move, less the present
// one (see package engine). The position's value is the largest. At the
// last ply only the value and the optimal moves are known: the other moves
// are marked Unknown.
//
// # Building
//
// Build solves each position first reached at the last ply (the frontier)
// with the solver it is given, one after another, and derives every move's
// value in the positions before it from their children's values. A child
// may have been first reached at its parent's ply or before (an extra turn
// shifts the plies of a transposition), so these positions are derived in
// an order where every move leads to a position already done: by the seeds
// left on the board, then by their distance from the stores, which every
// move lowers. A build can save checkpoints of the frontier's values and
// resume from one.
//
// # File
//
// An opening book file is a 32-byte header (magic "KALAHBK\x00", the format
// version 1, the rules switches, seeds a house, plies, two zero bytes, the
// entry count, the payload's CRC-32C and the header's own), then the
// payload: the sorted keys as unsigned varint differences, then the move
// values, one byte a house an entry. A strategy book file is version 2: its
// 40-byte header has the kind (1) and the endgame database's seeds in the
// two bytes, and after the payload's CRC-32C the node limit of its
// frontier, four zero bytes and the header's CRC-32C. Parse refuses a file
// that is truncated, padded, fails a checksum, or holds keys out of order
// or values out of range, with an error wrapping ErrCorrupt.
//
// # Use
//
//	for _, b := range book.For(rules) { // the embedded books whose values hold under rules
//		if vals, ok := b.Lookup(&pos); ok { // each move's exact value
//			...
//		}
//	}
//
// The engine consults the books itself (engine.Options.NoBook turns that
// off), so kalah solve, kalah analyze, hints, the perfect player and the web
// page's analysis answer from them.
package book

// Package engine is the perfect-play engine: an exact solver, a move
// analyser and the strongest timed players (engine and perfect).
//
// # Values
//
// Stores never change future play (except under KGP's early end), so the
// engine searches the value that matters: for the side to move, the final
// store difference it can force from here minus the store difference now.
// The start of Kalah(6,4) has value +8. An extra turn adds the child's value
// instead of negating it. With the pie rule, in the first two moves, a value
// is the final store difference of the player to move (on whichever side it
// ends up) minus the current difference of the side to move.
//
// # Search
//
// Positions are kept on a compact board from the mover's view (its houses,
// then the opponent's, both in sowing order), sown by package
// internal/board (shared with the endgame databases and verified against
// kalah.Position for every rule switch in its tests). The search is MTD(f)
// (null-window alpha-beta probes converging on the value, using that every
// value has the parity of the seeds left) with iterative deepening, a
// lock-free transposition table of two-bound entries keyed exactly on the
// houses (a 64-bit colex rank where it fits; a 64-bit hash for larger boards
// and, with the stores mixed in, under the early end), move ordering (table
// move, extra turns nearest the store first, then by immediate gain; at a
// node expected to cut, ties by the seeds given to the opponent, fewest
// first), enhanced transposition cut-offs, the futility bound (the seeds
// left bound the value), endgame database probes (package egdb), and a
// parallel search over the shared table by split points (young brothers
// wait: a node's children after the first, or the first two where it is
// expected to cut, go to whichever thread is idle; split.go).
// Pie-rule openings are searched above the board search, by player.
//
// # Opening book
//
// Where an opening book built into the binary (package book) holds the
// position, Solve, Analyze, Search and the players answer from it at once,
// exactly, with Result.Book or MoveValue.Book set; a PV from the book ends
// where the book does. Options.NoBook turns this off (benchmarks, tests of
// the search, building books).
//
// # Use
//
//	e, err := engine.New(rules, engine.Options{TableMB: 256, DB: db})
//	res, err := e.Solve(ctx, pos)            // exact value, all optimal moves, a PV
//	vals, err := e.Analyze(ctx, pos, 0)      // exact value of every legal move
//	vals, err = e.Analyze(ctx, pos, time.Second) // estimates with their depth
//	res, err = e.Search(ctx, pos, 100*time.Millisecond) // anytime best move
//
// An Engine keeps its table between calls and serializes them; it is safe
// for concurrent use. Every call stops promptly when its context is done.
// Positions with more than 255 seeds in all are refused (ErrTooLarge).
//
// The players "engine[:time=D][:egdb=K][:tt=MB][:threads=N]" and
// "perfect[:time=D][:egdb=K][:tt=MB][:threads=N]" register themselves with
// package player, with the levels "expert" and "perfect". They search on one
// thread by default and keep a fifth of the clock's budget as a margin. By default they use the
// largest endgame database found in the default directory (egdb.DefaultDir)
// or one of 10 seeds built in memory.
package engine

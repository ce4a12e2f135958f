// Package search holds the searching players of the Kalaha search-algorithms
// thesis: minimax, alpha-beta and knowledge-based alpha-beta (KBAB), each
// with the simple or the knowledge-based utility, to a fixed depth or by
// iterative deepening under a time limit a move. They register themselves
// in package player as "minimax", "alphabeta" and "kbab", with specs such as
// "alphabeta:knowledge:time=2s" or "minimax:simple:depth=6".
//
// The search is copy-make on kalah.Position: each child is a copy of its
// parent played one sowing further, on the stack, so a search allocates
// nothing. The clock and the context are looked at every few thousand
// nodes.
package search

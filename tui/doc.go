// Package tui is the terminal game behind "kalah play": a person plays
// Kalah against any registered computer player (or another person at the
// same keyboard), as the 1961 DEC program let them, in one of two modes.
//
// Both modes share a Session, which holds the game and knows which seats are
// people: it applies a house key, asks a computer player for a move (for the
// computer's own seat, or for whoever is to move when the person presses
// space), rejects illegal keys without changing anything, undoes back to the
// person's last move, restarts, and gives hints.
//
// RunPlain is the line mode used when input or output is not a terminal:
// it prints the board as the 1961 program drew it and reads one line of keys
// at a time, so scripts and tests can drive it. RunTUI is the full-screen
// mode built on Bubble Tea, where keys act at once and computer players think
// off the UI thread; it fits its screen down to a minimum size and says so
// below it.
//
// Hints and computer moves are told in words and seeds ("you win by 8 with
// best play" only when the search proved it, "about +3 for you, estimate"
// otherwise); what a search reported in its own units is kept apart, for
// people who ask. A game left unfinished is saved in the data directory
// (UnfinishedFile) and LoadUnfinished brings it back.
package tui

package server

import (
	"kalah/server/arranged"
	"kalah/tournament"
)

// The tournaments' games played as arranged games are package arranged's
// (server/arranged); these are the names the rest of the server and its
// callers know them by.
type (
	// ArrangedPlayer plays arranged games: the Server in this process, or
	// a Remote one reached over HTTP (arranged.ArrangedPlayer).
	ArrangedPlayer = arranged.ArrangedPlayer
	// TournamentExecutor plays a tournament's games as arranged games
	// (arranged.TournamentExecutor).
	TournamentExecutor = arranged.TournamentExecutor
)

// TournamentBots returns the names of the bots (bot:NAME) seated in a
// job, "" for a seat that is not one (arranged.TournamentBots).
func TournamentBots(job tournament.Job) [2]string { return arranged.TournamentBots(job) }

// HasBot reports whether a job seats a bot (arranged.HasBot).
func HasBot(job tournament.Job) bool { return arranged.HasBot(job) }

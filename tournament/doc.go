// Package tournament runs fair, resumable competitions between any players
// the registry can build (built-in engines, exec: and mk: processes, ...)
// and keeps every game and move in SQLite: in the tables it has in the
// server's store (package internal/store, the data directory's kalah.db),
// whose versioned migrations make them and whose one writer and pool of
// readers it uses.
//
// # Formats
//
// RoundRobin pairs every entrant with every other; Gauntlet pairs the first
// with each of the rest; Swiss pairs entrants of equal points round by
// round, avoiding rematches, with a bye (worth a won pairing) for an odd
// one out; SPRT plays two entrants in rounds until a sequential probability
// ratio test decides whether the first is stronger. Every pairing plays
// each of its openings twice, the players swapping sides: the initial
// position (NoOpenings), every legal first move (Forced, as the Kalaha
// thesis did) or one opening a pairing drawn from the seed (Paired).
//
// # Scoring
//
// A win is worth 2 points, a draw 1, a loss 0. Ties are broken by the total
// seeds an entrant had in its store at the end of its games, then by the
// points scored in games among the entrants still tied, then entrant order
// (those equal on every tie-break share a rank). Elo ratings are maximum
// likelihood estimates with 95% intervals (Ratings). Standings are always
// computed from the stored results, never kept on the side.
//
// # Storage and resuming
//
// Create stores the configuration and, for round robins and gauntlets,
// every game of the schedule up front, each under a unique (tournament,
// round, pairing, leg) key; Swiss and SPRT rounds are stored as they are
// paired, before they are played. Commit stores a game's result and all its
// moves in one transaction keyed by the scheduled game and ignores a second
// result for the same game. So Run, which plays whatever has no result yet,
// both runs and resumes a tournament: a process killed at any moment loses
// at most the games in flight, which are played again, and counts no game
// twice.
//
// # Using it from a program
//
//	st, err := tournament.Open("kalah-data/kalah.db")
//	id, err := st.Create(ctx, tournament.Config{Players: []string{"pekar", "greedy", "random"}, Rounds: 2})
//	err = st.Run(ctx, id, tournament.RunOptions{Progress: func(p tournament.Progress) { ... }})
//	table, err := st.Standings(ctx, id)  // ranked, with Elo
//	cross, err := st.CrossTable(ctx, id) // [i][j]: entrant i against j
//	rep, err := st.Report(ctx, id)       // all of it; rep.Write(w, "markdown")
//
// New keeps tournaments in a store the caller already has open (a
// server's), sharing its connections and writer. Standings,
// CrossTable, Report, Games and Record may be called while another
// goroutine or process runs the tournament; List shows every tournament.
// Run plays games with an Executor: Local (goroutines on this machine, the
// default for Run) or dist.Executor (jobs on NATS JetStream, played by
// workers here and on other machines; dist.StartEmbedded gives the
// command line's default, an embedded server with in-process workers; see
// package dist and docs/SCALING.md). Cancel Run's context to stop a
// tournament; Run again to resume it.
package tournament

// Package server is kalah's match server: it referees games between bots
// and people over the network so that neither side can cheat, and stores
// every game as it is played.
//
// Bots speak kalah's line protocol (package protocol/line,
// docs/PROTOCOL.md) over TCP (Serve) or WebSocket (Handler, at /ws/bot):
// they log in with a name and a token, join the queue or challenge one
// another, and answer each "go" with a move. Spectators follow games
// read-only. Other transports (KGP) bring their players in through Play.
//
// The referee (package referee) owns the truth: it validates moves, runs
// the clocks and applies forfeits. Every move is written to the store
// (package internal/store) before the next is asked for, and the end of a
// game when it comes. A bot that drops out of a game may log in again and
// carry on while its clock runs; if it does not come back in time it loses
// by disconnection. When the server starts, it resumes every unfinished game
// in the store: server-side players are rebuilt from their specs, bots wait
// for their owners to log in again; a seat that cannot be resumed (a person
// playing through the API, a KGP client) loses by disconnection, and a game
// neither of whose seats can be resumed is adjudicated a draw.
//
// For the web page, *Server offers:
//
//   - LiveGames: the games being played now.
//   - FinishedGames: finished games from the store, newest first.
//   - Game: one game's record and live state (clocks, who is away).
//   - Subscribe: a game's events (moves, absences, the end) as they happen.
//   - StartGame: a game between two server-side player specs, or with
//     "human" seats that move through Move with the seat's token.
//   - Move: a human seat's move.
//   - PlayArranged and WaitingBots: tournament games with the bots that
//     sent wait (the player bot:NAME), played and stored like any other.
//   - StartTournaments: the server's own tournaments (kept by package
//     tournament in its store), every game played here by the
//     TournamentExecutor as an arranged game, under the server's limits;
//     Tournaments serves their part of the API (/api/tournaments), and
//     runs the people's tournaments too: arenas and Swiss that people and
//     bots join, each game a people's game under its clock (server/arena).
//   - ImportSavedGames: the games an older release's page kept in files.
//
// Handler serves these as JSON under /api/ (PlayArranged as POST
// /api/arranged) and the bot protocol at /ws/bot. Remote is the other end
// of POST /api/arranged: a tournament on another machine (kalah tournament
// --server) gives the server's bots their games through it, with the same
// TournamentExecutor.
// Play brings in a player from another transport (kalah serve uses it for
// KGP clients); Stats reports the referee's own time a move; Shutdown stops
// the games (leaving them to be resumed) and closes every connection.
//
// Hostile or broken clients are contained by Config's limits: line length,
// handshake and idle timeouts, a per-address token bucket for logins, a
// connection cap and a game cap; a client too slow to read its lines is
// dropped. Malformed input is answered with "error <code> <text>".
package server

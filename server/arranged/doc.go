// Package arranged is the server's side of engine and bot tournaments:
// games the server arranges between two given players, computers or bots
// logged in to it, rather than the queue, a challenge or a person's
// request. Service.Play waits for the game's bots to be free and takes
// them all at once in the live games' registry (TakeBots), plays the game
// through the gate, refereed and stored like any other, and returns it
// once over; a restarted server abandons such a game (Abandon), which its
// tournament plays again. POST /api/arranged and GET /api/bots are its
// routes. TournamentExecutor plays a tournament's jobs as such games (on
// this server or a remote one, through an ArrangedPlayer), one game at a
// time a bot, and turns each into the job's result.
//
// It owns no state: the bots it takes are the live registry's (its own
// lock), the games the rounds'; an Execute's lock guards only the commits
// of its own results.
package arranged

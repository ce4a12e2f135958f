// Package arranged is the server's side of engine and bot tournaments:
// games the server arranges between two given players, computers or bots
// logged in to it, rather than the queue, a challenge or a person's
// request. TournamentExecutor plays a tournament's jobs as such games (on
// this server or a remote one, through an ArrangedPlayer), one game at a
// time a bot, and turns each into the job's result.
//
// It keeps no state between calls: each Execute owns its jobs, its own
// lock guarding only the commits of its results.
package arranged

// Package bots is the bots' side of the server, its socket layer as
// lila's is: the connection of a bot over the line protocol (TCP or
// WebSocket), with its queue of lines to send, its writer and reader
// loops, its pings and timeouts, and what its lines mean (logging in, the
// queue, challenges, waiting for arranged games, moves, draws, watching);
// the bots' queue, which KGP clients and other transports join too
// (Play), with its house games; challenges, from bots and from people on
// the page; tokens replaced by their owners; and the glue of the KGP
// bridge (the labels of anonymous KGP clients, the KGP connections of
// bots known by a token).
//
// Each Wire is owned by its two goroutines: the writer takes its outbox,
// everyone else fills it under the outbox's own lock. A Conn's state is
// under its own lock. The hub of connections and listeners, the queue,
// the challenges, the sessions, the labels and the KGP registry each have
// a lock that guards nothing else, and none is held while the server
// (Host) or a round is called. What the bots' side needs of the rest of
// the server (the live games, starting a game through the gate, who is
// signed in) it asks through its Host.
package bots

// Package web is the browser page of kalah: play against any computer
// player or another person by link, watch live and finished games, analyze
// positions and games, and run tournaments. New returns an http.Handler
// that serves the page from files embedded in the binary (HTML, CSS and
// plain JavaScript, no build step) and its part of the server's one JSON
// API under /api/ (meta, analysis), handing the rest of /api/
// and /ws/ to the server.
//
// The page has no games of its own: every game it starts or shows is a
// game of the match server (package server), kept in the server's one
// database with the bots' and KGP clients' games, and reached through the
// server's API (GET /api/games/{id}/board draws one, its /board/events
// follows it live); takebacks, hints, seats taken by link, resignations
// and rematches are the server's too, and so are its tournaments
// (server.Tournaments, whose part of the API the page mounts): the page
// does none of the server's work. Analysis comes from package engine
// (Engine). `kalah serve` mounts the page at "/".
package web

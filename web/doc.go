// Package web is the browser page of kalah: play against any computer
// player or another person by link, watch live and finished games, analyze
// positions and games, and run tournaments. New returns an http.Handler
// that serves the page from files embedded in the binary (HTML, CSS and
// plain JavaScript, no build step) and its part of the server's one JSON
// API under /api/ (meta, analysis, tournaments), handing the rest of /api/
// and /ws/ to the server.
//
// The page has no games of its own: every game it starts or shows is a
// game of the match server (package server), kept in the server's one
// database with the bots' and KGP clients' games, and reached through the
// server's API (GET /api/games/{id}/board draws one, its /board/events
// follows it live); takebacks, hints, seats taken by link, resignations
// and rematches are the server's too. Tournaments started here are stored by package tournament in the
// same database (StoredTournaments) and play their games on the server.
// Analysis comes from package engine (Engine). Games of the page's own
// runtime of older releases (web-games/) are moved into the server's
// database by ImportSavedGames. `kalah serve` mounts the page at "/".
package web

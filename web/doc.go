// Package web is the browser page of kalah: play against any computer
// player or another person by link, watch live and finished games, analyze
// positions and games, and run tournaments. New returns an http.Handler
// that serves the page from files embedded in the binary (HTML, CSS and
// plain JavaScript, no build step) and its JSON API under /web/api/, with
// live games streamed as Server-Sent Events.
//
// The handler is written against small interfaces: Games (start, list,
// follow and move games), Analyzer (the value of every move of a position)
// and Tournaments. Built-in implementations (Hub, which referees games in
// this process; Search, an alpha-beta that proves values where it can see
// to the end; Director, which plays round robins through Games) make the
// page work on its own; `kalah serve` mounts it at "/".
package web

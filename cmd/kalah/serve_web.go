package main

import (
	"context"
	"net/http"

	"kalah/server"
	"kalah/web"
)

// The web page: kalah serve mounts it at "/". Games started from the page
// run on its own hub (casual games with undo and hints, two people by link,
// tournaments); the server's games (bots over the network, /api/) are
// listed, watched and replayed beside them.
func init() {
	mountWeb = func(s *server.Server) (http.Handler, error) {
		hub := web.NewHub(nil, nil)
		return web.New(context.Background(), web.Options{
			Games: web.Combined{Local: hub, Server: web.NewServerGames(s)},
		})
	}
}

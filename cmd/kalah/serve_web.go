package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"

	"kalah/internal/store"
	"kalah/server"
	"kalah/tournament"
	"kalah/web"
)

// The web page: kalah serve mounts it at "/". Games started from the page
// run on its own hub (casual games with undo and hints, two people by link,
// tournament games); the server's games (bots over the network, /api/) are
// listed, watched and replayed beside them. The page's games are kept in
// web-games/ and its tournaments in tournaments.db, in the default data
// directory (where kalah tournament finds them too when that is
// ./kalah-data), so both survive a restart. Analysis and hints come from
// package engine.
func init() {
	mountWeb = func(s *server.Server) (http.Handler, error) {
		ctx := context.Background()
		analyzer := &web.Engine{}
		hub := web.NewHub(analyzer, nil)
		dir := store.DefaultDir()
		if err := hub.Persist(filepath.Join(dir, "web-games")); err != nil {
			return nil, err
		}
		ts, err := tournament.Open(filepath.Join(dir, "tournaments.db"))
		if err != nil {
			return nil, fmt.Errorf("web page tournaments: %w", err)
		}
		return web.New(ctx, web.Options{
			Analyzer:    analyzer,
			Games:       web.Combined{Local: hub, Server: web.NewServerGames(s)},
			Tournaments: web.NewStoredTournaments(ctx, ts, hub),
		})
	}
}

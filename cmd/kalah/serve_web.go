package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"

	"kalah/server"
	"kalah/tournament"
	"kalah/web"
)

// The web page: kalah serve mounts it at "/". Games started from the page
// run on its own hub (casual games with undo and hints, two people by link,
// tournament games); the server's games (bots over the network, /api/) are
// listed, watched and replayed beside them. The page's games are kept in
// web-games/ and its tournaments in the data directory's one database
// (kalah.db, beside the server's games), in the server's data
// directory (--data; where kalah tournament finds them too when that is
// the default), so both survive a restart: unfinished games and the
// page's unfinished tournaments go on when the server starts again. Analysis and hints come from
// package engine. Tournaments may name the bots connected to the server
// (bot:NAME); their games are played as the server's own.
func init() {
	mountWeb = func(ctx context.Context, s *server.Server, dir string) (http.Handler, func(), error) {
		// The page's event streams and games end with ctx (the server's:
		// Ctrl-C, SIGTERM, or its caller's), so its shutdown does not wait
		// on open pages and nothing of it outlives the server; games stopped
		// this way are saved unfinished and go on after a restart. The
		// function returned waits until the page has stopped.
		analyzer := &web.Engine{}
		hub := web.NewHub(analyzer, nil)
		noWait := func() {}
		if err := hub.Persist(filepath.Join(dir, "web-games")); err != nil {
			hub.Close()
			return nil, noWait, err
		}
		ts, err := tournament.OpenDataDir(ctx, dir)
		if err != nil {
			hub.Close()
			return nil, noWait, fmt.Errorf("web page tournaments: %w", err)
		}
		stopped := make(chan struct{})
		go func() {
			<-ctx.Done()
			hub.Close()
			ts.Close()
			close(stopped)
		}()
		wait := func() { <-stopped }
		// Tournament games with a bot:NAME seat (a bot logged in here that
		// sent wait) are played by the server itself, as its games, each
		// waiting for its bots as long as the server's --bot-wait.
		tours := web.NewStoredTournaments(ctx, ts, hub).PlayBotsOn(s, 0)
		if _, err := tours.Resume(ctx); err != nil {
			return nil, wait, fmt.Errorf("web page tournaments: %w", err)
		}
		h, err := web.New(ctx, web.Options{
			Analyzer:    analyzer,
			Games:       web.Combined{Local: hub, Server: web.NewServerGames(s)},
			Tournaments: tours,
		})
		return h, wait, err
	}
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	"kalah"
	"kalah/server"
	"kalah/tournament"
	"kalah/web"
)

// The web page: kalah serve mounts it at "/". The page has no games of its
// own: the games it starts (people against the computer, two people by
// link, its tournaments' games) are the server's, kept in the data
// directory's one database with the bots' and KGP clients' games, listed
// together and resumed together after a restart. Its tournaments are in
// that database too. Games and tournaments an older release's page kept
// in web-games/ and tournaments.db are moved in when the server starts.
// Analysis and hints come from package engine, from engines of their own:
// a guest's long analysis never holds up a player's hint.
var (
	pageAnalyzer = &web.Engine{}
	hintAnalyzer = &web.Engine{Engines: 2}
)

func init() {
	serveHint = func(ctx context.Context, g *kalah.Game) (kalah.Move, error) {
		return web.Hint(ctx, hintAnalyzer, g, 300*time.Millisecond)
	}
	mountWeb = func(ctx context.Context, s *server.Server, dir string, lim pageLimits) (http.Handler, func(), error) {
		// The page's event streams and tournaments end with ctx (the
		// server's: Ctrl-C, SIGTERM, or its caller's), so its shutdown does
		// not wait on open pages and nothing of it outlives the server. The
		// function returned waits until the page has stopped.
		noWait := func() {}
		if _, err := web.ImportSavedGames(ctx, s, filepath.Join(dir, "web-games"), slog.Default()); err != nil {
			return nil, noWait, err
		}
		ts, err := tournament.OpenDataDir(ctx, dir)
		if err != nil {
			return nil, noWait, fmt.Errorf("web page tournaments: %w", err)
		}
		stopped := make(chan struct{})
		go func() {
			<-ctx.Done()
			ts.Close()
			close(stopped)
		}()
		wait := func() { <-stopped }
		// Tournament games with a bot:NAME seat (a bot logged in here that
		// sent wait) are played as arranged games, each waiting for its
		// bots as long as the server's --bot-wait.
		tours := web.NewStoredTournaments(ctx, ts, s).PlayBotsOn(s, 0)
		if _, err := tours.Resume(ctx); err != nil {
			return nil, wait, fmt.Errorf("web page tournaments: %w", err)
		}
		h, err := web.New(ctx, web.Options{
			Analyzer:      pageAnalyzer,
			Server:        s,
			Tournaments:   tours,
			MaxAnalysis:   lim.maxAnalysis,
			AnalysisRate:  lim.analysisRate,
			AnalysisBurst: lim.analysisBurst,
			Analyses:      lim.analyses,
		})
		return h, wait, err
	}
}

package main

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	"kalah"
	"kalah/server"
	"kalah/web"
)

// The web page: kalah serve mounts it at "/". The page has no games of its
// own: the games it starts (people against the computer, two people by
// link, its tournaments' games) are the server's, kept in the data
// directory's one database with the bots' and KGP clients' games, listed
// together and resumed together after a restart. Its tournaments are the
// server's too (server.Tournaments), in that database. Games and tournaments an older release's page kept
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
		// function returned waits until the page and the tournaments have
		// stopped, before the store closes.
		noWait := func() {}
		if _, err := s.ImportSavedGames(ctx, filepath.Join(dir, "web-games"), slog.Default()); err != nil {
			return nil, noWait, err
		}
		// The tournaments started on the page (or with POST
		// /api/tournaments) are the server's: in its store, every game an
		// arranged game here, a bot:NAME seat waiting for its bot as long
		// as the server's --bot-wait.
		tours, err := s.StartTournaments(ctx, server.TournamentOptions{DataDir: dir})
		if err != nil {
			return nil, noWait, err
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
		return h, tours.Wait, err
	}
}

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"kalah/internal/datadir"
	"kalah/server"
	"kalah/tournament"
)

// serverFlags choose the match server on which kalah tournament plays the
// games of bot:NAME players: bots logged in to that server (kalah bot
// --wait).
type serverFlags struct {
	url    string
	token  string
	wait   time.Duration
	remote *server.Remote // set by connect
}

func addServerFlags(fs *flag.FlagSet) *serverFlags {
	s := &serverFlags{}
	fs.StringVar(&s.url, "server", "", "play the games of bot:NAME players (bots logged in to kalah serve with kalah bot --wait) on this server, http://HOST:PORT; the other games are played here")
	fs.StringVar(&s.token, "server-token", os.Getenv("KALAH_ADMIN_TOKEN"), "with --server: the server's admin token (default $KALAH_ADMIN_TOKEN, else admin.token in the data directory, as kalah serve makes it on this machine)")
	fs.DurationVar(&s.wait, "bot-wait", 0, "with --server: how long a game waits for a bot that is not free before it loses (0: the server's setting)")
	return s
}

// refuseServerBots refuses bot:NAME players when there is no server to
// play their games on: they are bots logged in to a server, which plays
// their games in the tournaments it runs itself (its web page, POST
// /api/tournaments) or that kalah tournament --server gives it.
func refuseServerBots(players []string, serverURL string) error {
	seen := map[string]bool{}
	for _, p := range players {
		name, ok, err := server.BotName(p)
		if !ok {
			continue
		}
		if err != nil {
			return usageError{err}
		}
		if seen[name] {
			return usagef("%s is entered twice: a bot cannot play itself", p)
		}
		seen[name] = true
		if serverURL == "" {
			return usagef("%s: bot:NAME players are bots logged in to kalah serve and play only there: give --server http://HOST:PORT (the server's web address) to play their games on it, or start the tournament on the server's web page (Tournaments) or with POST /api/tournaments; the bots connect with kalah bot --wait", p)
		}
	}
	return nil
}

// connect, given --server and a tournament with bot:NAME players, checks
// that the server answers and notes which of the tournament's bots are
// waiting there now.
func (s *serverFlags) connect(ctx context.Context, e *env, players []string) error {
	if s.url == "" {
		return nil
	}
	var bots []string
	for _, p := range players {
		if name, ok, _ := server.BotName(p); ok {
			bots = append(bots, name)
		}
	}
	if len(bots) == 0 {
		e.log.Warn("--server is not used: the tournament has no bot:NAME players")
		return nil
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	remote, err := server.Dial(dctx, s.url)
	if err != nil {
		return fmt.Errorf("--server: %w", err)
	}
	remote.Token = s.token
	if remote.Token == "" {
		if b, err := os.ReadFile(datadir.Path(adminTokenFile)); err == nil {
			remote.Token = strings.TrimSpace(string(b))
		}
	}
	if err := remote.CheckToken(dctx); err != nil {
		return fmt.Errorf("--server: %w", err)
	}
	waiting, err := remote.Bots(dctx)
	if err != nil {
		return fmt.Errorf("--server: %w", err)
	}
	var absent []string
	for _, b := range bots {
		if !slices.Contains(waiting, b) {
			absent = append(absent, b)
		}
	}
	e.log.Info("playing bot games on the server", "server", remote.URL(), "waiting", strings.Join(waiting, ","))
	if len(absent) > 0 {
		e.log.Warn("bots not waiting on the server now: each of their games waits for them, then counts as lost by disconnect",
			"bots", strings.Join(absent, ","), "hint", "kalah bot --server HOST:2670 --name NAME --player SPEC --wait")
	}
	s.remote = remote
	return nil
}

// executor wraps rest in the server's tournament executor, which plays
// the jobs with a bot:NAME seat on the server as arranged games, under
// its limits (once connect has found one): a seat the server refuses
// loses its game there, with the reason.
func (s *serverFlags) executor(e *env, rest tournament.Executor) tournament.Executor {
	if s.remote == nil {
		return rest
	}
	return &server.TournamentExecutor{Server: s.remote, Rest: rest, Wait: s.wait, Worker: "server " + s.remote.URL(), Log: e.log}
}

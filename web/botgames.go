package web

import (
	"context"
	"strconv"
	"time"

	"kalah/server"
	"kalah/tournament"
	"kalah/tournament/botexec"
)

// BotServer plays games with the bots connected to a match server:
// *server.Server is one (and *server.Remote, one reached over HTTP).
type BotServer = botexec.Server

// PlayBotsOn makes the tournaments play every game with a bot:NAME seat
// (a bot logged in to srv that sent wait) on srv, as one of its games:
// stored there, listed and watched live with the server's games. A game
// waits up to wait (zero: the server's Config.ArrangedWait) for its bots to be
// free; a bot that is not loses that game by disconnection, so the
// tournament always finishes. Call it before Create and Resume. Without
// it, a tournament with bot:NAME players stops at its first such game with
// an error saying where they play.
func (t *StoredTournaments) PlayBotsOn(srv BotServer, wait time.Duration) *StoredTournaments {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.bots, t.botWait = srv, wait
	return t
}

// Bots returns the bots waiting for tournament games on the server, as
// player specs ("bot:alice"), for the page to offer.
func (t *StoredTournaments) Bots() []string {
	t.mu.Lock()
	srv := t.bots
	t.mu.Unlock()
	if srv == nil {
		return nil
	}
	var out []string
	for _, name := range srv.WaitingBots() {
		out = append(out, server.BotPrefix+name)
	}
	return out
}

// playsOnServer reports whether a job has a bot:NAME seat and a server to
// play it on.
func (t *StoredTournaments) playsOnServer(job tournament.Job) bool {
	t.mu.Lock()
	srv := t.bots
	t.mu.Unlock()
	return srv != nil && botexec.OnServer(job)
}

// playOnServer plays a job's game on the match server, listing it as the
// server's game while it is played.
func (t *StoredTournaments) playOnServer(ctx context.Context, job tournament.Job) (tournament.Result, error) {
	t.mu.Lock()
	srv, wait := t.bots, t.botWait
	t.mu.Unlock()
	return botexec.Play(ctx, srv, job, botexec.Options{Wait: wait, Worker: "web", OnStart: func(id int64) {
		t.mu.Lock()
		t.gameIDs[job.Game.ID] = strconv.FormatInt(id, 10)
		t.mu.Unlock()
	}})
}

package web

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"kalah/match"
	"kalah/server"
	"kalah/tournament"
)

// BotServer plays games with the bots connected to a match server:
// *server.Server is one.
type BotServer interface {
	// PlayArranged plays one game with bot:NAME seats and returns it over.
	PlayArranged(ctx context.Context, a server.Arranged) (server.ArrangedResult, error)
	// WaitingBots names the bots that take tournament games.
	WaitingBots() []string
}

// PlayBotsOn makes the tournaments play every game with a bot:NAME seat
// (a bot logged in to srv that sent wait) on srv, as one of its games:
// stored there, listed and watched live with the server's games. A game
// waits up to wait (zero: server.DefaultArrangedWait) for its bots to be
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
	if srv == nil {
		return false
	}
	for _, spec := range []string{job.South, job.North} {
		if _, ok, _ := server.BotName(spec); ok {
			return true
		}
	}
	return false
}

// playOnServer plays a job's game on the match server.
func (t *StoredTournaments) playOnServer(ctx context.Context, job tournament.Job) (tournament.Result, error) {
	start := time.Now()
	g := job.Game
	tags := map[string]string{"Tournament": strconv.FormatInt(job.Tournament, 10), "Game": strconv.FormatInt(g.ID, 10),
		"Round": strconv.Itoa(g.Round), "Seed": strconv.FormatUint(g.Seed, 10)}
	if job.Name != "" {
		tags["Event"] = job.Name
	}
	t.mu.Lock()
	srv, wait := t.bots, t.botWait
	t.mu.Unlock()
	a := server.Arranged{Rules: job.Rules, South: job.South, North: job.North, Opening: g.Opening,
		PerMove: job.Clock.PerMove, Budget: job.Clock.Budget, Increment: job.Clock.Increment, Grace: job.Clock.Grace, Delay: job.Clock.Delay,
		Seeds: [2]uint64{match.GameSeed(g.Seed, 0, 0), match.GameSeed(g.Seed, 0, 1)}, Tags: tags, Wait: wait,
		OnStart: func(id int64) {
			t.mu.Lock()
			t.games[g.ID] = serverPrefix + strconv.FormatInt(id, 10)
			t.mu.Unlock()
		}}
	res, err := srv.PlayArranged(ctx, a)
	for errors.Is(err, server.ErrBusy) { // the server is full: wait for a free place
		select {
		case <-ctx.Done():
			return tournament.Result{}, ctx.Err()
		case <-time.After(time.Second):
		}
		res, err = srv.PlayArranged(ctx, a)
	}
	if err != nil {
		return tournament.Result{}, fmt.Errorf("game %d: %w", g.ID, err)
	}
	kg, err := res.Record.Game()
	if err != nil {
		return tournament.Result{}, fmt.Errorf("game %d (server game %d): %w", g.ID, res.ID, err)
	}
	s, n := kg.Score()
	if kg.Swapped() {
		s, n = n, s
	}
	return tournament.Result{GameID: g.ID, Tournament: job.Tournament, SouthSeeds: s, NorthSeeds: n, Record: res.Record,
		Reason: res.Reason, Worker: "web", Millis: time.Since(start).Milliseconds()}, nil
}

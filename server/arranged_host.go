package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/player"
	"kalah/server/arranged"
	"kalah/server/gate"
	rnd "kalah/server/round"
	"kalah/tournament"
)

// Arranged games and the tournaments' games played as such are package
// arranged's (server/arranged); these are the names the rest of the
// server and its callers know them by.
type (
	// ArrangedPlayer plays arranged games: the Server in this process, or
	// a Remote one reached over HTTP (arranged.ArrangedPlayer).
	ArrangedPlayer = arranged.ArrangedPlayer
	// TournamentExecutor plays a tournament's games as arranged games
	// (arranged.TournamentExecutor).
	TournamentExecutor = arranged.TournamentExecutor
)

// DefaultArrangedWait is how long PlayArranged waits for a bot to be free
// when neither Arranged.Wait nor Config.ArrangedWait is set.
const DefaultArrangedWait = time.Minute

// TournamentBots returns the names of the bots (bot:NAME) seated in a
// job, "" for a seat that is not one (arranged.TournamentBots).
func TournamentBots(job tournament.Job) [2]string { return arranged.TournamentBots(job) }

// HasBot reports whether a job seats a bot (arranged.HasBot).
func HasBot(job tournament.Job) bool { return arranged.HasBot(job) }

// PlayArranged plays one game the server arranges, with bots connected to
// it and server-side players, and returns it once it is over
// (arranged.Service.Play).
func (s *Server) PlayArranged(ctx context.Context, a Arranged) (ArrangedResult, error) {
	return s.arrangedGames.Play(ctx, a)
}

// takeBots reserves seats' bots for rd once they are free, within wait
// (arranged.Service.TakeBots); the people's tournaments take theirs so.
func (s *Server) takeBots(ctx context.Context, rd *round, seats [2]*seat, wait time.Duration) ([2]bool, error) {
	return s.arrangedGames.TakeBots(ctx, rd, seats, wait)
}

// abandonArranged ends an arranged game found unfinished after a restart
// (arranged.Service.Abandon).
func (s *Server) abandonArranged(sg store.Game) error { return s.arrangedGames.Abandon(sg) }

// serverPlayer builds a server-side player, refusing programs unless the
// server allows them.
func (s *Server) serverPlayer(spec string, r kalah.Rules, seed uint64) (player.Player, error) {
	info, _, err := player.Lookup(spec)
	if err != nil {
		return nil, err
	}
	if info.Raw && !s.cfg.AllowExec {
		return nil, fmt.Errorf("%w: %s players run programs on the server; start the server with exec allowed", ErrForbidden, info.Name)
	}
	if err := s.checkLimits(spec); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrForbidden, err)
	}
	p, err := player.New(spec, player.Options{Rules: r, Seed: seed})
	if err != nil {
		return nil, err
	}
	return s.thinkLimit(p), nil
}

// arrangedHost is the server as its arranged games see it (arranged.Host).
type arrangedHost struct{ s *Server }

func (h arrangedHost) Context() context.Context { return h.s.ctx }
func (h arrangedHost) Log() *slog.Logger        { return h.s.log }
func (h arrangedHost) Config() arranged.Config {
	return arranged.Config{Rules: h.s.cfg.Rules, Grace: h.s.cfg.Grace, Wait: h.s.cfg.ArrangedWait}
}
func (h arrangedHost) Player(spec string, r kalah.Rules, seed uint64) (player.Player, error) {
	return h.s.serverPlayer(spec, r, seed)
}
func (h arrangedHost) FreeConn(key string) bool { return h.s.freeConn(key) }
func (h arrangedHost) WaitingBots() []string    { return h.s.WaitingBots() }
func (h arrangedHost) Live() *rnd.Registry      { return h.s.live }
func (h arrangedHost) Full() error {
	if max := h.s.cfg.MaxGames; max > 0 && h.s.gate.Live() >= max {
		return gateError(fmt.Errorf("%w: %d games are being played", gate.ErrFull, max))
	}
	return nil
}
func (h arrangedHost) Admit(r kalah.Rules, seats [2]*seat) (*gate.Ticket, error) {
	return h.s.admit(gate.Tournament, r, seats, [2]string{})
}
func (h arrangedHost) Store() *store.Store                 { return h.s.st }
func (h arrangedHost) Run(rd *round, su roundSetup) *round { return h.s.runRound(rd, su) }
func (h arrangedHost) AdjudicateBroken(sg store.Game, err error) error {
	return h.s.adjudicateBroken(sg, err)
}
func (h arrangedHost) Admitted(w http.ResponseWriter, r *http.Request, what string) bool {
	return h.s.admitted(w, r, what)
}
func (h arrangedHost) Open() bool { return h.s.cfg.AdminToken == "" }
func (h arrangedHost) MayEnter(r *http.Request, bot string) error {
	return h.s.mayEnter(r.Context(), Organizer{Account: h.s.sessionUser(r)}, bot)
}

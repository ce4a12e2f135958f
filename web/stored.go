package web

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/match"
	"kalah/server"
	"kalah/tournament"
)

// maxTournaments bounds the tournaments running at once.
const maxTournaments = 8

// StoredTournaments is the Tournaments of package tournament: every
// tournament, game and move kept in its SQLite store, standings, the
// cross-table and Elo ratings computed from the stored results. The
// tournaments started from the page play their games one at a time on a
// match server, so each can be watched live; tournaments found in the store (run
// from the command line, or interrupted) are shown as they stand.
type StoredTournaments struct {
	st  *tournament.Store
	srv *server.Server
	ctx context.Context

	mu      sync.Mutex
	gameIDs map[int64]string // a tournament game's id to its server game
	running map[int64]bool
	errs    map[int64]string
	bots    BotServer     // plays the games with bot:NAME seats; nil: none
	botWait time.Duration // how long a game waits for a bot to be free
}

// NewStoredTournaments returns tournaments kept in st whose games play on
// the match server of games until ctx ends.
func NewStoredTournaments(ctx context.Context, st *tournament.Store, srv *server.Server) *StoredTournaments {
	return &StoredTournaments{st: st, srv: srv, ctx: ctx, gameIDs: map[int64]string{}, running: map[int64]bool{}, errs: map[int64]string{}}
}

// Create stores a round robin, gauntlet or Swiss tournament and starts it.
func (t *StoredTournaments) Create(ctx context.Context, req NewTournament) (string, error) {
	if req.PerMoveMillis < 0 || req.PerMoveMillis > 60_000 || req.DelayMillis < 0 || req.DelayMillis > 10_000 {
		return "", fmt.Errorf("%w: clock out of range", ErrBadInput)
	}
	if req.Rounds < 0 || req.Rounds > 20 || len(req.Players) > 12 {
		return "", fmt.Errorf("%w: at most 20 rounds and 12 players", ErrBadInput)
	}
	for _, p := range req.Players {
		if p == Human || p == "" {
			return "", fmt.Errorf("%w: tournaments are between computer players", ErrBadInput)
		}
	}
	format, err := tournament.ParseFormat(req.Format)
	if err != nil || format == tournament.SPRT {
		return "", fmt.Errorf("%w: format %q (want roundrobin, gauntlet or swiss)", ErrBadInput, req.Format)
	}
	cfg := tournament.Config{Name: req.Name, Format: format, Players: req.Players, Rounds: max(req.Rounds, 1),
		Rules: req.Rules, Seed: req.Seed, Clock: tournament.Clock{
			PerMove: time.Duration(req.PerMoveMillis) * time.Millisecond, Delay: time.Duration(req.DelayMillis) * time.Millisecond,
			Grace: 250 * time.Millisecond}}
	if cfg.Name == "" {
		cfg.Name = "Web tournament"
	}
	if err := req.Rules.Validate(); err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if t.busy() {
		return "", ErrBusy
	}
	id, err := t.st.Create(ctx, cfg)
	if err != nil {
		if errors.Is(err, tournament.ErrConfig) {
			return "", fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		return "", err
	}
	t.mu.Lock()
	t.running[id] = true
	t.mu.Unlock()
	go t.run(id)
	return strconv.FormatInt(id, 10), nil
}

// Resume goes on with the tournaments the page was running when its
// server stopped: those unfinished whose players may all be started from
// the page and whose games so far were all played here. Results are stored
// once per game, so even a tournament also resumed from the command line
// counts no game twice. It returns the ids resumed.
func (t *StoredTournaments) Resume(ctx context.Context) ([]string, error) {
	infos, err := t.st.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, in := range infos {
		if in.Status == tournament.StatusFinished || !t.ours(ctx, in) || t.busy() {
			continue
		}
		t.mu.Lock()
		running := t.running[in.ID]
		t.running[in.ID] = true
		t.mu.Unlock()
		if !running {
			go t.run(in.ID)
			out = append(out, strconv.FormatInt(in.ID, 10))
		}
	}
	return out, nil
}

// ours reports whether a tournament looks like one the page ran.
func (t *StoredTournaments) ours(ctx context.Context, in tournament.Info) bool {
	for _, p := range in.Config.Players {
		if allowedSpec(p) != nil {
			return false
		}
	}
	played, err := t.st.Games(ctx, in.ID)
	if err != nil {
		return false
	}
	for _, g := range played {
		if g.Worker != "web" {
			return false
		}
	}
	return true
}

// busy reports whether as many tournaments as allowed are running.
func (t *StoredTournaments) busy() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, r := range t.running {
		if r {
			n++
		}
	}
	return n >= maxTournaments
}

func (t *StoredTournaments) run(id int64) {
	err := t.st.Run(t.ctx, id, tournament.RunOptions{Executor: gameExecutor{t}})
	t.mu.Lock()
	defer t.mu.Unlock()
	t.running[id] = false
	if err != nil && t.ctx.Err() == nil {
		t.errs[id] = err.Error()
	}
}

// gameExecutor plays a tournament's games one at a time on the match
// server, each listed and watched live with the server's other games.
type gameExecutor struct{ t *StoredTournaments }

// Execute implements tournament.Executor.
func (x gameExecutor) Execute(ctx context.Context, jobs []tournament.Job, commit func([]tournament.Result) error) error {
	for _, job := range jobs {
		res, err := x.play(ctx, job)
		if err != nil {
			return err
		}
		if err := commit([]tournament.Result{res}); err != nil {
			return err
		}
	}
	return nil
}

func (x gameExecutor) play(ctx context.Context, job tournament.Job) (tournament.Result, error) {
	if x.t.playsOnServer(job) {
		return x.t.playOnServer(ctx, job)
	}
	start := time.Now()
	g := job.Game
	srv := x.t.srv
	req := server.GameRequest{Rules: job.Rules, South: job.South, North: job.North, Opening: g.Opening,
		PerMoveMS: job.Clock.PerMove.Milliseconds(), DelayMS: job.Clock.Delay.Milliseconds(),
		Seeds: [2]uint64{match.GameSeed(g.Seed, 0, 0), match.GameSeed(g.Seed, 0, 1)},
		Tags:  map[string]string{server.TournamentTag: strconv.FormatInt(job.Tournament, 10)}}
	c, err := srv.StartGame(ctx, req)
	for errors.Is(err, server.ErrBusy) { // wait for a free place on the server
		select {
		case <-ctx.Done():
			return tournament.Result{}, ctx.Err()
		case <-time.After(time.Second):
		}
		c, err = srv.StartGame(ctx, req)
	}
	if err != nil {
		// A player that cannot start here is the package's own business:
		// its Play forfeits it as a crash.
		return tournament.Play(ctx, job, "web")
	}
	x.t.mu.Lock()
	x.t.gameIDs[g.ID] = strconv.FormatInt(c.ID, 10)
	x.t.mu.Unlock()
	// Follow the game until it is over (its events end).
	if events, stop, err := srv.Subscribe(c.ID, server.Actor{}); err == nil {
	follow:
		for {
			select {
			case _, ok := <-events:
				if !ok {
					break follow
				}
			case <-ctx.Done():
				stop()
				actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				srv.Abandon(actx, c.ID, "its tournament stopped; it will play this game again")
				cancel()
				return tournament.Result{}, ctx.Err()
			}
		}
		stop()
	}
	v, err := srv.Game(ctx, c.ID)
	if err != nil {
		return tournament.Result{}, err
	}
	if v.Status != store.Finished {
		return tournament.Result{}, fmt.Errorf("game %d stopped unfinished", c.ID)
	}
	rec, reason := v.Record, v.Reason
	rec.Tags = map[string]string{"Tournament": strconv.FormatInt(job.Tournament, 10), "Game": strconv.FormatInt(g.ID, 10),
		"Round": strconv.Itoa(g.Round), "Seed": strconv.FormatUint(g.Seed, 10)}
	if job.Name != "" {
		rec.Tags["Event"] = job.Name
	}
	kg, err := rec.Game()
	if err != nil {
		return tournament.Result{}, err
	}
	s, n := kg.Score()
	if kg.Swapped() {
		s, n = n, s
	}
	return tournament.Result{GameID: g.ID, Tournament: job.Tournament, SouthSeeds: s, NorthSeeds: n, Record: rec,
		Reason: reason, Worker: "web", Millis: time.Since(start).Milliseconds()}, nil
}

func tournamentID(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: tournament %q", ErrNotFound, id)
	}
	return n, nil
}

// State returns a tournament's progress, standings and cross-table.
func (t *StoredTournaments) State(id string) (TournamentState, error) {
	n, err := tournamentID(id)
	if err != nil {
		return TournamentState{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Whether it runs is read before the store: a run that ends in between
	// has stored its status by then.
	t.mu.Lock()
	running, runErr := t.running[n], t.errs[n]
	t.mu.Unlock()
	in, err := t.st.Tournament(ctx, n)
	if err != nil {
		return TournamentState{}, fmt.Errorf("%w: tournament %s: %w", ErrNotFound, id, err)
	}
	out := TournamentState{ID: id, Name: in.Name, Format: string(in.Config.Format), Rules: in.Config.Rules.String(), Players: in.Config.Players,
		Played: in.Played, Total: in.Games, Created: in.Created, Games: []Pairing{}, Running: running, Error: runErr}
	if !out.Running && in.Status != tournament.StatusFinished && out.Error == "" {
		out.Error = fmt.Sprintf("%s, not running here: resume it with kalah tournament --resume %d", in.Status, n)
	}
	standings, err := t.st.Standings(ctx, n)
	if err != nil {
		return TournamentState{}, err
	}
	for _, s := range standings {
		out.Standings = append(out.Standings, Standing{Player: s.Player, Games: s.Games, Wins: s.Wins, Draws: s.Draws,
			Losses: s.Losses, Points: float64(s.Points) / tournament.WinPoints, Elo: s.Elo, EloErr: s.EloErr})
	}
	cross, err := t.st.CrossTable(ctx, n)
	if err != nil {
		return TournamentState{}, err
	}
	for _, row := range cross {
		r := make([]float64, len(row))
		for j, c := range row {
			r[j] = float64(c.Points) / tournament.WinPoints
		}
		out.Cross = append(out.Cross, r)
	}
	sched, err := t.st.Schedule(ctx, n)
	if err != nil {
		return TournamentState{}, err
	}
	played, err := t.st.Games(ctx, n)
	if err != nil {
		return TournamentState{}, err
	}
	done := map[int64]tournament.Played{}
	for _, p := range played {
		done[p.ID] = p
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	name := func(i int) string {
		if i >= 0 && i < len(in.Config.Players) {
			return in.Config.Players[i]
		}
		return "?"
	}
	for _, g := range sched {
		pr := Pairing{South: name(g.South), North: name(g.North), Game: t.gameIDs[g.ID]}
		if p, ok := done[g.ID]; ok {
			pr.Done, pr.Score = true, [2]int{p.SouthSeeds, p.NorthSeeds}
			switch {
			case p.SouthSeeds > p.NorthSeeds:
				pr.Result = kalah.SouthWins
			case p.SouthSeeds < p.NorthSeeds:
				pr.Result = kalah.NorthWins
			default:
				pr.Result = kalah.Draw
			}
		}
		out.Games = append(out.Games, pr)
	}
	return out, nil
}

// List returns every tournament in the store, newest first.
func (t *StoredTournaments) List() []TournamentState {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	infos, err := t.st.List(ctx)
	if err != nil {
		return nil
	}
	out := make([]TournamentState, 0, len(infos))
	for _, in := range infos {
		s := TournamentState{ID: strconv.FormatInt(in.ID, 10), Name: in.Name, Format: string(in.Config.Format), Rules: in.Config.Rules.String(),
			Players: in.Config.Players, Played: in.Played, Total: in.Games, Created: in.Created}
		t.mu.Lock()
		s.Running = t.running[in.ID]
		t.mu.Unlock()
		out = append(out, s)
	}
	return out
}

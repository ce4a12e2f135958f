package tournament

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"kalah/internal/cores"
)

// Executor plays jobs and hands their results to commit, one or more at a
// time (whatever has arrived: a batch is stored in one transaction). Commit
// is called from one goroutine at a time; Execute returns once every job's
// result has been committed, or with an error when ctx ends or commit
// fails. A job whose game could not be finished (its worker died) must be
// played again, so the executor returns only when each job has a result.
type Executor interface {
	Execute(ctx context.Context, jobs []Job, commit func([]Result) error) error
}

// maxBatch bounds the results stored in one transaction.
const maxBatch = 64

// Local plays games on this machine, Workers at a time (GOMAXPROCS when
// zero), each in its own goroutine through the referee.
type Local struct {
	Workers int
	Name    string // reported as the worker of each game; hostname when empty
}

// Execute implements Executor.
func (l Local) Execute(ctx context.Context, jobs []Job, commit func([]Result) error) error {
	n := l.Workers
	if n <= 0 {
		n = cores.N()
	}
	n = min(n, len(jobs))
	name := l.Name
	if name == "" {
		name = WorkerName()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	todo := make(chan Job)
	done := make(chan Result)
	errc := make(chan error, n+1)
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range todo {
				r, err := Play(ctx, j, fmt.Sprintf("%s/%d", name, w))
				if err != nil {
					errc <- err
					return
				}
				select {
				case done <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(todo)
		for _, j := range jobs {
			select {
			case todo <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	var err error
	for left := len(jobs); left > 0 && err == nil; {
		select {
		case r := <-done:
			// Store whatever else is ready with it, in one transaction.
			batch := []Result{r}
		drain:
			for len(batch) < min(left, maxBatch) {
				select {
				case r := <-done:
					batch = append(batch, r)
				default:
					break drain
				}
			}
			err = commit(batch)
			left -= len(batch)
		case e := <-errc:
			err = e
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	cancel()
	wg.Wait()
	return err
}

// WorkerName names this process in results: host and process id.
func WorkerName() string {
	h, err := os.Hostname()
	if err != nil {
		h = "worker"
	}
	return fmt.Sprintf("%s-%d", h, os.Getpid())
}

// Progress is reported after every stored game.
type Progress struct {
	Tournament int64
	Done       int           // games with a result
	Total      int           // games scheduled or, for Swiss, expected
	Elapsed    time.Duration // since this run started
	ETA        time.Duration // estimated time to the end; zero if unknown
	Last       Result        // the game just stored
}

// RunOptions tune Run.
type RunOptions struct {
	// Executor plays the games; nil means Local with GOMAXPROCS workers.
	Executor Executor
	// Progress, if set, is called after each game is stored.
	Progress func(Progress)
	// Log receives notes on rounds and rejected results; nil discards them.
	Log *slog.Logger
}

// ErrBadResult is returned (and logged) for a result that does not fit
// its game: another tournament's, a record that does not replay, or scores
// that disagree with the record.
var ErrBadResult = errors.New("bad result")

// Run plays a tournament's games that have no result yet, scheduling further
// rounds (Swiss, SPRT) as earlier ones end, until it is finished or ctx ends.
// It is also how a tournament is resumed: a game played before a crash is
// stored and not played again; one in flight is played from the start.
func (s *Store) Run(ctx context.Context, id int64, opts RunOptions) (err error) {
	s.mu.Lock()
	if s.running[id] {
		s.mu.Unlock()
		return fmt.Errorf("%w: %d", ErrRunning, id)
	}
	if s.running == nil {
		s.running = map[int64]bool{}
	}
	s.running[id] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.running, id)
		s.mu.Unlock()
	}()
	in, err := s.Tournament(ctx, id)
	if err != nil {
		return err
	}
	if in.Status == StatusFinished {
		return nil
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	exec := opts.Executor
	if exec == nil {
		exec = Local{}
	}
	cfg := in.Config
	if err := s.setStatus(ctx, id, StatusRunning); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			s.setStatus(context.WithoutCancel(ctx), id, StatusStopped)
		}
	}()
	start := time.Now()
	doneAtStart := in.Played
	// A game whose results keep being rejected would be replayed for ever.
	rejected := map[int64]int{}
	for {
		pending, err := s.Pending(ctx, id)
		if err != nil {
			return err
		}
		if len(pending) == 0 {
			finished, err := s.advance(ctx, id, cfg, log)
			if err != nil {
				return err
			}
			if finished {
				return s.setStatus(context.WithoutCancel(ctx), id, StatusFinished)
			}
			continue
		}
		cur, err := s.Tournament(ctx, id)
		if err != nil {
			return err
		}
		total := expectedGames(cfg, cur.Games)
		done := cur.Played
		jobs := make([]Job, len(pending))
		want := make(map[int64]Scheduled, len(pending))
		for i, g := range pending {
			jobs[i] = jobFor(id, cfg, g)
			want[g.ID] = g
		}
		commit := func(rs []Result) error {
			ok := rs[:0:0]
			for _, r := range rs {
				g, found := want[r.GameID]
				if !found || r.Tournament != id {
					log.Warn("result for a game not being played ignored", "tournament", r.Tournament, "game", r.GameID)
					continue
				}
				if err := checkResult(cfg, g, r); err != nil {
					log.Warn("result rejected", "game", r.GameID, "worker", r.Worker, "err", err)
					if rejected[r.GameID]++; rejected[r.GameID] >= 3 {
						return fmt.Errorf("game %d: three results rejected, the last: %w", r.GameID, err)
					}
					continue
				}
				ok = append(ok, r)
			}
			counted, err := s.CommitBatch(context.WithoutCancel(ctx), ok)
			if err != nil {
				return err
			}
			for i, r := range ok {
				if !counted[i] {
					log.Info("duplicate result ignored", "game", r.GameID, "worker", r.Worker)
					continue
				}
				done++
				if opts.Progress != nil {
					el := time.Since(start)
					p := Progress{Tournament: id, Done: done, Total: max(total, done), Elapsed: el, Last: r}
					if n := done - doneAtStart; n > 0 {
						p.ETA = time.Duration(float64(el) / float64(n) * float64(p.Total-done))
					}
					opts.Progress(p)
				}
			}
			return nil
		}
		if err := exec.Execute(ctx, jobs, commit); err != nil {
			return err
		}
	}
}

// expectedGames estimates a tournament's games in all from those scheduled.
func expectedGames(cfg Config, scheduled int) int {
	switch cfg.Format {
	case Swiss:
		n := len(cfg.Players)
		return cfg.Rounds * (n / 2) * legsPerPairing(cfg)
	}
	return scheduled
}

// checkResult verifies that a reported result is a real finished game of
// the scheduled pairing: the record replays under the tournament's rules,
// names the right players, starts with the opening and agrees with the
// reported seeds.
func checkResult(cfg Config, g Scheduled, r Result) error {
	rec := r.Record
	// The record seats the players as at the end; the schedule names them
	// by the side each started on.
	if south, north := rec.Starters(); south != cfg.Players[g.South] || north != cfg.Players[g.North] {
		return fmt.Errorf("%w: players %s v %s, want %s v %s", ErrBadResult, south, north, cfg.Players[g.South], cfg.Players[g.North])
	}
	if rec.Rules.Canonical() != cfg.Rules.Canonical() {
		return fmt.Errorf("%w: played under %s, want %s", ErrBadResult, rec.Rules, cfg.Rules)
	}
	kg, err := rec.Game()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	if !kg.Over() {
		return fmt.Errorf("%w: game not over", ErrBadResult)
	}
	for i, m := range g.Opening {
		if i >= len(rec.Moves) {
			break
		}
		rm := rec.Moves[i]
		if (m == -1) != rm.Swap || (!rm.Swap && int(m) != rm.House) {
			return fmt.Errorf("%w: move %d is not the opening's", ErrBadResult, i+1)
		}
	}
	s, n := kg.Score()
	if kg.Swapped() {
		s, n = n, s
	}
	if s != r.SouthSeeds || n != r.NorthSeeds {
		return fmt.Errorf("%w: seeds %d-%d reported, %d-%d in the record", ErrBadResult, r.SouthSeeds, r.NorthSeeds, s, n)
	}
	return nil
}

// advance schedules the next round of a Swiss or SPRT tournament once every
// earlier game has a result, and reports whether the tournament is over.
func (s *Store) advance(ctx context.Context, id int64, cfg Config, log *slog.Logger) (bool, error) {
	sched, err := s.Schedule(ctx, id)
	if err != nil {
		return false, err
	}
	last := lastRound(sched)
	switch cfg.Format {
	case Swiss:
		if last >= cfg.Rounds {
			return true, nil
		}
		games, err := s.Games(ctx, id)
		if err != nil {
			return false, err
		}
		byes, err := s.byes(ctx, id)
		if err != nil {
			return false, err
		}
		table := Compute(cfg.Labels(), games, byes, WinPoints*legsPerPairing(cfg))
		met := map[[2]int]bool{}
		for _, g := range sched {
			met[pairKey(g.South, g.North)] = true
		}
		hadBye := map[int]bool{}
		for _, e := range byes {
			hadBye[e] = true
		}
		round, bye := swissRound(cfg, last+1, table, met, hadBye)
		log.Info("swiss round paired", "tournament", id, "round", last+1, "games", len(round), "bye", bye)
		return false, s.scheduleRound(ctx, id, last+1, round, bye)
	case SPRT:
		games, err := s.Games(ctx, id)
		if err != nil {
			return false, err
		}
		w, d, l := sprtCounts(games)
		st := Evaluate(cfg.SPRT, cfg.Label(0), cfg.Label(1), w, d, l)
		if st.Verdict != Undecided || st.Exhausted {
			log.Info("sprt finished", "tournament", id, "verdict", st.Verdict, "llr", st.LLR)
			return true, nil
		}
		log.Info("sprt round", "tournament", id, "round", last+1, "llr", st.LLR, "games", w+d+l)
		left := cfg.SPRT.MaxGames - len(games)
		if cfg.SPRT.MaxGames <= 0 {
			left = 1 << 30
		}
		return false, s.scheduleRound(ctx, id, last+1, sprtRound(cfg, last+1, left), -1)
	}
	return true, nil
}

// SPRTResult returns the state of a stored SPRT run.
func (s *Store) SPRTResult(ctx context.Context, id int64) (SPRTState, error) {
	in, err := s.Tournament(ctx, id)
	if err != nil {
		return SPRTState{}, err
	}
	if in.Config.Format != SPRT {
		return SPRTState{}, fmt.Errorf("tournament %d is a %s, not an SPRT run", id, in.Config.Format)
	}
	games, err := s.Games(ctx, id)
	if err != nil {
		return SPRTState{}, err
	}
	w, d, l := sprtCounts(games)
	return Evaluate(in.Config.SPRT, in.Config.Label(0), in.Config.Label(1), w, d, l), nil
}

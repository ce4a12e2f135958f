package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	"kalah/egdb"
	"kalah/internal/cores"
	"kalah/tournament"
	"kalah/tournament/dist"
)

func init() {
	register(&command{name: "worker", summary: "play tournament games and run solve jobs for a coordinator on another machine (NATS)", run: runWorker})
}

func runWorker(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "worker", "--join nats://HOST:PORT [--jobs N] [--nats-token T] [--tt-mb N] [--egdb-dir DIR]",
		`Joins a coordinator's NATS server ("kalah tournament --listen-nats ADDR",
"kalah solve --nats embedded --listen-nats ADDR", or a server of your own)
and plays the tournament games and runs the solve jobs it hands out, --jobs
of each at a time, until stopped. A job this worker does not finish (it is
stopped or dies) goes to another worker. Solve jobs probe the largest
endgame database for their rules found in --egdb-dir, opened read-only.
See docs/SCALING.md.`)
	join := fs.String("join", "", "the coordinator's NATS address, nats://host:port")
	jobs := fs.Int("jobs", 0, "tournament games, and solve jobs, run at once (0: one a core each)")
	token := fs.String("nats-token", os.Getenv("KALAH_NATS_TOKEN"), "the coordinator's token (default $KALAH_NATS_TOKEN)")
	name := fs.String("name", "", "this worker's name in the results (default host-pid)")
	ttMB := fs.Int("tt-mb", 256, "transposition table of each solve slot, in MiB")
	egdbDir := fs.String("egdb-dir", "", "where solve jobs look for endgame databases, built with kalah egdb build (default: the data directory's egdb, or $KALAH_EGDB_DIR)")
	noSolve := fs.Bool("no-solve", false, "take tournament games only")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *join == "" {
		return usagef("give --join nats://HOST:PORT")
	}
	if *ttMB < 1 || *ttMB > 1<<20 {
		return usagef("--tt-mb %d: want 1 to %d", *ttMB, 1<<20)
	}
	if err := atLeast(0, "jobs", *jobs); err != nil {
		return err
	}
	url := *join
	if !strings.Contains(url, "://") {
		url = "nats://" + url
	}
	if *name == "" {
		*name = tournament.WorkerName()
	}
	nc, err := dist.Join(url, *token, *name, e.log)
	if err != nil {
		return err
	}
	defer nc.Close()
	if !nc.IsConnected() {
		// Join goes on trying in the background; nobody has joined
		// anything until the coordinator answers.
		e.note("waiting for the coordinator at %s (start it there, or check the address); Ctrl-C stops", url)
		for !nc.IsConnected() {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	slots := *jobs
	if slots <= 0 {
		slots = cores.N()
	}
	e.note("joined %s as %s, %s at a time; Ctrl-C stops", url, *name, count(slots, "job"))
	var wg sync.WaitGroup
	var serr error
	if !*noSolve {
		dir := *egdbDir
		if dir == "" {
			dir, _ = egdb.DefaultDir() // none: no database
		}
		sw := solveWorker(nc, *name, slots, *ttMB, dir, e)
		wg.Go(func() { serr = sw.Run(ctx) })
	}
	w := &dist.Worker{Conn: nc, Name: *name, Slots: slots, Log: e.log}
	err = w.Run(ctx)
	wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	if err == nil {
		err = serr
	}
	return err
}

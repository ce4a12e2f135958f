package main

import (
	"context"
	"os"
	"runtime"
	"strings"

	"kalah/tournament"
	"kalah/tournament/dist"
)

func init() {
	register(&command{name: "worker", summary: "play tournament games for a coordinator on another machine (NATS)", run: runWorker})
}

func runWorker(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "worker", "--join nats://HOST:PORT [--jobs N] [--nats-token T]",
		`Joins a tournament coordinator ("kalah tournament --listen-nats ADDR") and
plays the games it hands out, --jobs at a time, until stopped. A game this
worker does not finish (it is stopped or dies) goes to another worker.
See docs/SCALING.md.`)
	join := fs.String("join", "", "the coordinator's NATS address, nats://host:port")
	jobs := fs.Int("jobs", 0, "games played at once (0: one a core)")
	token := fs.String("nats-token", os.Getenv("KALAH_NATS_TOKEN"), "the coordinator's token (default $KALAH_NATS_TOKEN)")
	name := fs.String("name", "", "this worker's name in the results (default host-pid)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *join == "" {
		return usagef("give --join nats://HOST:PORT")
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
	slots := *jobs
	if slots <= 0 {
		slots = runtime.GOMAXPROCS(0)
	}
	e.log.Info("worker joined", "url", url, "name", *name, "jobs", slots)
	w := &dist.Worker{Conn: nc, Name: *name, Slots: slots, Log: e.log}
	err = w.Run(ctx)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

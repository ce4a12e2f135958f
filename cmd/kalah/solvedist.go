package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kalah"
	"kalah/egdb"
	solvedist "kalah/engine/dist"
	"kalah/internal/cores"
	"kalah/internal/datadir"
	"kalah/tournament"
	"kalah/tournament/dist"
)

// solveDistFlags spread a solve over workers (package engine/dist).
type solveDistFlags struct {
	nats    string
	listen  string
	token   string
	workers int
	plies   int
	ackWait time.Duration
	dir     string
	forget  bool
}

func addSolveDistFlags(fs *flag.FlagSet) *solveDistFlags {
	d := &solveDistFlags{}
	fs.StringVar(&d.nats, "nats", "", `solve by jobs on NATS JetStream: "embedded" (a server in this process) or nats://host:port (see docs/SCALING.md)`)
	fs.StringVar(&d.listen, "listen-nats", "", "with --nats embedded: let workers on other machines join at this host:port")
	fs.StringVar(&d.token, "nats-token", os.Getenv("KALAH_NATS_TOKEN"), "token workers must give (default $KALAH_NATS_TOKEN)")
	fs.IntVar(&d.workers, "workers", -1, "with --nats: solve jobs run in this process at once (-1: one a core; 0: none, remote workers only)")
	fs.IntVar(&d.plies, "split-plies", 4, "with --nats: moves the tree is expanded before its leaves become jobs")
	fs.DurationVar(&d.ackWait, "ack-wait", solvedist.DefaultAckWait, "with --nats: give a job to another worker when its worker gives no sign of life for this long")
	fs.StringVar(&d.dir, "nats-dir", "", "with --nats embedded: the server's files, which keep finished jobs across restarts (default nats in the data directory)")
	fs.BoolVar(&d.forget, "forget", false, "with --nats: delete the results stored for this problem first (to measure a solve from scratch)")
	return d
}

// solveDistributed is kalah solve --nats: the coordinator, an embedded
// server unless given one, and workers in this process.
func solveDistributed(ctx context.Context, e *env, r kalah.Rules, ef *engineFlags, d *solveDistFlags) error {
	p := r.Start()
	if *ef.position != "" {
		var err error
		if p, err = kalah.ParsePosition(*ef.position); err != nil {
			return usageError{err}
		}
		if err := p.CheckRules(&r); err != nil {
			return usageError{err}
		}
	}
	if p.Phase() != kalah.PhasePlay {
		return usagef("--nats: the position must be in play (solve pie openings without --nats)")
	}
	if d.plies < 0 || d.plies > 12 {
		return usagef("--split-plies %d: want 1 to 12", d.plies)
	}
	var nc *nats.Conn
	var join func(name string) (*nats.Conn, error)
	switch {
	case d.nats == "embedded":
		dir := d.dir
		if dir == "" {
			dir = datadir.Path("nats")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		srv, err := dist.Serve(dist.ServerConfig{Listen: d.listen, Token: d.token, StoreDir: dir})
		if err != nil {
			return err
		}
		defer srv.Shutdown()
		if u := srv.URL(); u != "" {
			e.note("workers on other machines may join: kalah worker --join %s", u)
		}
		join = func(string) (*nats.Conn, error) { return srv.Connect(d.token) }
	case d.listen != "":
		return usagef("--listen-nats needs --nats embedded")
	default:
		url := d.nats
		if !strings.Contains(url, "://") {
			url = "nats://" + url
		}
		join = func(name string) (*nats.Conn, error) { return dist.Join(url, d.token, name, e.log) }
	}
	nc, err := join("kalah solve coordinator")
	if err != nil {
		return err
	}
	defer nc.Close()
	if d.forget {
		js, err := jetstream.New(nc)
		if err != nil {
			return err
		}
		if err := solvedist.Clear(ctx, js, solvedist.ID(r, p, d.plies)); err != nil {
			return fmt.Errorf("forget stored results: %w", err)
		}
	}

	// Workers in this process share one endgame database.
	slots := d.workers
	if slots < 0 {
		slots = cores.N()
	}
	if slots > 0 {
		seeds := *ef.egdbSeeds
		if seeds < 0 && *ef.egdbFile == "" {
			seeds = autoSeeds(r, inHouses(p))
		}
		db, err := loadDB(ctx, e, r, *ef.egdbFile, max(seeds, 0))
		if err != nil {
			return err
		}
		if db != nil {
			defer db.Close()
		}
		wc, err := join(tournament.WorkerName())
		if err != nil {
			return err
		}
		defer wc.Close()
		// Deferred last, so it runs first: the workers stop before their
		// connection and database go.
		wctx, stopWorkers := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer func() { stopWorkers(); wg.Wait() }()
		w := &solvedist.Worker{Conn: wc, Name: tournament.WorkerName(), Slots: slots, TableMB: max(*ef.ttMB/slots, 1),
			DB: func(kalah.Rules) *egdb.DB { return db }}
		wg.Go(func() { w.Run(wctx) })
	}

	st := newStatus(e, "solving")
	c := &solvedist.Coordinator{Conn: nc, Rules: r, Plies: d.plies, Parallel: max(2*slots, 4), AckWait: d.ackWait, Log: e.log,
		Progress: func(s solvedist.Status) {
			st.show(fmt.Sprintf("%d leaves, jobs %d done (%d from before), %d waiting or running, value in [%+d, %+d], testing >= %+d, %s nodes, %v",
				s.Leaves, s.Done, s.Resumed, s.Pending, s.Lo, s.Hi, s.Gamma, si(float64(s.Nodes)), s.Elapsed.Round(100*time.Millisecond)))
		}}
	res, err := c.Solve(ctx, p)
	st.done()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			e.log.Info("stopped: run the same command again to go on where it stopped")
		}
		return err
	}
	s := res.Status
	verdict := outcome(p, res.Value+diff(p)) + " with best play; " + res.Best.String() + " is a best move"
	if *ef.jsonOut {
		return json.NewEncoder(e.stdout).Encode(struct {
			Rules    kalah.Rules      `json:"rules"`
			Position string           `json:"position"`
			ToMove   kalah.Side       `json:"to_move"`
			Value    int              `json:"value"`
			Final    int              `json:"final"`
			Best     kalah.Move       `json:"best"`
			Verdict  string           `json:"verdict"`
			Status   solvedist.Status `json:"status"`
		}{r, p.String(), p.ToMove(), res.Value, res.Value + diff(p), res.Best, verdict, s})
	}
	fmt.Fprintf(e.stdout, "rules:    %s\nposition: %s\nverdict:  %s\nvalue:    %+d for %s: the final store difference it can force (%+d) less the present one (%+d)\nbest:     %s\njobs:     %d leaves, %d results (%d this run, %d from before), %d withdrawn\nnodes:    %d (by the workers)\ntime:     %v\n",
		r, p, verdict, res.Value, p.ToMove(), res.Value+diff(p), diff(p), res.Best, s.Leaves, s.Known, s.Done, s.Resumed, s.Withdraw, s.Nodes, s.Elapsed.Round(time.Millisecond))
	return nil
}

// solveWorker takes solve jobs for kalah worker: one engine a slot, the
// endgame database of each rule variant opened read-only once.
func solveWorker(nc *nats.Conn, name string, slots, ttMB int, egdbDir string, e *env) *solvedist.Worker {
	var mu sync.Mutex
	dbs := map[string]*egdb.DB{}
	open := func(r kalah.Rules) *egdb.DB {
		mu.Lock()
		defer mu.Unlock()
		k := fmt.Sprintf("%+v", r)
		if db, ok := dbs[k]; ok {
			return db
		}
		dbs[k] = nil
		if egdb.Supported(r) != nil || egdbDir == "" {
			return nil
		}
		for seeds := egdb.MaxSeeds; seeds >= 1; seeds-- {
			path := filepath.Join(egdbDir, egdb.FileName(r, seeds))
			if _, err := os.Stat(path); err != nil {
				continue
			}
			db, err := egdb.Open(path, false)
			if err == nil {
				err = db.Check(r)
			}
			if err != nil {
				e.log.Warn("endgame database not used", "file", path, "err", err)
				continue
			}
			e.log.Info("endgame database", "file", path, "seeds", db.Seeds())
			dbs[k] = db
			return db
		}
		e.log.Info("no endgame database for these rules", "rules", r.String(), "dir", egdbDir)
		return nil
	}
	return &solvedist.Worker{Conn: nc, Name: name, Slots: slots, TableMB: ttMB, DB: open, Log: e.log}
}

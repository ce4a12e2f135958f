// Package dist spreads a tournament's games over machines with NATS
// JetStream.
//
// The coordinator (the process running the tournament, the only one that
// writes its database) publishes each game still to be played as a job on
// the work-queue stream KALAH_JOBS, subject kalah.jobs.<run> (a fresh id
// for every run, so coordinators can share a server).
// Workers, in the same process or on other machines ("kalah worker --join
// nats://host:4222"), pull jobs from the shared durable consumer "workers"
// one at a time a slot, play them through the referee while telling the
// server every AckWait/3 that they are still at it, publish the result on
// KALAH_RESULTS (kalah.results.<run>, named in the job) and only then acknowledge the
// job. A worker that dies mid-game stops acknowledging; after AckWait the
// server hands the job to another worker. The coordinator stores each
// result in one transaction keyed by the scheduled game, ignoring any game
// that already has one, and acknowledges the result message only after the
// commit, so every game counts exactly once whatever dies when.
//
// By default the NATS server is embedded in the coordinator (Serve); it
// listens on a TCP port only when remote workers are wanted.
package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"kalah/tournament"
)

// Stream, consumer and subject names.
const (
	JobsStream     = "KALAH_JOBS"
	ResultsStream  = "KALAH_RESULTS"
	WorkerConsumer = "workers"
	jobsSubject    = "kalah.jobs."
	resultsSubject = "kalah.results."
)

// DefaultAckWait is how long a job may go without a sign of life from its
// worker before it is given to another.
const DefaultAckWait = 30 * time.Second

// Server is an embedded NATS server with JetStream.
type Server struct {
	ns  *server.Server
	dir string
}

// ServerConfig configures an embedded server.
type ServerConfig struct {
	// Listen is host:port for remote workers ("0.0.0.0:4222"); empty means
	// no network port at all, only connections inside this process.
	Listen string
	// Token, if set, is required of every client (kalah worker --token).
	Token string
	// StoreDir holds JetStream's files; empty means a temporary directory
	// removed on Shutdown. The streams are kept in memory either way: the
	// tournament database is the record, and a restarted coordinator
	// publishes again the games still to be played.
	StoreDir string
}

// Serve starts an embedded NATS server with JetStream.
func Serve(cfg ServerConfig) (*Server, error) {
	s := &Server{}
	dir := cfg.StoreDir
	if dir == "" {
		d, err := os.MkdirTemp("", "kalah-nats")
		if err != nil {
			return nil, err
		}
		dir, s.dir = d, d
	}
	opts := &server.Options{
		ServerName:         "kalah",
		JetStream:          true,
		StoreDir:           dir,
		JetStreamMaxMemory: 1 << 30,
		NoSigs:             true,
		NoLog:              true,
		Authorization:      cfg.Token,
		MaxPayload:         8 << 20,
	}
	if cfg.Listen == "" {
		opts.DontListen = true
	} else {
		host, port, err := splitHostPort(cfg.Listen)
		if err != nil {
			s.cleanup()
			return nil, err
		}
		opts.Host, opts.Port = host, port
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		s.cleanup()
		return nil, fmt.Errorf("nats server: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		s.cleanup()
		return nil, fmt.Errorf("nats server on %q did not start", cfg.Listen)
	}
	s.ns = ns
	return s, nil
}

func splitHostPort(addr string) (string, int, error) {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			p, err := strconv.Atoi(addr[i+1:])
			if err != nil || p < 0 || p > 65535 {
				break
			}
			host := addr[:i]
			if len(host) > 1 && host[0] == '[' {
				host = host[1 : len(host)-1]
			}
			if host == "" {
				host = "0.0.0.0"
			}
			return host, p, nil
		}
	}
	return "", 0, fmt.Errorf("nats listen address %q: want host:port", addr)
}

func (s *Server) cleanup() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// URL returns the address remote workers join, or "" when the server
// takes no network connections.
func (s *Server) URL() string {
	if s.ns.Addr() == nil {
		return ""
	}
	return s.ns.ClientURL()
}

// Connect opens a client connection inside this process.
func (s *Server) Connect(token string) (*nats.Conn, error) {
	opts := []nats.Option{nats.InProcessServer(s.ns), nats.Name("kalah coordinator")}
	if token != "" {
		opts = append(opts, nats.Token(token))
	}
	return nats.Connect("", opts...)
}

// Shutdown stops the server.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
	s.cleanup()
}

// Join connects to a coordinator's NATS server, retrying for ever until it
// answers and reconnecting if the connection drops; log (nil: none) hears
// of connections, disconnections and errors such as a wrong token.
func Join(url, token, name string, log *slog.Logger) (*nats.Conn, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var failures atomic.Int64
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second), nats.RetryOnFailedConnect(true),
		nats.ConnectHandler(func(c *nats.Conn) { log.Info("connected", "url", c.ConnectedUrlRedacted()) }),
		nats.ReconnectHandler(func(c *nats.Conn) { log.Info("reconnected", "url", c.ConnectedUrlRedacted()) }),
		nats.DisconnectErrHandler(func(c *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected", "err", err)
			}
		}),
		nats.ErrorHandler(func(c *nats.Conn, _ *nats.Subscription, err error) { log.Warn("nats", "err", err) }),
		nats.ReconnectErrHandler(func(c *nats.Conn, err error) {
			// Every second while the coordinator is away: say so now and
			// then, with the reason (a wrong token shows here).
			if n := failures.Add(1); n == 1 || n%30 == 0 {
				log.Warn("cannot reach the coordinator yet", "url", url, "attempts", n, "err", err)
			}
		}),
	}
	if token != "" {
		opts = append(opts, nats.Token(token))
	}
	// A first attempt without retrying surfaces a refusal (a wrong token)
	// at once; a coordinator not up yet is waited for.
	first := append(opts[:len(opts):len(opts)], nats.RetryOnFailedConnect(false))
	nc, err := nats.Connect(url, first...)
	if err == nil {
		return nc, nil
	}
	if errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization") {
		return nil, fmt.Errorf("join %s: %w (check --nats-token)", url, err)
	}
	log.Info("waiting for the coordinator", "url", url, "err", err)
	nc, err = nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("join %s: %w", url, err)
	}
	return nc, nil
}

// setup creates the streams and the workers' consumer if they are missing.
func setup(ctx context.Context, js jetstream.JetStream, ackWait time.Duration) (jetstream.Consumer, error) {
	for _, sc := range []jetstream.StreamConfig{
		{Name: JobsStream, Subjects: []string{jobsSubject + ">"}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage},
		// Results nobody collects (their coordinator died) expire; the
		// games are played again when the tournament resumes.
		{Name: ResultsStream, Subjects: []string{resultsSubject + ">"}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage, MaxAge: time.Hour},
	} {
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return nil, fmt.Errorf("nats stream %s: %w", sc.Name, err)
		}
	}
	c, err := js.CreateOrUpdateConsumer(ctx, JobsStream, jetstream.ConsumerConfig{
		Durable:       WorkerConsumer,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       ackWait,
		MaxDeliver:    -1,
		MaxAckPending: 100000,
	})
	if err != nil {
		return nil, fmt.Errorf("nats consumer %s: %w", WorkerConsumer, err)
	}
	return c, nil
}

// Executor plays a tournament's games as jobs on JetStream. It implements
// tournament.Executor.
type Executor struct {
	// Conn is a connection to the NATS server (Server.Connect or Join).
	Conn *nats.Conn
	// AckWait is how long a job may go without a sign of life before it is
	// played elsewhere; zero means DefaultAckWait.
	AckWait time.Duration
	// Log receives notes on redeliveries and duplicates; nil discards them.
	Log *slog.Logger
}

func (e *Executor) log() *slog.Logger {
	if e.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Log
}

// Execute publishes the jobs and commits results as they come back, until
// every job has one.
func (e *Executor) Execute(ctx context.Context, jobs []tournament.Job, commit func([]tournament.Result) error) error {
	if len(jobs) == 0 {
		return nil
	}
	js, err := jetstream.New(e.Conn)
	if err != nil {
		return err
	}
	ackWait := e.AckWait
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	if _, err := setup(ctx, js, ackWait); err != nil {
		return err
	}
	// Every call gets subjects of its own, so coordinators sharing a NATS
	// server (even ones whose databases number tournaments alike) never
	// see each other's jobs or results.
	run := nuid.Next()
	subj := jobsSubject + run
	reply := resultsSubject + run
	results, err := js.CreateOrUpdateConsumer(ctx, ResultsStream, jetstream.ConsumerConfig{
		Durable:       "results-" + run,
		FilterSubject: reply,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       time.Minute,
		MaxDeliver:    -1,
	})
	if err != nil {
		return fmt.Errorf("nats results consumer: %w", err)
	}
	defer func() {
		// Duplicates still queued or in flight are no longer wanted.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		js.DeleteConsumer(cctx, ResultsStream, "results-"+run)
		if s, err := js.Stream(cctx, JobsStream); err == nil {
			s.Purge(cctx, jetstream.WithPurgeSubject(subj))
		}
		if s, err := js.Stream(cctx, ResultsStream); err == nil {
			s.Purge(cctx, jetstream.WithPurgeSubject(reply))
		}
	}()
	want := make(map[int64]bool, len(jobs))
	for _, j := range jobs {
		want[j.Game.ID] = true
	}
	if err := publishJobs(ctx, js, subj, reply, jobs); err != nil {
		return err
	}
	log := e.log()
	lastNews := time.Now()
	for len(want) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if time.Since(lastNews) > time.Minute {
			lastNews = time.Now()
			log.Info("waiting for results", "games", len(want))
		}
		batch, err := results.Fetch(64, jetstream.FetchMaxWait(500*time.Millisecond))
		if err != nil {
			if errors.Is(err, nats.ErrConnectionClosed) {
				return err
			}
			log.Warn("fetch results", "err", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		msgs := batch.Messages()
		for msg := range msgs {
			// Take whatever else has arrived too, and store it in one
			// transaction; acknowledge only after the commit.
			ready := []jetstream.Msg{msg}
		drain:
			for len(ready) < 64 {
				select {
				case m, ok := <-msgs:
					if !ok {
						break drain
					}
					ready = append(ready, m)
				default:
					break drain
				}
			}
			var rs []tournament.Result
			var acks []jetstream.Msg
			for _, m := range ready {
				var r tournament.Result
				if err := json.Unmarshal(m.Data(), &r); err != nil {
					log.Warn("malformed result dropped", "err", err)
					m.Term()
					continue
				}
				if !want[r.GameID] {
					log.Info("result for a game already stored ignored", "game", r.GameID, "worker", r.Worker)
					m.Ack()
					continue
				}
				delete(want, r.GameID)
				rs = append(rs, r)
				acks = append(acks, m)
			}
			if len(rs) > 0 {
				lastNews = time.Now()
				if err := commit(rs); err != nil {
					for _, m := range acks {
						m.Nak()
					}
					return err
				}
			}
			for _, m := range acks {
				if err := m.Ack(); err != nil {
					log.Warn("ack result", "err", err)
				}
			}
			if len(want) == 0 {
				// Done; anything still in this batch is not wanted.
				break
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			log.Debug("fetch results", "err", err)
		}
	}
	return nil
}

// publishJobs publishes the jobs in chunks, waiting for the server to
// confirm each chunk; a job the server did not take is published again
// once, synchronously.
func publishJobs(ctx context.Context, js jetstream.JetStream, subj, reply string, jobs []tournament.Job) error {
	const chunk = 500
	for len(jobs) > 0 {
		n := min(chunk, len(jobs))
		datas := make([][]byte, n)
		futures := make([]jetstream.PubAckFuture, n)
		for i, j := range jobs[:n] {
			data, err := json.Marshal(jobMsg{Job: j, Reply: reply})
			if err != nil {
				return err
			}
			datas[i] = data
			if futures[i], err = js.PublishAsync(subj, data); err != nil {
				futures[i] = nil
			}
		}
		select {
		case <-js.PublishAsyncComplete():
		case <-ctx.Done():
			return ctx.Err()
		}
		for i, f := range futures {
			ok := false
			if f != nil {
				select {
				case <-f.Ok():
					ok = true
				case <-f.Err():
				}
			}
			if !ok {
				if _, err := js.Publish(ctx, subj, datas[i]); err != nil {
					return fmt.Errorf("publish job for game %d: %w", jobs[i].Game.ID, err)
				}
			}
		}
		jobs = jobs[n:]
	}
	return nil
}

// jobMsg is a job on the wire with the subject its result goes to.
type jobMsg struct {
	tournament.Job
	Reply string `json:"reply"`
}

// Worker pulls jobs and plays them.
type Worker struct {
	// Conn is a connection to the coordinator's NATS server.
	Conn *nats.Conn
	// Name identifies the worker in results; tournament.WorkerName() when
	// empty.
	Name string
	// Slots is the number of games played at once; one when zero.
	Slots int
	// Log receives a line a game; nil discards them.
	Log *slog.Logger
	// OnStart, if set, is called as a slot starts a game (tests use it to
	// know a game is in flight).
	OnStart func(tournament.Job)
}

// Run plays jobs until ctx ends. It waits for the coordinator to create the
// job stream, and keeps going across reconnects.
func (w *Worker) Run(ctx context.Context) error {
	log := w.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	name := w.Name
	if name == "" {
		name = tournament.WorkerName()
	}
	js, err := jetstream.New(w.Conn)
	if err != nil {
		return err
	}
	slots := max(w.Slots, 1)
	var wg sync.WaitGroup
	for slot := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.slot(ctx, js, fmt.Sprintf("%s/%d", name, slot), log)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

func (w *Worker) slot(ctx context.Context, js jetstream.JetStream, name string, log *slog.Logger) {
	var cons jetstream.Consumer
	for ctx.Err() == nil {
		if cons == nil {
			c, err := js.Consumer(ctx, JobsStream, WorkerConsumer)
			if err != nil {
				log.Debug("waiting for jobs", "err", err)
				sleep(ctx, time.Second)
				continue
			}
			cons = c
		}
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(500*time.Millisecond))
		if err != nil {
			log.Debug("fetch job", "err", err)
			cons = nil
			sleep(ctx, 200*time.Millisecond)
			continue
		}
		for msg := range batch.Messages() {
			w.play(ctx, js, cons, msg, name, log)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			log.Debug("fetch job", "err", err)
			if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrConsumerDeleted) {
				cons = nil
			}
		}
	}
}

func (w *Worker) play(ctx context.Context, js jetstream.JetStream, cons jetstream.Consumer, msg jetstream.Msg, name string, log *slog.Logger) {
	var jm jobMsg
	if err := json.Unmarshal(msg.Data(), &jm); err != nil || !strings.HasPrefix(jm.Reply, resultsSubject) {
		log.Warn("malformed job dropped", "err", err, "reply", jm.Reply)
		msg.Term()
		return
	}
	job := jm.Job
	ackWait := DefaultAckWait
	if info := cons.CachedInfo(); info != nil && info.Config.AckWait > 0 {
		ackWait = info.Config.AckWait
	}
	if w.OnStart != nil {
		w.OnStart(job)
	}
	log.Info("playing", "tournament", job.Tournament, "game", job.Game.ID, "south", job.South, "north", job.North)
	gctx, stop := context.WithCancel(ctx)
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		t := time.NewTicker(max(ackWait/3, 50*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-gctx.Done():
				return
			case <-t.C:
				msg.InProgress()
			}
		}
	}()
	r, err := tournament.Play(gctx, job, name)
	stop()
	<-beat
	if err != nil {
		if ctx.Err() != nil {
			// Shutting down: let another worker have it at once.
			msg.Nak()
			return
		}
		if errors.Is(err, tournament.ErrCannotPlay) {
			// Leave it to a worker that can; back off so this one does
			// not take it again at once.
			log.Warn("job left to another worker", "game", job.Game.ID, "err", err)
			msg.NakWithDelay(5 * time.Second)
			sleep(ctx, time.Second)
			return
		}
		// A job that cannot be played anywhere is a coordinator's bug;
		// keep it in the queue (the coordinator waits for it) and say so.
		log.Error("job cannot be played", "game", job.Game.ID, "err", err)
		msg.NakWithDelay(30 * time.Second)
		return
	}
	data, err := json.Marshal(r)
	if err != nil {
		msg.Nak()
		return
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err := js.Publish(pctx, jm.Reply, data); err != nil {
		log.Warn("publish result", "game", job.Game.ID, "err", err)
		msg.Nak()
		return
	}
	if err := msg.Ack(); err != nil {
		log.Debug("ack job", "game", job.Game.ID, "err", err)
	}
	log.Info("played", "game", job.Game.ID, "score", fmt.Sprintf("%d-%d", r.SouthSeeds, r.NorthSeeds), "ms", r.Millis)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

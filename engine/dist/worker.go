package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kalah"
	"kalah/egdb"
	"kalah/engine"
)

// Worker takes leaf tests from the queue and runs them. Each slot keeps an
// engine (and its transposition table) a rule variant across jobs, since
// leaves of one tree share much of their subtrees.
type Worker struct {
	// Conn is a connection to the coordinator's NATS server.
	Conn *nats.Conn
	// Name identifies the worker in results.
	Name string
	// Slots is the number of jobs run at once, each on one thread (default
	// one).
	Slots int
	// TableMB is each slot's transposition table (default 256).
	TableMB int
	// DB, if set, returns the endgame database to probe for rules (nil for
	// none). It is called once for each rule variant and slot; the database
	// is only read, so slots share it.
	DB func(kalah.Rules) *egdb.DB
	// Log receives a line a job; nil discards them.
	Log *slog.Logger
	// OnStart, if set, is called as a slot starts a job, with the job's
	// key; OnDone after its result is stored. Tests use them to count work
	// and to stop a worker in the middle of a job.
	OnStart func(key string)
	OnDone  func(key string)
}

// Run takes jobs until ctx ends, waiting for a coordinator to create the
// stream and carrying on across reconnects.
func (w *Worker) Run(ctx context.Context) error {
	js, err := jetstream.New(w.Conn)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	for i := range max(w.Slots, 1) {
		wg.Go(func() { w.slot(ctx, js, fmt.Sprintf("%s/%d", w.Name, i)) })
	}
	wg.Wait()
	return ctx.Err()
}

func (w *Worker) log() *slog.Logger {
	if w.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Log
}

func (w *Worker) slot(ctx context.Context, js jetstream.JetStream, name string) {
	log := w.log()
	engines := map[string]*engine.Engine{}
	var cons jetstream.Consumer
	var kv jetstream.KeyValue
	for ctx.Err() == nil {
		if cons == nil || kv == nil {
			c, err := js.Consumer(ctx, JobsStream, SolverConsumer)
			if err == nil {
				kv, err = js.KeyValue(ctx, Bucket)
			}
			if err != nil {
				log.Debug("waiting for solve jobs", "err", err)
				sleep(ctx, time.Second)
				continue
			}
			cons = c
		}
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			cons = nil
			sleep(ctx, 200*time.Millisecond)
			continue
		}
		for msg := range batch.Messages() {
			w.run(ctx, cons, kv, msg, name, engines)
		}
		if err := batch.Error(); errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrConsumerDeleted) {
			cons = nil
		}
	}
}

func (w *Worker) engine(r kalah.Rules, engines map[string]*engine.Engine) (*engine.Engine, error) {
	k := fmt.Sprintf("%+v", r)
	if e := engines[k]; e != nil {
		return e, nil
	}
	o := engine.Options{TableMB: w.TableMB, Threads: 1}
	if o.TableMB <= 0 {
		o.TableMB = 256
	}
	if w.DB != nil {
		o.DB = w.DB(r)
	}
	e, err := engine.New(r, o)
	if err != nil {
		return nil, err
	}
	engines[k] = e
	return e, nil
}

func (w *Worker) run(ctx context.Context, cons jetstream.Consumer, kv jetstream.KeyValue, msg jetstream.Msg, name string, engines map[string]*engine.Engine) {
	log := w.log()
	j, err := decodeJob(msg.Data())
	var p kalah.Position
	if err == nil {
		p, err = kalah.ParsePosition(j.Position)
	}
	if err == nil {
		err = p.CheckRules(&j.Rules)
	}
	if err != nil {
		log.Warn("malformed solve job dropped", "err", err)
		msg.Term()
		return
	}
	// Done already (a redelivered job whose first worker finished late)?
	if _, err := kv.Get(ctx, j.Key); err == nil {
		msg.Ack()
		return
	}
	e, err := w.engine(j.Rules, engines)
	if err != nil {
		log.Error("solve job cannot be run", "key", j.Key, "err", err)
		msg.NakWithDelay(30 * time.Second)
		return
	}
	ackWait := DefaultAckWait
	if info := cons.CachedInfo(); info != nil && info.Config.AckWait > 0 {
		ackWait = info.Config.AckWait
	}
	if w.OnStart != nil {
		w.OnStart(j.Key)
	}
	// The job's position may be split by the coordinator while it runs
	// (its children become jobs): then it is not wanted any more.
	var splitKey string
	if node, _, ok := strings.Cut(j.Key[len(j.Solve)+1:], "."); ok {
		splitKey = j.Solve + ".split." + node
	}
	jctx, stop := context.WithCancel(ctx)
	var withdrawn atomic.Bool
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		t := time.NewTicker(min(max(ackWait/3, 50*time.Millisecond), time.Second))
		defer t.Stop()
		for {
			select {
			case <-jctx.Done():
				return
			case <-t.C:
				msg.InProgress()
				if splitKey != "" {
					if _, err := kv.Get(jctx, splitKey); err == nil {
						withdrawn.Store(true)
						stop()
						return
					}
				}
			}
		}
	}()
	b, err := e.Test(jctx, p, j.Gamma)
	stop()
	<-beat
	if err != nil {
		if withdrawn.Load() {
			log.Info("solve job withdrawn: its position was split", "key", j.Key)
			msg.Ack()
			return
		}
		if ctx.Err() != nil {
			msg.Nak() // shutting down: another worker takes it at once
			return
		}
		log.Error("solve job failed", "key", j.Key, "err", err)
		msg.NakWithDelay(30 * time.Second)
		return
	}
	data, err := json.Marshal(result{Value: b.Value, Lower: b.Lower, Exact: b.Exact, Nodes: b.Nodes, Millis: b.Time.Milliseconds(), Worker: name})
	if err != nil {
		msg.Nak()
		return
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err := kv.Put(pctx, j.Key, data); err != nil {
		log.Warn("store result", "key", j.Key, "err", err)
		msg.Nak()
		return
	}
	if w.OnDone != nil {
		w.OnDone(j.Key)
	}
	msg.Ack()
	rel := "<="
	if b.Lower {
		rel = ">="
	}
	log.Info("solve job done", "key", j.Key, "gamma", j.Gamma, "value", rel+fmt.Sprint(b.Value), "nodes", b.Nodes, "ms", b.Time.Milliseconds())
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

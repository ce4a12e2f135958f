package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kalah"
	"kalah/engine"
)

// Coordinator solves one position by jobs on JetStream. The zero value of
// every field but Conn and Rules is usable.
type Coordinator struct {
	// Conn is a connection to the NATS server the workers use.
	Conn *nats.Conn
	// Rules are the rules of the position.
	Rules kalah.Rules
	// Plies is how many moves the tree is expanded before the leaves
	// become jobs (default 4).
	Plies int
	// Parallel is how many jobs should be waiting or running at once for
	// the workers to stay busy (default 4): with fewer, more moves are
	// followed where one proof would do.
	Parallel int
	// EstimateDepth is the depth of the shallow search that orders the
	// leaves (default 10).
	EstimateDepth int
	// SplitAfter is how long a job may run, while workers would be idle,
	// before its position is split into its children's jobs (default 10
	// s): the longest job would otherwise set the time of the whole solve.
	SplitAfter time.Duration
	// AckWait is how long a job may go without a sign of life before it is
	// given to another worker (default DefaultAckWait).
	AckWait time.Duration
	// Log receives notes (nil: none).
	Log *slog.Logger
	// Progress, if set, is called after every result and now and then.
	Progress func(Status)
}

// Status is how a distributed solve stands.
type Status struct {
	ID       string        `json:"id"`
	Leaves   int           `json:"leaves"` // positions at the bottom of the tree
	Splits   int           `json:"splits"` // leaves split into their children while solving
	Gamma    int           `json:"gamma"`  // the root test under way
	Lo       int           `json:"lo"`     // the root's value lies in [Lo, Hi]
	Hi       int           `json:"hi"`
	Known    int           `json:"known"`   // results in the bucket, from this run or earlier ones
	Done     int           `json:"done"`    // jobs finished during this run
	Pending  int           `json:"pending"` // jobs published and not yet answered
	Elapsed  time.Duration `json:"elapsed_ns"`
	Nodes    uint64        `json:"nodes"`     // searched by the workers for the results known
	Resumed  int           `json:"resumed"`   // results found from an earlier run
	Withdraw int           `json:"withdrawn"` // jobs withdrawn as no longer needed
}

// Result is a distributed solve's answer.
type Result struct {
	// Value is the exact value for the side to move, as engine.Result's.
	Value int `json:"value"`
	// Best is a move proven to reach Value (there may be others).
	Best   kalah.Move `json:"best"`
	Status Status     `json:"status"`
}

// Solve proves the value of p (in play) with the workers' help. It returns
// when the value is proven or ctx ends; started again with the same
// problem after any stop, it carries on where the results stored stop.
func (c *Coordinator) Solve(ctx context.Context, p kalah.Position) (Result, error) {
	start := time.Now()
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := c.Rules
	if err := r.Validate(); err != nil {
		return Result{}, err
	}
	if err := p.CheckRules(&r); err != nil {
		return Result{}, err
	}
	if p.Phase() != kalah.PhasePlay {
		return Result{}, engine.ErrNotInPlay
	}
	if p.Over(&r) {
		q := p
		q.Settle(&r)
		return Result{Value: moverDiff(&q, p.ToMove()) - moverDiff(&p, p.ToMove())}, nil
	}
	plies := c.Plies
	if plies <= 0 {
		plies = 4
	}
	parallel := c.Parallel
	if parallel <= 0 {
		parallel = 4
	}
	ackWait := c.AckWait
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	id := ID(r, p, plies)
	t := expand(r, p, plies)
	if err := c.estimate(ctx, t); err != nil {
		return Result{}, err
	}
	js, err := jetstream.New(c.Conn)
	if err != nil {
		return Result{}, err
	}
	kv, err := setup(ctx, js, ackWait)
	if err != nil {
		return Result{}, err
	}
	stream, err := js.Stream(ctx, JobsStream)
	if err != nil {
		return Result{}, err
	}
	subj := jobsSubject + id
	// Jobs an earlier run left in the queue are published again if still
	// needed; results of jobs running now land in the bucket anyway.
	if err := stream.Purge(ctx, jetstream.WithPurgeSubject(subj)); err != nil {
		return Result{}, fmt.Errorf("purge old jobs: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		stream.Purge(cctx, jetstream.WithPurgeSubject(subj))
	}()
	watch, err := kv.Watch(ctx, id+".>")
	if err != nil {
		return Result{}, fmt.Errorf("watch results: %w", err)
	}
	defer watch.Stop()

	splitAfter := c.SplitAfter
	if splitAfter <= 0 {
		splitAfter = 10 * time.Second
	}
	st := Status{ID: id, Leaves: len(t.leaves())}
	type pub struct {
		seq uint64
		at  time.Time
	}
	published := map[string]pub{} // job key -> stream sequence, time
	splitting := map[string]bool{}
	initial := true
	apply := func(e jetstream.KeyValueEntry) {
		rest := strings.TrimPrefix(e.Key(), id+".")
		nodeKey, tail, _ := strings.Cut(rest, ".")
		if nodeKey == "split" {
			// Splits are stored before the results of the children they
			// make, so a restart rebuilds the same tree in order.
			if n := t.nodes[tail]; n != nil && n.kids == nil {
				st.Leaves += len(t.split(n)) - 1
				st.Splits++
			}
			return
		}
		n := t.nodes[nodeKey]
		var res result
		if n == nil || json.Unmarshal(e.Value(), &res) != nil {
			log.Warn("result not of this tree ignored", "key", e.Key())
			return
		}
		n.learn(res.Value, res.Lower, res.Exact)
		st.Known++
		st.Nodes += res.Nodes
		if initial {
			st.Resumed++
		} else {
			st.Done++
		}
		if _, ok := published[rest]; ok {
			delete(published, rest)
		}
	}
	gamma, dir, streak := 0, 0, 0
	first := true
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		if !initial {
			t.update()
			if first {
				gamma, first = t.root.est, false
			}
			root := t.root
			st.Lo, st.Hi = root.lo, root.hi
			if root.lo == root.hi {
				break
			}
			switch {
			case gamma <= root.lo && dir > 0, gamma > root.hi && dir < 0:
				streak++
			case gamma <= root.lo:
				dir, streak = 1, 1
			case gamma > root.hi:
				dir, streak = -1, 1
			}
			gamma = t.nextGamma(gamma, streak)
			st.Gamma = gamma
			var need map[string]task
			for width := 1; width <= 8; width++ {
				need = map[string]task{}
				t.need(root, gamma, width, need, map[task]bool{})
				if len(need) >= parallel || len(need) == 0 {
					break
				}
			}
			// Withdraw what is not needed any more, publish what is new.
			for k, pb := range published {
				if _, ok := need[k]; !ok {
					stream.DeleteMsg(ctx, pb.seq)
					delete(published, k)
					st.Withdraw++
				}
			}
			for k, tk := range need {
				if _, ok := published[k]; ok {
					continue
				}
				data, err := json.Marshal(job{Solve: id, Key: id + "." + k, Rules: r, Position: tk.n.pos.String(), Gamma: tk.gamma})
				if err != nil {
					return Result{}, err
				}
				ack, err := js.Publish(ctx, subj, data)
				if err != nil {
					return Result{}, fmt.Errorf("publish job: %w", err)
				}
				published[k] = pub{ack.Sequence, time.Now()}
			}
			// Too few jobs to keep the workers busy: split the oldest long
			// job's position (its job goes on; its bound still counts).
			if len(need) < parallel {
				var oldest string
				var at time.Time
				for k, pb := range published {
					n := need[k].n
					if time.Since(pb.at) > splitAfter && n.seeds > 8 && !splitting[n.key] && (oldest == "" || pb.at.Before(at)) {
						oldest, at = k, pb.at
					}
				}
				if oldest != "" {
					n := need[oldest].n
					splitting[n.key] = true
					if _, err := kv.Put(ctx, id+".split."+n.key, []byte(n.pos.String())); err != nil {
						return Result{}, fmt.Errorf("store split: %w", err)
					}
					log.Info("splitting a long job", "position", n.pos.String())
				}
			}
			st.Pending = len(published)
			if len(need) == 0 {
				return Result{}, errors.New("no job can decide the root (a bug)")
			}
			st.Elapsed = time.Since(start)
			if c.Progress != nil {
				c.Progress(st)
			}
		}
		select {
		case <-ctx.Done():
			return Result{}, ctx.Err()
		case <-tick.C:
			st.Elapsed = time.Since(start)
			if c.Progress != nil && !initial {
				c.Progress(st)
			}
		case e, ok := <-watch.Updates():
			if !ok {
				return Result{}, errors.New("result watch closed")
			}
			if e == nil { // every stored result has been read
				if initial && st.Resumed > 0 {
					log.Info("resuming", "solve", id, "results", st.Resumed)
				}
				initial = false
				continue
			}
			if e.Operation() != jetstream.KeyValuePut {
				continue
			}
			apply(e)
			// Take whatever else has come before deciding anything.
		drain:
			for {
				select {
				case e, ok := <-watch.Updates():
					if !ok {
						return Result{}, errors.New("result watch closed")
					}
					if e == nil {
						initial = false
						continue
					}
					if e.Operation() == jetstream.KeyValuePut {
						apply(e)
					}
				default:
					break drain
				}
			}
		}
	}
	st.Elapsed = time.Since(start)
	st.Pending = 0
	if c.Progress != nil {
		c.Progress(st)
	}
	return Result{Value: t.root.lo, Best: t.best(), Status: st}, nil
}

// estimate gives every leaf a shallow value, so tests follow the most
// promising moves first.
func (c *Coordinator) estimate(ctx context.Context, t *tree) error {
	depth := c.EstimateDepth
	if depth <= 0 {
		depth = 10
	}
	e, err := engine.New(t.rules, engine.Options{TableMB: 16, Threads: 1, MaxDepth: depth})
	if err != nil {
		return err
	}
	for _, n := range t.leaves() {
		res, err := e.SearchDepth(ctx, n.pos, depth)
		if err != nil {
			return fmt.Errorf("estimate %s: %w", n.pos, err)
		}
		n.est = res.Value
		if res.Exact {
			// A proven value needs no job.
			n.leafLo, n.leafHi = res.Value, res.Value
		}
	}
	t.update()
	return nil
}

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"kalah"
	"kalah/internal/cores"
)

func init() {
	register(&command{name: "perft", summary: "count the move paths of a given length (a check of the rules engine)", run: runPerft})
}

// perftJob is a subtree left to count: its position and the plies (or
// turns) still to go.
type perftJob struct {
	pos   kalah.Position
	depth int
}

// perftCounter counts positions under one unit: a sowing or a whole turn a
// ply.
type perftCounter struct {
	rules *kalah.Rules
	turns bool
}

// count counts a job with the library's counters.
func (c perftCounter) count(j perftJob) uint64 {
	if c.turns {
		return kalah.PerftTurns(c.rules, j.pos, j.depth)
	}
	return kalah.Perft(c.rules, j.pos, j.depth)
}

// expand splits a job into the jobs after each move, counting at once the
// paths that end in this step. A sowing that earns an extra turn stays in
// the same turn when counting turns.
func (c perftCounter) expand(j perftJob) (jobs []perftJob, done uint64) {
	if j.depth <= 0 {
		return nil, 1
	}
	p := j.pos
	if p.Over(c.rules) {
		return nil, 0
	}
	if p.CanSwap() {
		if j.depth == 1 {
			done++
		} else {
			q := p
			q.Swap()
			jobs = append(jobs, perftJob{q, j.depth - 1})
		}
	}
	for _, m := range p.Moves() {
		if m == kalah.Swap {
			continue
		}
		q := p
		eff := q.Play(c.rules, int(m))
		switch {
		case eff&kalah.End != 0:
			if j.depth == 1 {
				done++
			}
		case c.turns && eff&kalah.Extra != 0:
			jobs = append(jobs, perftJob{q, j.depth})
		case j.depth == 1:
			done++
		default:
			jobs = append(jobs, perftJob{q, j.depth - 1})
		}
	}
	return jobs, done
}

// run counts a job on threads workers, split into many small jobs so the
// work spreads evenly and an interrupt is noticed soon. progress, if not
// nil, is called after each finished piece.
func (c perftCounter) run(ctx context.Context, j perftJob, threads int, progress func(done, all int)) (uint64, error) {
	jobs := []perftJob{j}
	var total uint64
	// Split until there are plenty of jobs, each still deep enough to be
	// worth a goroutine's attention.
	for len(jobs) > 0 && len(jobs) < 512 {
		deep := false
		var next []perftJob
		for _, x := range jobs {
			if x.depth < 4 {
				next = append(next, x)
				continue
			}
			deep = true
			more, done := c.expand(x)
			total += done
			next = append(next, more...)
		}
		jobs = next
		if !deep {
			break
		}
	}
	var (
		sum      atomic.Uint64
		finished atomic.Int64
		nextJob  atomic.Int64
		wg       sync.WaitGroup
	)
	for range max(threads, 1) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(nextJob.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				sum.Add(c.count(jobs[i]))
				if n := finished.Add(1); progress != nil {
					progress(int(n), len(jobs))
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return total + sum.Load(), nil
}

// perftResult is the JSON form of a perft run.
type perftResult struct {
	Rules          kalah.Rules   `json:"rules"`
	Position       string        `json:"position"`
	Depth          int           `json:"depth"`
	Unit           string        `json:"unit"` // "sowing" or "turn"
	Nodes          uint64        `json:"nodes"`
	Divide         []perftDivide `json:"divide,omitempty"`
	Seconds        float64       `json:"seconds"`
	NodesPerSecond float64       `json:"nodes_per_second"`
	Threads        int           `json:"threads"`
}

// perftDivide is the count below one first move.
type perftDivide struct {
	Move  string `json:"move"`
	Nodes uint64 `json:"nodes"`
}

func runPerft(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "perft", "--depth D [--turns] [--divide] [--position POS] [--json] [rules flags]",
		"Counts the positions exactly D plies from the start (or --position): every\n"+
			"path of D plies counts once, a game that ends sooner counts nothing, one that\n"+
			"ends on the last ply counts. A ply is one sowing (a pie-rule swap is one too);\n"+
			"with --turns it is a whole turn, an extra-turn chain included. --divide shows\n"+
			"the count below each first move. Two implementations of the same rules must\n"+
			"give the same numbers.")
	rf := addRulesFlags(fs)
	depth := fs.Int("depth", 0, "plies to count (required, 0 to 40)")
	turns := fs.Bool("turns", false, "count a whole turn, an extra-turn chain, as one ply")
	divide := fs.Bool("divide", false, "show the count below each first move")
	posText := fs.String("position", "", "start from this position (docs/NOTATION.md) instead of the rules' start")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	threads := fs.Int("threads", cores.N(), "goroutines to count with")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	depthSet := false
	fs.Visit(func(f *flag.Flag) { depthSet = depthSet || f.Name == "depth" })
	if !depthSet {
		return usagef("--depth is required")
	}
	if *threads < 1 || *threads > 1024 {
		return usagef("--threads %d: want 1 to 1024", *threads)
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	if *depth < 0 || *depth > 40 {
		return usagef("--depth %d: want 0 to 40", *depth)
	}
	if *threads < 1 {
		return usagef("--threads %d: want at least 1", *threads)
	}
	start := r.Start()
	if *posText != "" {
		if start, err = kalah.ParsePosition(*posText); err != nil {
			return usagef("--position: %w", err)
		}
		if err := start.CheckRules(&r); err != nil {
			return usagef("--position: %w", err)
		}
	}
	c := perftCounter{rules: &r, turns: *turns}
	res := perftResult{Rules: r, Position: start.String(), Depth: *depth, Unit: "sowing", Threads: *threads}
	if *turns {
		res.Unit = "turn"
	}
	var progress func(done, all int)
	if !*asJSON && stderrIsTerminal(e.stderr) {
		var mu sync.Mutex
		progress = func(done, all int) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(e.stderr, "\rperft: %d/%d parts", done, all)
			if done == all {
				fmt.Fprint(e.stderr, "\r\033[K")
			}
		}
	}
	began := time.Now()
	if *divide && *depth > 0 {
		// One first move at a time, each a job of its own.
		for _, f := range c.expandFirst(perftJob{start, *depth}) {
			n := f.done
			if f.job != nil {
				m, err := c.run(ctx, *f.job, *threads, nil)
				if err != nil {
					return err
				}
				n += m
			}
			res.Divide = append(res.Divide, perftDivide{Move: f.move.String(), Nodes: n})
			res.Nodes += n
		}
	} else {
		n, err := c.run(ctx, perftJob{start, *depth}, *threads, progress)
		if err != nil {
			return err
		}
		res.Nodes = n
	}
	res.Seconds = time.Since(began).Seconds()
	if res.Seconds > 0 {
		res.NodesPerSecond = float64(res.Nodes) / res.Seconds
	}
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(res)
	}
	for _, d := range res.Divide {
		fmt.Fprintf(e.stdout, "%-5s %d\n", d.Move, d.Nodes)
	}
	fmt.Fprintf(e.stdout, "perft %s depth %d (one %s a ply): %d positions\n", r, *depth, res.Unit, res.Nodes)
	fmt.Fprintf(e.stderr, "%.3fs, %.1f M positions/s on %d threads\n", res.Seconds, res.NodesPerSecond/1e6, *threads)
	return nil
}

// perftFirst is a first move with what follows it: a job (nil if the game
// ended with the move), and the paths that ended with it.
type perftFirst struct {
	move kalah.Move
	job  *perftJob
	done uint64
}

// expandFirst splits a job by first move for --divide.
func (c perftCounter) expandFirst(j perftJob) []perftFirst {
	p := j.pos
	if p.Over(c.rules) {
		return nil
	}
	var out []perftFirst
	for _, m := range p.Moves() {
		q := p
		f := perftFirst{move: m}
		if m == kalah.Swap {
			q.Swap()
			f.job = &perftJob{q, j.depth - 1}
			out = append(out, f)
			continue
		}
		eff := q.Play(c.rules, int(m))
		switch {
		case eff&kalah.End != 0:
			if j.depth == 1 {
				f.done = 1 // nothing follows the end of a game
			}
		case c.turns && eff&kalah.Extra != 0:
			f.job = &perftJob{q, j.depth}
		default:
			f.job = &perftJob{q, j.depth - 1}
		}
		out = append(out, f)
	}
	return out
}

// stderrIsTerminal reports whether w is a terminal, for progress output.
func stderrIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

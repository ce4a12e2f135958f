// Command schedwait reads a Go execution trace as `go tool trace
// -d=parsed` prints it and says how long goroutines waited for a processor
// once runnable, by what made them runnable: the network poller (a bot's
// line arrived), another goroutine (a channel, a lock), or preemption;
// then which goroutines held a processor longest at a stretch (over a
// millisecond), named by their outermost function of the module: what
// the waiting goroutines waited behind. A stretch is wall time on the
// processor, so it includes the thread's own waits for a core.
//
//	curl -so trace.out 'http://127.0.0.1:9090/debug/pprof/trace?seconds=3'
//	go tool trace -d=parsed trace.out | go run ./scripts/schedwait
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// frame is a stack line of a function of the module.
var frame = regexp.MustCompile(`^\t(kalah\S*) @ `)

var transition = regexp.MustCompile(`^M=\S+ P=\S+ G=(\S+) StateTransition Time=(\d+) GoID=(\d+) (\w+)->(\w+) Reason="([^"]*)"`)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "schedwait:", err)
		os.Exit(1)
	}
}

// run reads the parsed trace from in and writes the two tables to out.
func run(in io.Reader, out io.Writer) error {
	type ready struct {
		at   int64
		kind string
	}
	blocked := map[string]string{} // goroutine -> why it last blocked
	runnable := map[string]ready{}
	waits := map[string][]int64{}
	onSince := map[string]int64{} // goroutine -> when it started running
	held := map[string][]int64{}  // goroutine -> its stretches on a processor over a millisecond
	name := map[string]string{}   // goroutine -> its outermost function of the module
	// The stack lines below a transition: "TransitionStack=" is the
	// transitioning goroutine's, "Stack=" the one that made the event's
	// (another, when it wakes it).
	var transOf, eventOf, stackOf string
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := transition.FindStringSubmatch(sc.Text())
		if m == nil {
			switch line := sc.Text(); {
			case strings.HasPrefix(line, "TransitionStack="):
				stackOf = transOf
			case strings.HasPrefix(line, "Stack="):
				stackOf = eventOf
			default:
				if f := frame.FindStringSubmatch(line); f != nil && stackOf != "" && stackOf != "-1" {
					name[stackOf] = f[1] // stacks list the innermost first: the last is the outermost
				}
			}
			continue
		}
		by, gid, from, to, why := m[1], m[3], m[4], m[5], m[6]
		at, _ := strconv.ParseInt(m[2], 10, 64)
		transOf, eventOf, stackOf = gid, by, ""
		switch {
		case to == "Running":
			onSince[gid] = at
		case from == "Running":
			if t, ok := onSince[gid]; ok && at-t > int64(time.Millisecond) {
				held[gid] = append(held[gid], at-t)
			}
			delete(onSince, gid)
		}
		switch {
		case from == "Running" && to == "Waiting":
			blocked[gid] = why
		case from == "Running" && to == "Runnable":
			runnable[gid] = ready{at, "preempted or yielded"}
		case from == "Waiting" && to == "Runnable":
			src := "by a goroutine"
			if by == "-1" {
				src = "by the poller"
			}
			why := blocked[gid]
			if why == "" {
				why = "?"
			}
			runnable[gid] = ready{at, why + ", woken " + src}
		case from == "Runnable" && to == "Running":
			if r, ok := runnable[gid]; ok {
				delete(runnable, gid)
				waits[r.kind] = append(waits[r.kind], at-r.at)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	kinds := make([]string, 0, len(waits))
	for k := range waits {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int { return len(waits[b]) - len(waits[a]) })
	fmt.Fprintf(out, "%-45s %8s %10s %10s %10s %10s\n", "blocked on, woken by", "n", "p50", "p90", "p99", "max")
	for _, k := range kinds {
		w := waits[k]
		slices.Sort(w)
		q := func(f float64) time.Duration { return time.Duration(w[min(len(w)-1, int(f*float64(len(w))))]) }
		fmt.Fprintf(out, "%-45s %8d %10v %10v %10v %10v\n", k, len(w), q(.5).Round(time.Microsecond), q(.9).Round(time.Microsecond),
			q(.99).Round(time.Microsecond), time.Duration(w[len(w)-1]).Round(time.Microsecond))
	}
	printHeld(out, held, name)
	return nil
}

// printHeld prints, by the goroutines' outermost function, their
// stretches on a processor over a millisecond.
func printHeld(out io.Writer, held map[string][]int64, name map[string]string) {
	by := map[string][]int64{}
	for gid, d := range held {
		n := name[gid]
		if n == "" {
			n = "(outside the module)"
		}
		by[n] = append(by[n], d...)
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return len(by[b]) - len(by[a]) })
	fmt.Fprintf(out, "\n%-60s %8s %10s %10s\n", "held a processor over 1 ms at a stretch", "n", "p50", "max")
	for _, n := range names {
		d := by[n]
		slices.Sort(d)
		fmt.Fprintf(out, "%-60s %8d %10v %10v\n", n, len(d), time.Duration(d[len(d)/2]).Round(time.Microsecond), time.Duration(d[len(d)-1]).Round(time.Microsecond))
	}
}

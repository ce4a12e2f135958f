// Command schedwait reads a Go execution trace as `go tool trace
// -d=parsed` prints it and says how long goroutines waited for a processor
// once runnable, by what made them runnable: the network poller (a bot's
// line arrived), another goroutine (a channel, a lock), or preemption.
//
//	curl -so trace.out 'http://127.0.0.1:9090/debug/pprof/trace?seconds=3'
//	go tool trace -d=parsed trace.out | go run ./scripts/schedwait
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"time"
)

var transition = regexp.MustCompile(`^M=\S+ P=\S+ G=(\S+) StateTransition Time=(\d+) GoID=(\d+) (\w+)->(\w+) Reason="([^"]*)"`)

func main() {
	type ready struct {
		at   int64
		kind string
	}
	blocked := map[string]string{} // goroutine -> why it last blocked
	runnable := map[string]ready{}
	waits := map[string][]int64{}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := transition.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		by, gid, from, to, why := m[1], m[3], m[4], m[5], m[6]
		at, _ := strconv.ParseInt(m[2], 10, 64)
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
		fmt.Fprintln(os.Stderr, "schedwait:", err)
		os.Exit(1)
	}
	kinds := make([]string, 0, len(waits))
	for k := range waits {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int { return len(waits[b]) - len(waits[a]) })
	fmt.Printf("%-45s %8s %10s %10s %10s %10s\n", "blocked on, woken by", "n", "p50", "p90", "p99", "max")
	for _, k := range kinds {
		w := waits[k]
		slices.Sort(w)
		q := func(f float64) time.Duration { return time.Duration(w[min(len(w)-1, int(f*float64(len(w))))]) }
		fmt.Printf("%-45s %8d %10v %10v %10v %10v\n", k, len(w), q(.5).Round(time.Microsecond), q(.9).Round(time.Microsecond),
			q(.99).Round(time.Microsecond), time.Duration(w[len(w)-1]).Round(time.Microsecond))
	}
}

// Command movetrace plays a few bot games against a running `kalah serve`
// over the line protocol, beside whatever load it carries, and prints, a
// second at a time, how many of its moves were confirmed and the slowest
// (from `move` sent to its `moved` read): the tail of a load run laid out
// in time, to set beside the server's collections (GODEBUG=gctrace=1,
// whose times are from the server's start: give -pid to count from it too).
//
//	GODEBUG=gctrace=1 kalah serve ... 2>serve.log &
//	go run ./scripts/movetrace -pid $! -for 40s
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:2670", "the server's line-protocol address")
	games := flag.Int("games", 10, "games to play (two bots each, paired by the server's queue)")
	think := flag.Duration("think", 100*time.Millisecond, "think time a move")
	dur := flag.Duration("for", 30*time.Second, "how long to play")
	pid := flag.Int("pid", 0, "the server's process: seconds counted from its start (0: from this command's)")
	flag.Parse()
	origin := time.Now()
	if *pid > 0 {
		t, err := processStart(*pid)
		if err != nil {
			fmt.Fprintln(os.Stderr, "movetrace:", err)
			os.Exit(1)
		}
		origin = t
	}
	var mu sync.Mutex
	type sample struct{ at, took time.Duration }
	var samples []sample
	end := time.Now().Add(*dur)
	var wg sync.WaitGroup
	for i := range 2 * *games {
		wg.Go(func() {
			c, err := net.Dial("tcp", *addr)
			if err != nil {
				fmt.Fprintln(os.Stderr, "movetrace:", err)
				return
			}
			defer c.Close()
			c.SetDeadline(end)
			name := fmt.Sprintf("movetrace%d", i)
			fmt.Fprintf(c, "login %s tok-%s-0123456789\nqueue\n", name, name)
			r := bufio.NewReader(c)
			var sent time.Time
			side := ""
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				f := strings.Fields(l)
				if len(f) == 0 {
					continue
				}
				switch f[0] {
				case "go": // go PERMOVE REMAINING HOUSES STORES SIDE
					if len(f) < 6 {
						continue
					}
					var mv int
					mv, side = firstLegal(f[3], f[5])
					time.Sleep(*think)
					sent = time.Now()
					fmt.Fprintf(c, "move %d\n", mv)
				case "moved":
					if len(f) > 1 && f[1] == side && !sent.IsZero() {
						s := sample{at: sent.Sub(origin), took: time.Since(sent)}
						sent = time.Time{}
						mu.Lock()
						samples = append(samples, s)
						mu.Unlock()
					}
				case "end":
					fmt.Fprintf(c, "queue\n")
				case "ping":
					fmt.Fprintf(c, "pong\n")
				case "error":
					fmt.Fprint(os.Stderr, name, ": ", l)
				}
			}
		})
	}
	wg.Wait()
	bySecond := map[int][]time.Duration{}
	for _, s := range samples {
		sec := int(s.at / time.Second)
		bySecond[sec] = append(bySecond[sec], s.took)
	}
	secs := make([]int, 0, len(bySecond))
	for s := range bySecond {
		secs = append(secs, s)
	}
	slices.Sort(secs)
	fmt.Println("second moves median slowest")
	for _, s := range secs {
		ds := bySecond[s]
		slices.Sort(ds)
		fmt.Printf("%6d %5d %8.1fms %8.1fms\n", s, len(ds), ms(ds[len(ds)/2]), ms(ds[len(ds)-1]))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// firstLegal returns the first house of side ("S" or "N") that holds
// seeds, numbered from 1, in houses as a position prints them
// ("4,4,4/4,4,4": South's, then North's).
func firstLegal(houses, side string) (int, string) {
	rows := strings.Split(houses, "/")
	row := rows[0]
	if side == "N" && len(rows) > 1 {
		row = rows[1]
	}
	for i, h := range strings.Split(row, ",") {
		if n, _ := strconv.Atoi(h); n > 0 {
			return i + 1, side
		}
	}
	return 1, side
}

// processStart returns when process pid started: its start in clock
// ticks after boot (/proc/PID/stat), and the boot's time.
func processStart(pid int) (time.Time, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return time.Time{}, err
	}
	// The command's name, in parentheses, may hold spaces: count the
	// fields after its closing parenthesis (the start is field 22).
	rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
	f := strings.Fields(rest)
	if len(f) < 20 {
		return time.Time{}, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return time.Time{}, err
	}
	secs, err := strconv.ParseFloat(strings.Fields(string(up))[0], 64)
	if err != nil {
		return time.Time{}, err
	}
	const hz = 100 // USER_HZ, as /proc counts ticks on Linux
	boot := time.Now().Add(-time.Duration(secs * float64(time.Second)))
	return boot.Add(time.Duration(ticks) * time.Second / hz), nil
}

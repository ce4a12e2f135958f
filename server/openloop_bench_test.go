package server

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"kalah/protocol/line"
)

// BenchmarkServerOpenLoop is the load of real play: KALAH_BENCH_GAMES
// (default 1000) games at once between bots over loopback TCP, each bot
// thinking a random 0.5 to 1.5 s a move (seeded), so moves arrive at their
// own pace whatever the server does (an open loop: about one move a second
// a game). The bots run in a process of their own (this test binary again,
// told by KALAH_OPENLOOP_BOTS), as they would on their owners' machines,
// so the server's process holds only the server: its garbage collector
// scans the server's heap and goroutines, not the bots'. For
// KALAH_BENCH_SECONDS (default 30) it measures what a bot sees: the time
// from sending its move to hearing it confirmed ("moved", sent once the
// move is stored), and reports p50, p99, p99.9 and the largest, with the
// server's collections, its longest pause, its CPU and the store's
// commits. Every move is committed before it is confirmed (durable) unless
// the async case.
//
//	KALAH_BENCH_GAMES=4000 go test -run '^$' -bench 'ServerOpenLoop/sync' -benchtime 1x ./server
func BenchmarkServerOpenLoop(b *testing.B) {
	b.Run("sync", func(b *testing.B) { benchOpenLoop(b, false) })
	b.Run("async", func(b *testing.B) { benchOpenLoop(b, true) })
}

func benchOpenLoop(b *testing.B, async bool) {
	games, seconds := 1000, 30
	if v, err := strconv.Atoi(os.Getenv("KALAH_BENCH_GAMES")); err == nil && v > 0 {
		games = v
	}
	if v, err := strconv.Atoi(os.Getenv("KALAH_BENCH_SECONDS")); err == nil && v > 5 {
		seconds = v
	}
	for range b.N {
		_, st, _, addr, stop := benchServer(b, games, async)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "KALAH_OPENLOOP_BOTS="+addr,
			fmt.Sprintf("KALAH_OPENLOOP_PLAN=%d,%d", 2*games, seconds))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		r := bufio.NewScanner(out)
		if !r.Scan() || r.Text() != "ready" {
			cmd.Wait()
			b.Fatalf("the bots' process did not start: %q", r.Text())
		}
		// The bots are in and play; the window opens once the first moves
		// of every game, which come at once, are behind (after 5 s).
		time.Sleep(5 * time.Second)
		commitsBefore, cyclesBefore, cpuBefore := st.Commits(), gcCycles(), processCPU()
		b.ResetTimer()
		var all []time.Duration
		for r.Scan() {
			if r.Text() == "done" {
				break
			}
		}
		window := float64(seconds) - 5
		commits, cycles, cpu := st.Commits()-commitsBefore, gcCycles()-cyclesBefore, processCPU()-cpuBefore
		for r.Scan() {
			us, err := strconv.ParseInt(r.Text(), 10, 64)
			if err != nil {
				b.Fatalf("the bots' process: %q", r.Text())
			}
			all = append(all, time.Duration(us)*time.Microsecond)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatalf("the bots' process: %v", err)
		}
		b.StopTimer()
		stop()
		if len(all) == 0 {
			b.Fatal("no move confirmed")
		}
		slices.Sort(all)
		q := func(p float64) time.Duration { return all[min(int(p*float64(len(all))), len(all)-1)] }
		b.ReportMetric(float64(len(all))/window, "moves/s")
		b.ReportMetric(float64(q(0.50).Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(q(0.99).Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(q(0.999).Microseconds())/1000, "p99.9-ms")
		b.ReportMetric(float64(all[len(all)-1].Microseconds())/1000, "max-ms")
		b.ReportMetric(float64(commits)/window, "commits/s")
		b.ReportMetric(float64(cycles)/window, "gc/s")
		b.ReportMetric(float64(maxGCPause().Microseconds())/1000, "gc-pause-max-ms")
		b.ReportMetric(100*cpu.Seconds()/window, "server-cpu-%")
	}
}

// openLoopBots is the bots' process of BenchmarkServerOpenLoop: it logs
// in KALAH_OPENLOOP_PLAN's bots at addr, says "ready", plays for its
// seconds, says "done" when the window closes and then writes the latency
// of every move confirmed after the first 5 s, in microseconds, a line
// each. It returns the process's exit code.
func openLoopBots(addr string) int {
	var n, seconds int
	if _, err := fmt.Sscanf(os.Getenv("KALAH_OPENLOOP_PLAN"), "%d,%d", &n, &seconds); err != nil {
		fmt.Fprintln(os.Stderr, "KALAH_OPENLOOP_PLAN:", err)
		return 2
	}
	bots := make([]*benchBot, n)
	var wg sync.WaitGroup
	var failed atomic.Bool
	for j := range bots {
		wg.Go(func() {
			bot, err := dialBench(addr, fmt.Sprintf("ol%d", j))
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				failed.Store(true)
				return
			}
			bots[j] = bot
		})
	}
	wg.Wait()
	if failed.Load() {
		return 1
	}
	fmt.Println("ready")
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds)*time.Second)
	defer cancel()
	warm := time.Now().Add(5 * time.Second)
	lats := make([][]time.Duration, len(bots))
	for j, bot := range bots {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(j), 7))
			bot.send("queue")
			lats[j] = bot.playOpen(ctx, rng, warm)
		})
	}
	<-ctx.Done()
	fmt.Println("done")
	for _, bot := range bots {
		bot.c.Close()
	}
	wg.Wait()
	w := bufio.NewWriter(os.Stdout)
	for _, l := range lats {
		for _, d := range l {
			fmt.Fprintln(w, d.Microseconds())
		}
	}
	if err := w.Flush(); err != nil {
		return 1
	}
	return 0
}

// playOpen plays games for as long as ctx lasts, thinking a random 0.5
// to 1.5 s before each move, and returns the latency of each of its moves
// confirmed after warm.
func (b *benchBot) playOpen(ctx context.Context, rng *rand.Rand, warm time.Time) []time.Duration {
	var lat []time.Duration
	var sent time.Time
	for ctx.Err() == nil {
		s, err := b.r.ReadString('\n')
		if err != nil {
			return lat
		}
		switch {
		case strings.HasPrefix(s, "moved "):
			if !sent.IsZero() {
				if now := time.Now(); now.After(warm) {
					lat = append(lat, now.Sub(sent))
				}
				sent = time.Time{}
			}
		case strings.HasPrefix(s, "go "):
			m, _ := line.Parse(s)
			t, err := line.ParseTurn(m)
			if err != nil {
				return lat
			}
			legal := t.Position.Moves()
			mv := legal[rng.IntN(len(legal))]
			think := 500*time.Millisecond + time.Duration(rng.IntN(1000))*time.Millisecond
			select {
			case <-time.After(think):
			case <-ctx.Done():
				return lat
			}
			sent = time.Now()
			b.send("move " + mv.String())
		case strings.HasPrefix(s, "end "):
			b.send("queue")
		case strings.HasPrefix(s, "ping"):
			b.send("pong")
		}
	}
	return lat
}

// gcCycles returns how many collections the runtime has finished.
func gcCycles() uint64 {
	s := []rtmetrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	rtmetrics.Read(s)
	return s[0].Value.Uint64()
}

// processCPU returns the CPU time, user and system, this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// maxGCPause returns the longest stop-the-world pause the runtime has
// seen (runtime/metrics' /sched/pauses/total/gc:seconds, to its bucket).
func maxGCPause() time.Duration {
	s := []rtmetrics.Sample{{Name: "/sched/pauses/total/gc:seconds"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindFloat64Histogram {
		return 0
	}
	h := s[0].Value.Float64Histogram()
	for i := len(h.Counts) - 1; i >= 0; i-- {
		if h.Counts[i] > 0 {
			top := h.Buckets[i+1]
			if math.IsInf(top, 1) {
				top = h.Buckets[i]
			}
			return time.Duration(top * float64(time.Second))
		}
	}
	return 0
}

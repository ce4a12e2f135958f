package server

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah/protocol/line"
)

// BenchmarkServerOpenLoop is the load of real play: KALAH_BENCH_GAMES
// (default 1000) games at once between bots over loopback TCP, each bot
// thinking a random 0.5 to 1.5 s a move (seeded), so moves arrive at their
// own pace whatever the server does (an open loop: about one move a second
// a game). For KALAH_BENCH_SECONDS (default 30) it measures what a bot
// sees: the time from sending its move to hearing it confirmed ("moved",
// sent once the move is stored), and reports p50, p99, p99.9 and the
// largest, with the Go runtime's longest pause and the store's commits.
// Every move is committed before it is confirmed (durable) unless the
// async case.
//
//	KALAH_BENCH_GAMES=4000 go test -run '^$' -bench ServerOpenLoop/sync -benchtime 1x ./server
func BenchmarkServerOpenLoop(b *testing.B) {
	b.Run("sync", func(b *testing.B) { benchOpenLoop(b, false) })
	b.Run("async", func(b *testing.B) { benchOpenLoop(b, true) })
}

func benchOpenLoop(b *testing.B, async bool) {
	games, seconds := 1000, 30
	if v, err := strconv.Atoi(os.Getenv("KALAH_BENCH_GAMES")); err == nil && v > 0 {
		games = v
	}
	if v, err := strconv.Atoi(os.Getenv("KALAH_BENCH_SECONDS")); err == nil && v > 0 {
		seconds = v
	}
	for range b.N {
		_, st, _, addr, stop := benchServer(b, games, async)
		bots := make([]*benchBot, 2*games)
		var wg sync.WaitGroup
		for j := range bots {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bot, err := dialBench(addr, fmt.Sprintf("ol%d", j))
				if err != nil {
					b.Error(err)
					return
				}
				bots[j] = bot
			}()
		}
		wg.Wait()
		if b.Failed() {
			return
		}
		commitsBefore := st.Commits()
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds)*time.Second)
		warm := time.Now().Add(5 * time.Second) // the first moves of every game come at once
		lats := make([][]time.Duration, len(bots))
		b.ResetTimer()
		for j, bot := range bots {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(j), 7))
				bot.send("queue")
				lats[j] = bot.playOpen(ctx, rng, warm)
			}()
		}
		<-ctx.Done()
		for _, bot := range bots {
			bot.c.Close()
		}
		wg.Wait()
		b.StopTimer()
		commits := st.Commits() - commitsBefore
		stop()
		cancel()
		var all []time.Duration
		for _, l := range lats {
			all = append(all, l...)
		}
		if len(all) == 0 {
			b.Fatal("no move confirmed")
		}
		slices.Sort(all)
		q := func(p float64) time.Duration { return all[min(int(p*float64(len(all))), len(all)-1)] }
		window := float64(seconds) - 5
		b.ReportMetric(float64(len(all))/window, "moves/s")
		b.ReportMetric(float64(q(0.50).Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(q(0.99).Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(q(0.999).Microseconds())/1000, "p99.9-ms")
		b.ReportMetric(float64(all[len(all)-1].Microseconds())/1000, "max-ms")
		b.ReportMetric(float64(commits)/float64(seconds), "commits/s")
		b.ReportMetric(float64(maxGCPause().Microseconds())/1000, "gc-pause-max-ms")
	}
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

package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kalah/internal/store"
	"kalah/protocol/line"
)

// BenchmarkServerLoad plays KALAH_BENCH_GAMES (default 1000) concurrent
// games of fast bots over loopback TCP, each iteration a new round, and
// reports the referee's own time a move (p50, p99), moves a second, memory
// a connection and lost moves (moves the bots saw that the store lacks).
//
//	go test -run '^$' -bench ServerLoad -benchtime 1x ./server
//
// sync commits each move before asking for the next (the default);
// async lets the commit run behind (Config.AsyncMoves).
func BenchmarkServerLoad(b *testing.B) {
	b.Run("sync", func(b *testing.B) { benchLoad(b, false) })
	b.Run("async", func(b *testing.B) { benchLoad(b, true) })
}

// benchServer starts a server for games at once over loopback TCP, on a
// store of its own, and returns it with the address of its bots' port and
// the function that stops both.
func benchServer(b *testing.B, games int, async bool) (srv *Server, st *store.Store, path, addr string, stop func()) {
	b.Helper()
	path = filepath.Join(b.TempDir(), "kalah.db")
	st, err := store.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	srv, err = New(Config{Store: st, AsyncMoves: async, PerMove: 30 * time.Second, LoginRate: 1e9, LoginBurst: 1 << 30,
		MaxConns: 4*games + 10, MaxGames: 2 * games, IdleTimeout: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	return srv, st, path, l.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-served
		st.Close()
	}
}

func benchLoad(b *testing.B, async bool) {
	games := 1000
	if v, err := strconv.Atoi(os.Getenv("KALAH_BENCH_GAMES")); err == nil && v > 0 {
		games = v
	}
	srv, st, dbPath, addr, stop := benchServer(b, games, async)
	defer stop()

	var seen atomic.Int64 // moves the bots were told of, counted once a game (by South's bot)
	for i := range b.N {
		// Connect and log in every bot first, to measure memory a connection.
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		bots := make([]*benchBot, 2*games)
		var wg sync.WaitGroup
		errs := make(chan error, len(bots))
		for j := range bots {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bot, err := dialBench(addr, fmt.Sprintf("b%d-%d", i, j))
				if err != nil {
					errs <- err
					return
				}
				bots[j] = bot
			}()
		}
		wg.Wait()
		select {
		case err := <-errs:
			b.Fatal(err)
		default:
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		perConn := float64(after.HeapInuse+after.StackInuse-before.HeapInuse-before.StackInuse) / float64(len(bots))

		srv.Stats().Reset()
		var walMax atomic.Int64
		stopWAL := make(chan struct{})
		walDone := make(chan struct{})
		go func() {
			defer close(walDone)
			for {
				if fi, err := os.Stat(dbPath + "-wal"); err == nil && fi.Size() > walMax.Load() {
					walMax.Store(fi.Size())
				}
				select {
				case <-stopWAL:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()
		b.StartTimer()
		start := time.Now()
		// Pair them: even bots queue first and play South.
		for j := 0; j < len(bots); j += 2 {
			bots[j].send("queue")
			bots[j].expect("ok")
			bots[j+1].send("queue")
		}
		for _, bot := range bots {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := bot.play()
				if err != nil {
					errs <- err
				}
				if bot.south {
					seen.Add(int64(n))
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		b.StopTimer()
		close(stopWAL)
		<-walDone
		var lat []time.Duration
		for _, bot := range bots {
			lat = append(lat, bot.lat...)
		}
		slices.Sort(lat)
		pct := func(q float64) time.Duration {
			if len(lat) == 0 {
				return 0
			}
			return lat[min(len(lat)-1, int(q*float64(len(lat))))]
		}
		select {
		case err := <-errs:
			b.Fatal(err)
		default:
		}
		for _, bot := range bots {
			bot.c.Close()
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(srv.LiveGames()) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		moves := srv.Stats().Moves() + uint64(games) // the first move of each game has no referee time before it
		stored := 0
		list, err := st.Games(context.Background(), store.Filter{Status: store.Finished, Limit: games})
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range list {
			stored += g.Plies
		}
		lost := seen.Load() - int64(stored)
		seen.Store(0)
		b.ReportMetric(float64(srv.Stats().Percentile(0.5).Microseconds()), "p50-µs/move")
		b.ReportMetric(float64(srv.Stats().Percentile(0.99).Microseconds()), "p99-µs/move")
		b.ReportMetric(float64(pct(0.5).Microseconds()), "client-p50-µs")
		b.ReportMetric(float64(pct(0.99).Microseconds()), "client-p99-µs")
		b.ReportMetric(float64(walMax.Load())/(1<<20), "wal-max-MiB")
		b.ReportMetric(float64(moves)/elapsed.Seconds(), "moves/s")
		b.ReportMetric(perConn, "B/conn")
		b.ReportMetric(float64(lost), "lost-moves")
		b.ReportMetric(float64(len(list)), "games")
		b.Logf("p90 %v, p999 %v, max %v", srv.Stats().Percentile(0.9), srv.Stats().Percentile(0.999), srv.Stats().Percentile(1))
		b.Logf("client-seen, sent to confirmed: p50 %v, p90 %v, p99 %v, max %v over %d moves; largest WAL %.1f MiB",
			pct(0.5), pct(0.9), pct(0.99), pct(1), len(lat), float64(walMax.Load())/(1<<20))
		b.Logf("%d games, %d moves in %v: p50 %v, p99 %v a move, %.0f moves/s, %.0f B/conn, %d lost",
			len(list), moves, elapsed.Round(time.Millisecond), srv.Stats().Percentile(0.5), srv.Stats().Percentile(0.99),
			float64(moves)/elapsed.Seconds(), perConn, lost)
		if lost != 0 || len(list) != games {
			b.Fatalf("%d games stored of %d, %d moves lost", len(list), games, lost)
		}
	}
}

// benchBot is a minimal fast bot: it plays its rightmost legal house.
type benchBot struct {
	c     net.Conn
	r     *bufio.Reader
	south bool
	sent  time.Time       // when its last move went out, zero once confirmed
	lat   []time.Duration // client-seen latency of each of its moves: sent to "moved"
}

func dialBench(addr, name string) (*benchBot, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	b := &benchBot{c: c, r: bufio.NewReaderSize(c, 512)}
	b.send("login " + name + " t")
	if _, err := b.expect("ok"); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

func (b *benchBot) send(s string) { b.c.Write([]byte(s + "\n")) }

func (b *benchBot) expect(cmd string) (line.Msg, error) {
	for {
		s, err := b.r.ReadString('\n')
		if err != nil {
			return line.Msg{}, err
		}
		m, err := line.Parse(s)
		if err != nil {
			return m, err
		}
		if m.Cmd == cmd {
			return m, nil
		}
		if m.Cmd == "error" {
			return m, fmt.Errorf("server: %s", m)
		}
	}
}

// play plays one game and returns the moves it was told of.
func (b *benchBot) play() (int, error) {
	moves := 0
	for {
		s, err := b.r.ReadString('\n')
		if err != nil {
			return moves, err
		}
		switch {
		case strings.HasPrefix(s, "start "):
			b.south = strings.Fields(s)[2] == "S"
		case strings.HasPrefix(s, "moved "):
			moves++
			if !b.sent.IsZero() {
				// The server confirms a move with "moved" once it is
				// committed (unless AsyncMoves): the latency a bot sees.
				b.lat = append(b.lat, time.Since(b.sent))
				b.sent = time.Time{}
			}
		case strings.HasPrefix(s, "go "):
			m, _ := line.Parse(s)
			t, err := line.ParseTurn(m)
			if err != nil {
				return moves, err
			}
			legal := t.Position.Moves()
			b.sent = time.Now()
			b.send("move " + legal[len(legal)-1].String())
		case strings.HasPrefix(s, "end "):
			return moves, nil
		case strings.HasPrefix(s, "error "):
			return moves, fmt.Errorf("server: %s", s)
		case strings.HasPrefix(s, "ping"):
			b.send("pong")
		}
	}
}

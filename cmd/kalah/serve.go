package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"kalah"
	"kalah/internal/datadir"
	"kalah/internal/gcfloor"
	"kalah/internal/netx"
	"kalah/internal/store"
	"kalah/player"
	"kalah/protocol/kgp"
	"kalah/server"
)

func init() {
	register(&command{name: "serve", summary: "run the match server: bots (our protocol, KGP), spectators and the web page", run: runServe})
}

// mountWeb, if set (by the web page's own file), returns the handler the
// HTTP server mounts at "/"; the page keeps its games and tournaments in
// dataDir, beside the server's database.
var mountWeb func(ctx context.Context, s *server.Server, dataDir string, o pageLimits) (http.Handler, func(), error)

// pageLimits are the page's own limits (analysis), from serve's flags.
type pageLimits struct {
	analysisRate  float64
	analysisBurst int
	analyses      int
	maxAnalysis   time.Duration
}

// serveHint, if set (by the web page's own file), suggests moves to people
// in casual games (server.Config.Hint).
var serveHint func(ctx context.Context, g *kalah.Game) (kalah.Move, error)

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "serve", "[--config FILE] [--data DIR] [--addr ADDR] [--bot-addr ADDR] [--kgp-addr ADDR] [clock and limit flags]",
		"Runs the match server. Bots log in over kalah's line protocol (TCP --bot-addr,\n"+
			"or WebSocket at /ws/bot on --addr; docs/PROTOCOL.md) or KGP (TCP --kgp-addr,\n"+
			"or WebSocket at /kgp); the web page and its JSON API (/api/) are on --addr.\n"+
			"Games and bot credentials are kept in an SQLite file in --data; unfinished\n"+
			"games are resumed when the server starts again.\n\n"+
			"--config reads a TOML file whose keys are these flags' names (addr = \":8080\",\n"+
			"time = \"5s\", allow-exec = true); flags on the command line win.")
	rf := addRulesFlags(fs)
	config := fs.String("config", "", "TOML file with the flags' values")
	addr := fs.String("addr", "localhost:8080", "HTTP address: web page, /api/, /ws/bot, /kgp (empty: none; :8080 for every interface)")
	botAddr := fs.String("bot-addr", "localhost:2670", "TCP address for bots speaking kalah's line protocol (empty or 0: none; :2670 for every interface)")
	kgpAddr := fs.String("kgp-addr", fmt.Sprintf("localhost:%d", kgp.DefaultPort), fmt.Sprintf("TCP address for KGP bots (empty or 0: none; :%d for every interface)", kgp.DefaultPort))
	perMove := fs.Duration("time", 10*time.Second, "time limit a move (0 with --budget 0: no clock)")
	budget := fs.Duration("budget", 0, "each player's time for the whole game (Manchester style; 0: none)")
	increment := fs.Duration("increment", 0, "added to a player's budget after each move")
	delay := fs.Duration("delay", 0, "pause before each move, so people can follow")
	grace := fs.Duration("grace", 200*time.Millisecond, "latency allowed beyond a limit")
	maxOpen := fs.Int("max-open-games", 5, "unfinished games one person or guest may hold a seat in at once, however they were started")
	maxGuestGames := fs.Int("max-guest-games-per-addr", 5, "live games the guests of one address may have at once (a game its guest has left is ended to make room)")
	workPerIdentity := fs.Duration("work-per-identity", 2*time.Hour, "computer time the games and tournaments one identity asked for may cost, not yet played (each refused with its cost beyond)")
	workTotal := fs.Duration("work-total", 48*time.Hour, "computer time the games and tournaments of the whole server may cost, not yet played")
	resumeGrace := fs.Duration("resume-grace", 30*time.Second, "after a restart, how long a resumed game waits for its bots to connect again before their clocks run")
	reconnect := fs.Duration("reconnect", time.Minute, "how long a bot may be away mid-game when there is no clock")
	maxConns := fs.Int("max-conns", 10000, "most simultaneous connections on each listener (bots, KGP, HTTP)")
	readTimeout := fs.Duration("read-timeout", 30*time.Second, "HTTP: time to read a whole request, body included")
	writeTimeout := fs.Duration("write-timeout", time.Minute, "HTTP: time to write an answer (WebSockets and event streams excepted)")
	httpIdle := fs.Duration("http-idle-timeout", 2*time.Minute, "HTTP: how long an idle keep-alive connection stays open")
	maxGames := fs.Int("max-games", 10000, "most games played at once")
	maxLine := fs.Int("max-line", 4096, "longest line a client may send, in bytes")
	handshake := fs.Duration("handshake-timeout", 10*time.Second, "time a new connection has to log in")
	idle := fs.Duration("idle-timeout", 0, "a connection silent this long is closed (default 2m, or twice --time if longer)")
	loginRate := fs.Float64("login-rate", 2, "logins a second allowed from one address")
	loginBurst := fs.Int("login-burst", 20, "logins allowed in a burst from one address")
	signupRate := fs.Float64("signup-rate", 0.5, "sign-ups a second allowed on the whole server, from any address")
	signupBurst := fs.Int("signup-burst", 60, "sign-ups allowed in a burst on the whole server")
	asyncMoves := fs.Bool("async-moves", false, "ask for the next move while the last is still being stored (no faster since moves are appended to a journal at once; kept for configurations that set it)")
	maxTT := fs.Int("max-table-mb", player.NetworkLimits.TableMB, "most transposition table (MiB) a player started over the network may ask for (tt=)")
	maxThreads := fs.Int("max-threads", player.NetworkLimits.Threads, "most search threads a player started over the network may ask for (threads=)")
	maxThink := fs.Duration("max-think", player.NetworkLimits.Time, "most thinking time a move a player started over the network may ask for (time=)")
	buildDB := addBuildDBFlag(fs)
	allowExec := fs.Bool("allow-exec", false, "let the web API start exec: and mk: players (programs on this machine)")
	kgpRandom := fs.Int("kgp-random-moves", 8, "moves in a row the server may choose at random for a KGP client that sent none (spec 021) before it is held to have abandoned its game")
	adminToken := fs.String("admin-token", os.Getenv("KALAH_ADMIN_TOKEN"), "token that lets a client start games between computers or bots over HTTP (POST /api/arranged: kalah tournament --server); default $KALAH_ADMIN_TOKEN, else admin.token in the data directory, made at first start")
	ready := fs.String("ready-file", "", "write the addresses to this file once serving (for scripts that start the server)")
	houseAfter := fs.Duration("house-bot-after", 20*time.Second, "a bot (our protocol or KGP) that waits this long alone in the queue plays an unrated game against --house-bot, tagged House (0: never)")
	houseBot := fs.String("house-bot", server.DefaultHouseBot, "the level or player spec of house games (see kalah players)")
	botWait := fs.Duration("bot-wait", server.DefaultArrangedWait, "how long a tournament game waits for a bot:NAME that is not free (logged out, not waiting, or in another game) before that bot loses it")
	// Running it in the open (docs/OPERATING.md).
	tlsCert := fs.String("tls-cert", "", "serve --addr over HTTPS with this certificate (PEM; with --tls-key)")
	tlsKey := fs.String("tls-key", "", "the certificate's private key (PEM)")
	var proxies listFlag
	fs.Var(&proxies, "trusted-proxy", "a reverse proxy's address or CIDR range whose X-Forwarded-For and X-Forwarded-Proto are believed (repeatable; none by default)")
	metricsAddr := fs.String("metrics-addr", "", "address for the operator's endpoints: Prometheus /metrics, /healthz, /debug/pprof/ (empty: off; keep it private, such as 127.0.0.1:9090)")
	maxConnsPerAddr := fs.Int("max-conns-per-addr", 256, "most connections one client address (IPv6: its /64) may hold open on each listener (0: no cap; trusted proxies are exempt)")
	maxStreams := fs.Int("max-streams", 0, "most event streams and WebSockets open at once (default 4/5 of --max-conns, so the page and API still answer)")
	maxStreamsAddr := fs.Int("max-streams-per-addr", 100, "most event streams and WebSockets one client address may hold open")
	maxStreamsWho := fs.Int("max-streams-per-identity", 20, "most event streams and WebSockets one signed-in account may hold open")
	streamLife := fs.Duration("stream-lifetime", time.Hour, "an event stream is closed after this long (browsers reconnect by themselves)")
	maxChallenges := fs.Int("max-challenges", 3, "most challenges one bot or person may have waiting for an answer")
	hashers := fs.Int("hashers", 0, "password hashes (argon2id, 19 MiB each) computed at once; others wait (default: the cores, 2 to 4)")
	maxDepth := fs.Int("max-depth", player.NetworkLimits.Depth, "deepest fixed search a player started over the network may ask for (depth=, pekar-tree:D)")
	analysisRate := fs.Float64("analysis-rate", 2, "analyses a second one client (an account, or a guest's address) may ask for")
	analysisBurst := fs.Int("analysis-burst", 20, "analyses one client may ask for in a burst")
	analyses := fs.Int("analyses", 0, "analyses run at once for everyone (default: half the cores, at least 1)")
	maxAnalysis := fs.Duration("max-analysis", 10*time.Second, "longest an analysis request may ask for")
	gcPercent := fs.Int("gc-percent", serveGCPercent, "the collector's target (GOGC): the heap may grow this many percent over what is live before a collection; fewer collections make a shorter tail of move confirmations ($GOGC, if set, wins; -1: off)")
	commitDelay := fs.Duration("commit-delay", serveCommitDelay, "the least time between two commits of the store while writes keep coming: a write (a game's start or end, a sign-up) that comes sooner waits, gathered into one commit with those of the moment; a write after a quiet moment waits for nothing, and moves, kept in the moves' journal, never wait (0: commit each at once)")
	procs := fs.Int("procs", serveProcs(), "processors the Go scheduler runs goroutines on (GOMAXPROCS); by default two a core, unless the process's CPUs are limited (a container's quota): more than the cores, so that a core the kernel gives to another process does not hold back the goroutines queued on its processor ($GOMAXPROCS, if set, wins)")
	// The memory the process may use (memoryMB), read once: the heap's
	// floor is at most an eighth of it, 3 GiB on a 24 GiB machine, and
	// what the server allocates in --gc-interval below that (at 4,000 bot
	// games the live heap is about 55 MB and the server allocates about
	// 25 MB a second: GOGC=400 alone collects every 12 s, the floor every
	// two minutes; docs/PERFORMANCE.md, S4); the soft limit is half of it,
	// which keeps the collector's target (serveGCPercent) from growing the
	// heap past what the machine holds (0, none, if it cannot be read).
	memMB := memoryMB(os.DirFS("/"))
	heapFloor := fs.Int("heap-floor-mb", memMB/8, "the most the heap may grow to before a collection, however little is live (--gc-percent sets the goal above it): rarer collections, a shorter tail, for resident memory; by default an eighth of the memory of the machine, or of its container if less (0: none)")
	gcInterval := fs.Duration("gc-interval", 2*time.Minute, "the heap's floor is what the server allocates in this time, at the rate of the last collection's cycle, up to --heap-floor-mb: under load a collection about this often, idle a small heap (0: the floor is --heap-floor-mb whatever the load)")
	memLimit := fs.Int("memory-limit-mb", memMB/2, "a soft limit of the process's memory (GOMEMLIMIT), near which the collector runs more often whatever --gc-percent says; by default half the memory of the machine, or of its container if less (0: none; $GOMEMLIMIT, if set, wins)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *config != "" {
		if err := applyConfig(fs, *config); err != nil {
			return err
		}
		if v := fs.Lookup("data").Value.String(); v != "" {
			datadir.Set(v)
		}
	}
	if err := atLeast(1, "kgp-random-moves", *kgpRandom, "max-open-games", *maxOpen, "max-guest-games-per-addr", *maxGuestGames, "max-conns", *maxConns, "max-games", *maxGames,
		"login-burst", *loginBurst, "max-table-mb", *maxTT, "max-threads", *maxThreads); err != nil {
		return err
	}
	if err := atLeast(0, "heap-floor-mb", *heapFloor); err != nil {
		return err
	}
	if err := atLeast(1, "procs", *procs); err != nil {
		return err
	}
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(*procs))
	}
	// The floor is let go when serve returns, whichever way.
	gcCtx, stopGC := context.WithCancel(ctx)
	defer stopGC()
	tuneGC(gcCtx, *gcPercent, *memLimit, *heapFloor, *gcInterval)
	if *maxLine < 64 {
		return usagef("--max-line %d: want at least 64 (a login must fit)", *maxLine)
	}
	if !(*loginRate > 0) {
		return usagef("--login-rate %v: want more than 0 logins a second", *loginRate)
	}
	if !(*signupRate > 0) || *signupBurst < 1 {
		return usagef("--signup-rate %v, --signup-burst %d: want more than 0 sign-ups a second, and a burst of at least 1", *signupRate, *signupBurst)
	}
	if *botWait <= 0 {
		return usagef("--bot-wait %v: want a positive duration", *botWait)
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
	trusted, err := netx.ParseProxies(proxies...)
	if err != nil {
		return usagef("--trusted-proxy: %w", err)
	}
	var tlsConfig *tls.Config
	if *tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert, --tls-key: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if _, _, err := player.Lookup(*houseBot); err != nil {
		return usagef("--house-bot: %w", err)
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	// The addresses are taken before anything is made on disk, so a
	// refused one (a bad or busy port) leaves no database behind.
	type listener struct {
		what string
		l    net.Listener
	}
	var ls []listener
	closeAll := func() {
		for _, x := range ls {
			x.l.Close()
		}
	}
	for _, x := range []struct{ what, a string }{{"bots", *botAddr}, {"kgp", *kgpAddr}, {"http", *addr}, {"metrics", *metricsAddr}} {
		if x.a == "" || x.a == "0" {
			continue
		}
		l, err := net.Listen("tcp", x.a)
		if err != nil {
			closeAll()
			return fmt.Errorf("%s: %w", x.what, err)
		}
		ls = append(ls, listener{x.what, l})
	}
	data := new(string)
	*data = datadir.Dir()
	// The owner's only: password hashes, token hashes, the admin token.
	if err := datadir.Ensure(*data); err != nil {
		closeAll()
		return err
	}
	// One server a data directory: a second would resume the first's live
	// games and fight it over them.
	unlock, err := datadir.Lock(*data, "kalah serve")
	if err != nil {
		return err
	}
	defer unlock()
	dbPath := filepath.Join(*data, "kalah.db")
	if *adminToken == "" {
		if *adminToken, err = loadAdminToken(*data); err != nil {
			closeAll()
			return err
		}
	}
	st, err := store.Open(dbPath)
	if err != nil {
		closeAll()
		return err
	}
	defer st.Close()
	if moves, torn := st.Replayed(); moves > 0 || torn != nil {
		// A crash left live games' moves in the journal: they are in the
		// database now, up to a last line the crash cut short.
		e.log.Info("moves of live games put back from the journal", "moves", moves, "last line cut short", torn)
	}
	st.SetCommitDelay(*commitDelay)
	cfg := server.Config{
		Store: st, Rules: r, PerMove: *perMove, Budget: *budget, Increment: *increment, Delay: *delay,
		NoClock: *perMove == 0 && *budget == 0, Grace: *grace, Reconnect: *reconnect, ResumeGrace: *resumeGrace, MaxOpenGames: *maxOpen,
		MaxGuestGamesPerAddr: *maxGuestGames, WorkPerIdentity: *workPerIdentity, WorkTotal: *workTotal,
		MaxGames: *maxGames, MaxLine: *maxLine, HandshakeTimeout: *handshake, IdleTimeout: *idle, MaxConns: *maxConns,
		LoginRate: *loginRate, LoginBurst: *loginBurst, SignupRate: *signupRate, SignupBurst: *signupBurst, AllowExec: *allowExec, AdminToken: *adminToken,
		Limits:     player.Limits{TableMB: *maxTT, Threads: *maxThreads, Time: *maxThink, Depth: *maxDepth},
		AsyncMoves: *asyncMoves, ArrangedWait: *botWait, Log: e.log,
		Hint:           serveHint,
		TrustedProxies: trusted, MaxStreams: *maxStreams, MaxStreamsPerAddr: *maxStreamsAddr, MaxStreamsPerIdentity: *maxStreamsWho,
		StreamLifetime: *streamLife, MaxChallenges: *maxChallenges, Hashers: *hashers,
		HouseBotAfter: *houseAfter, HouseBot: *houseBot,
	}
	srv, err := server.New(cfg)
	if err != nil {
		closeAll()
		return err
	}
	ks := &kgp.Server{Logger: e.log, MaxClients: *maxConns, MaxRandomMoves: *kgpRandom, Auth: srv.TokenLogin}
	ks.Join, ks.Admit = srv.KGPJoin, srv.KGPAdmit
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	bound := map[string]string{} // what -> host:port to tell people
	local := true                // every address is this machine's only
	serveOn := func(what string, l net.Listener, serve func(net.Listener) error) {
		// At most --max-conns connections at once on each listener, and
		// --max-conns-per-addr from one client (trusted proxies aside), and
		// an accept error (too many open files) is retried, never fatal.
		g := netx.GuardWith(l, netx.Caps{Max: *maxConns, PerAddr: *maxConnsPerAddr, Exempt: trusted}, e.log, what)
		watchListener(srv.Metrics(), what, g)
		l = g
		bound[what] = reachable(l.Addr())
		local = local && loopback(l.Addr())
		e.log.Debug("listening", "what", what, "addr", l.Addr().String())
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, kgp.ErrServerClosed) && !errors.Is(err, server.ErrClosed) {
				errc <- fmt.Errorf("%s: %w", what, err)
			}
		}()
	}
	mux := http.NewServeMux()
	// KGP's WebSockets count among the long-lived requests of their client.
	mux.Handle("/kgp", srv.LimitStreams(server.StreamKGPWS, ks.Handler()))
	if mountWeb != nil {
		// The page serves its part of the one API (meta, analysis,
		// tournaments) and hands the rest of /api/ and /ws/ to the server.
		webCtx, stopWeb := context.WithCancel(ctx)
		h, waitWeb, err := mountWeb(webCtx, srv, *data, pageLimits{analysisRate: *analysisRate, analysisBurst: *analysisBurst, analyses: *analyses, maxAnalysis: *maxAnalysis})
		defer waitWeb()
		defer stopWeb()
		if err != nil {
			closeAll()
			return err
		}
		mux.Handle("/", h)
	} else {
		api := srv.Handler()
		mux.Handle("/api/", api)
		mux.Handle("/ws/", api)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				http.NotFound(w, r)
				return
			}
			fmt.Fprintln(w, "kalah match server: bots at /ws/bot (docs/PROTOCOL.md) and /kgp; games at /api/games")
		})
	}
	// Requests end with ctx, so long ones (event streams, POST
	// /api/arranged following a game) do not hold up the shutdown.
	// Timeouts close connections that send their request (headers or body)
	// too slowly, or never read the answer; WebSockets, event streams and
	// arranged games lift them for themselves (netx.LongLived).
	// Every answer carries the security headers, and every request is
	// its real client's behind a trusted proxy.
	hs := &http.Server{Handler: trusted.RealClients(netx.Secured(mux)), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout,
		IdleTimeout: *httpIdle, MaxHeaderBytes: 64 << 10, BaseContext: func(net.Listener) context.Context { return ctx }, TLSConfig: tlsConfig,
		// Failed TLS handshakes (scanners, plain HTTP on the TLS port) and
		// the like go to the server's log, not standard error: each
		// handshake counted, at most a line a minute an address.
		ErrorLog: (&netx.HTTPErrors{Log: e.log, HandshakeFailed: srv.TLSHandshakeFailed}).Logger()}
	serveHTTP := hs.Serve
	if tlsConfig != nil {
		serveHTTP = func(l net.Listener) error { return hs.ServeTLS(l, "", "") }
	}
	// The operator's endpoints, on an address of their own only.
	ms := &http.Server{Handler: operatorMux(srv), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	stopAll := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		ks.Shutdown(sctx)
		srv.Shutdown(sctx)
		ms.Shutdown(sctx)
	}
	for _, x := range ls {
		switch x.what {
		case "bots":
			serveOn(x.what, x.l, srv.Serve)
		case "kgp":
			serveOn(x.what, x.l, ks.Serve)
		case "http":
			serveOn(x.what, x.l, serveHTTP)
		case "metrics":
			serveOn(x.what, x.l, ms.Serve)
		}
	}
	if *buildDB {
		// Its notes go to the log; the build starts when a perfect
		// player or the page's analysis is first asked, not now.
		buildDBOnFirstUse(e, false)
	}
	e.log.Info("serving", "data", dbPath, "rules", r.String(), "tls", tlsConfig != nil, "trusted-proxies", trusted.Len())
	printURLs(e.stdout, bound, dbPath, r, tlsConfig != nil, local)
	if *ready != "" {
		if err := os.WriteFile(*ready, []byte(readyText(bound)), 0o644); err != nil {
			e.log.Warn("cannot write --ready-file", "err", err)
		}
	}
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	stopAll()
	wg.Wait()
	if *buildDB {
		stopDBBuilds(e, nil) // its progress kept for the next start
	}
	return err
}

// applyConfig sets every flag named in a TOML file that was not given on
// the command line.
func applyConfig(fs *flag.FlagSet, path string) error {
	var values map[string]any
	if _, err := toml.DecodeFile(path, &values); err != nil {
		return usagef("--config: %w", err)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for k, v := range values {
		k = strings.ReplaceAll(k, "_", "-")
		if fs.Lookup(k) == nil || k == "config" {
			return usagef("--config %s: unknown setting %q", path, k)
		}
		if given[k] {
			continue
		}
		// A list (trusted-proxy = ["10.0.0.0/8", "::1"]) sets the flag once
		// a value.
		vs, ok := v.([]any)
		if !ok {
			vs = []any{v}
		}
		for _, v := range vs {
			if err := fs.Set(k, fmt.Sprint(v)); err != nil {
				return usagef("--config %s: %s: %w", path, k, err)
			}
		}
	}
	return nil
}

// reachable turns a listener's address into one a person can use on this
// machine: an unspecified host (all interfaces) becomes localhost.
func reachable(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// loopback reports whether a listener's address lets only this machine
// connect.
func loopback(a net.Addr) bool {
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// printURLs tells the person who started the server where everything is.
func printURLs(w io.Writer, bound map[string]string, db string, r kalah.Rules, tls, local bool) {
	fmt.Fprintf(w, "kalah serve: Kalah(%d,%d), %s rules; games kept in %s\n", r.Houses, r.Seeds, r, db)
	if h, ok := bound["http"]; ok {
		web, ws := "http", "ws"
		if tls {
			web, ws = "https", "wss"
		}
		fmt.Fprintf(w, "  web page       %s://%s/\n", web, h)
		fmt.Fprintf(w, "  games (JSON)   %s://%s/api/games\n", web, h)
		fmt.Fprintf(w, "  bots, ours     %s://%s/ws/bot\n", ws, h)
		fmt.Fprintf(w, "  bots, KGP      %s://%s/kgp\n", ws, h)
	}
	if m, ok := bound["metrics"]; ok {
		fmt.Fprintf(w, "  operator       http://%s/metrics, /healthz, /debug/pprof/ (keep this address private)\n", m)
	}
	if b, ok := bound["bots"]; ok {
		fmt.Fprintf(w, "  bots, ours     tcp://%s  (kalah bot --server %s; docs/PROTOCOL.md)\n", b, b)
	}
	if k, ok := bound["kgp"]; ok {
		fmt.Fprintf(w, "  bots, KGP      tcp://%s  (docs/protocols/kgp.md)\n", k)
	}
	fmt.Fprintf(w, "  admin token    in %s (kalah tournament --server reads it on this machine; elsewhere give --server-token)\n", filepath.Join(filepath.Dir(db), adminTokenFile))
	if local && len(bound) > 0 {
		// The defaults keep a newcomer's server to this machine.
		var flags []string
		for _, x := range [][2]string{{"http", "addr"}, {"bots", "bot-addr"}, {"kgp", "kgp-addr"}} {
			if a, ok := bound[x[0]]; ok {
				_, port, _ := net.SplitHostPort(a)
				flags = append(flags, fmt.Sprintf("--%s :%s", x[1], port))
			}
		}
		fmt.Fprintf(w, "Only this machine can connect; to let other machines in: kalah serve %s\n", strings.Join(flags, " "))
	}
	fmt.Fprintln(w, "Press Ctrl-C to stop.")
}

// readyText lists the addresses served, a line each: "http localhost:8080".
func readyText(bound map[string]string) string {
	var b strings.Builder
	for _, what := range []string{"http", "bots", "kgp", "metrics"} {
		if a, ok := bound[what]; ok {
			fmt.Fprintf(&b, "%s %s\n", what, a)
		}
	}
	return b.String()
}

// adminTokenFile is where kalah serve keeps its admin token, in the data
// directory, readable by its owner only; kalah tournament --server reads it
// from there when it runs on the same machine.
const adminTokenFile = "admin.token"

// loadAdminToken reads the admin token from dir, making a random one the
// first time.
func loadAdminToken(dir string) (string, error) {
	path := filepath.Join(dir, adminTokenFile)
	if b, err := os.ReadFile(path); err == nil {
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("admin token: %w", err)
	}
	b := make([]byte, 24)
	rand.Read(b)
	t := hex.EncodeToString(b)
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	return t, nil
}

// serveGCPercent is kalah serve's default collector target (GOGC): the
// heap may grow to five times what is live before a collection, not
// Go's twice. A server's live heap is its connections and games, which
// change slowly, and the collector's mark phases (a quarter of the
// processors and the assists of every goroutine that allocates, for a
// fifth of a second and more under load) make most of the tail of move
// confirmations on a busy machine: fewer of them, a shorter tail, for
// more resident memory (docs/PERFORMANCE.md, S4). The soft memory limit
// (--memory-limit-mb, half the machine's) keeps the heap within the machine.
const serveGCPercent = 400

// serveCommitDelay is kalah serve's --commit-delay: under load a game's
// start or end waits at most this long, gathered into one commit with
// the others of the moment (about 90 commits a second where there were
// 500 at 4,000 games, and a twentieth less of the server's CPU a move:
// docs/PERFORMANCE.md, S4). A write after a quiet moment waits for
// nothing, and a move never waits for it (the moves' journal).
const serveCommitDelay = 10 * time.Millisecond

// heapFloorMB is the heap floor kept with a soft memory limit: at most
// half of it, so that the collections the floor spares are not made up
// near the limit.
func heapFloorMB(floorMB, limitMB int) int {
	if limitMB > 0 {
		return min(floorMB, limitMB/2)
	}
	return floorMB
}

// serveProcs is kalah serve's default --procs: two processors a core. The
// server shares its cores with other processes (a proxy, backups, here the
// load generator); with a processor a core, a core the kernel gives to one
// of them for its time slice (milliseconds) takes the goroutines queued on
// its processor out of play until it comes back. With more processors
// than cores the kernel runs whichever thread is ready: at 4,000 bot games
// on two cores, a p99 of 9.1-13.3 ms with four against 15-21 ms with two.
// Eight were as good between collections but twice as slow through one
// (its mark takes two processors of eight, and the assists the rest):
// p99 55-82 ms against 24-38 with a collection in the window
// (docs/PERFORMANCE.md, S4). Where the runtime found the CPUs limited (a
// container's quota: GOMAXPROCS under the CPUs), more threads than the
// quota would be throttled, so its choice stays. The pools sized by the
// cores (searches, hashes, builds) count cores, not processors
// (internal/cores).
func serveProcs() int {
	if p := runtime.GOMAXPROCS(0); p < runtime.NumCPU() {
		return p
	}
	return 2 * runtime.NumCPU()
}

// tuneGC sets the collector's target, its heap floor (until ctx ends) and
// the soft memory limit, unless the environment's GOGC or GOMEMLIMIT says
// otherwise (the runtime has read those already, and they win; with GOGC
// set there is no floor). The floor is what the server allocates in every
// (all of floorMB with every 0), at most floorMB and half the limit.
//
// The channel returned is closed once the floor is let go (nil: no floor).
func tuneGC(ctx context.Context, percent, limitMB, floorMB int, every time.Duration) <-chan struct{} {
	var floored chan struct{}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(percent)
		if floorMB = heapFloorMB(floorMB, limitMB); percent >= 0 && floorMB > 0 {
			floored = make(chan struct{})
			go func() {
				defer close(floored)
				gcfloor.Run(ctx, percent, uint64(floorMB)<<20, every, 100*time.Millisecond)
			}()
		}
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set && limitMB > 0 {
		debug.SetMemoryLimit(int64(limitMB) << 20)
	}
	return floored
}

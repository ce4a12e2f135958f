package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/server"
	"kalah/tui"
)

func init() {
	register(&command{name: "host", summary: "host a game on the LAN for a friend (kalah join) or a bot, refereed here", run: runHost})
}

func runHost(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "host", "[--port P] [--player human|SPEC] [--name N] [--games N] [--time D]",
		"Hosts games on this machine, as GameLink did on a LAN: you play at this\n"+
			"terminal (or --player puts a computer player in your seat) against whoever\n"+
			"connects: a person running \"kalah join HOST\", or a bot (\"kalah bot --server\n"+
			"HOST:PORT\", or any program speaking docs/PROTOCOL.md). This machine referees.\n"+
			"You play South in the first game and the sides alternate. Type a house number\n"+
			"(1 is your leftmost) to move, or \"resign\".")
	rf := addRulesFlags(fs)
	host := fs.String("host", "localhost", "address to listen on: localhost lets only this machine in; 0.0.0.0 (or empty) every machine that can reach this one")
	port := fs.Int("port", 2670, "TCP port to listen on (0: any free port)")
	spec := fs.String("player", "human", "who plays at this end: human, or a player spec (see kalah players)")
	name := fs.String("name", defaultName(), "your name")
	games := fs.Int("games", 1, "games to play")
	perMove := fs.Duration("time", 0, "time limit a move (0: none)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *port > 65535 {
		return usagef("--port %d: want 0 (any free port) to 65535", *port)
	}
	if *games < 1 {
		return usagef("--games %d: want at least 1", *games)
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	in := newLineInput(e.stdin)
	var p player.Player
	if strings.EqualFold(*spec, "human") {
		p = &terminalPlayer{in: in, out: e.stdout, names: [2]string{*name, "opponent"}}
	} else if p, err = player.New(*spec, player.Options{Rules: r, Seed: 1}); err != nil {
		return usagef("--player: %w", err)
	}
	dbPath := ":memory:"
	// host keeps its games in memory unless --data names a directory.
	if data := fs.Lookup("data").Value.String(); data != "" {
		dbPath = filepath.Join(data, "kalah.db")
	}
	st, err := store.Open(dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := server.New(server.Config{Store: st, Rules: r, PerMove: *perMove, NoClock: *perMove == 0, Reconnect: 5 * time.Minute, Log: quietLog(e)})
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(*host, fmt.Sprint(*port)))
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-served
	}()
	bound := l.Addr().(*net.TCPAddr)
	join := "kalah join localhost"
	if bound.Port != 2670 {
		join += fmt.Sprintf(":%d", bound.Port)
	}
	if bound.IP.IsLoopback() {
		fmt.Fprintf(e.stdout, "Hosting %s on %s, for this machine only. In another terminal run:\n  %s\n", r.String(), bound, join)
		fmt.Fprintf(e.stdout, "For a friend on another machine, host with --host 0.0.0.0; they run: kalah join %s:%d\n", hostAddr(), bound.Port)
	} else {
		fmt.Fprintf(e.stdout, "Hosting %s on port %d. On the other machine run:\n  kalah join %s:%d\n(here: %s)\n",
			r.String(), bound.Port, hostAddr(), bound.Port, join)
	}
	for i := range *games {
		fmt.Fprintf(e.stdout, "Waiting for an opponent (game %d of %d)...\n", i+1, *games)
		gr := r
		if i%2 == 1 {
			gr.First = gr.First.Other() // alternate who starts
		}
		// The host's seat has a queue key of its own, so a guest who logs
		// in under the same name (both default to $USER on one machine)
		// is not taken for the host waiting twice.
		if err := srv.Play(ctx, server.Entrant{Name: *name, Kind: "host", Key: "host:" + *name, Player: p, Rules: &gr}); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if games, _ := st.Games(context.Background(), store.Filter{Limit: 1}); len(games) == 1 {
			// The whole game: its record seats the players as at the end
			// (after a pie-rule swap too), beside the stores they ended with.
			if g, err := st.Game(context.Background(), games[0].ID); err == nil {
				rec := g.Record
				fmt.Fprintf(e.stdout, "Game over: %s %d - %d %s (%s, %s)\n", rec.Players.South, rec.Final.South,
					rec.Final.North, rec.Players.North, rec.Result, rec.Termination)
			}
		}
	}
	return nil
}

// quietLog logs only warnings and errors, to keep a person's terminal
// for the game, unless a level was asked for (--log-level, $KALAH_LOG).
func quietLog(e *env) *slog.Logger {
	if explicitLogs(e) || stderrIsTerminal(e.stderr) {
		return e.log // on a terminal only warnings, in words
	}
	return textLogger(e.stderr, slog.LevelWarn)
}

// defaultName is the person's login name ($USER, $USERNAME) made into a
// name a server accepts: a name it keeps for itself (root, guest), one too
// short or none at all gets a short random suffix ("root-4821",
// "player-0377"), so the defaults of kalah host and kalah join log in.
func defaultName() string {
	base := ""
	for _, k := range []string{"USER", "USERNAME"} {
		if v := strings.TrimLeft(cleanName(os.Getenv(k)), "-_."); os.Getenv(k) != "" && v != "" {
			base = v
			break
		}
	}
	if base != "" && identity.CheckName(base) == nil {
		return base
	}
	return suffixedName(base)
}

// suffixedName returns base with a random suffix, or "player-" and one
// when that is still no name a server accepts.
func suffixedName(base string) string {
	if len(base) > 27 {
		base = base[:27]
	}
	n := fmt.Sprintf("-%04d", mrand.IntN(10000))
	if identity.CheckName(base+n) == nil {
		return base + n
	}
	return "player" + n
}

// hostAddr guesses this machine's LAN address for the join hint.
func hostAddr() string {
	c, err := net.Dial("udp", "192.0.2.1:9")
	if err != nil {
		return "HOST"
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).IP.String()
}

// lineInput reads lines from a reader in the background, so a move prompt
// can give up when the game ends.
type lineInput struct {
	once  sync.Once
	r     io.Reader
	lines chan string
}

func newLineInput(r io.Reader) *lineInput { return &lineInput{r: r, lines: make(chan string)} }

func (in *lineInput) next(ctx context.Context) (string, error) {
	in.once.Do(func() {
		go func() {
			sc := bufio.NewScanner(in.r)
			for sc.Scan() {
				in.lines <- sc.Text()
			}
			close(in.lines)
		}()
	})
	select {
	case s, ok := <-in.lines:
		if !ok {
			return "", io.EOF
		}
		return s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// terminalPlayer is a person at this terminal: it draws the board and reads
// moves, refusing illegal ones.
type terminalPlayer struct {
	in    *lineInput
	out   io.Writer
	names [2]string // [0] the person, [1] the opponent
	side  kalah.Side
	seen  int
}

func (t *terminalPlayer) draw(g *kalah.Game, bottom kalah.Side) {
	names := [2]string{}
	names[bottom], names[bottom.Other()] = t.names[0]+" (you)", t.names[1]
	b := tui.Board{Pos: g.Position(), Bottom: bottom, Over: g.Over(), Names: names}
	if last, ok := g.Last(); ok {
		b.Last, b.LastSide = last.Move, last.Side
	}
	fmt.Fprintln(t.out, b.String())
}

func (t *terminalPlayer) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	t.side = g.ToMove()
	t.report(g)
	t.draw(g, t.side)
	for {
		prompt := fmt.Sprintf("Your move (%s", houseList(g))
		if lim := c.Limit(); lim > 0 {
			prompt += fmt.Sprintf(", %v", lim.Round(time.Second))
		}
		fmt.Fprint(t.out, prompt+")> ")
		s, err := t.in.next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return kalah.NoMove, player.ErrResigned
			}
			return kalah.NoMove, err
		}
		s = strings.TrimSpace(s)
		if strings.EqualFold(s, "resign") {
			return kalah.NoMove, player.ErrResigned
		}
		m, err := kalah.ParseMove(s)
		if err != nil || !g.IsLegal(m) {
			fmt.Fprintf(t.out, "%q is not a move here.\n", s)
			continue
		}
		t.seen = g.Len() + 1
		return m, nil
	}
}

// report prints the opponent's moves since the person last moved.
func (t *terminalPlayer) report(g *kalah.Game) {
	moves := g.Moves()
	if t.seen > len(moves) {
		t.seen = 0
	}
	for _, m := range moves[t.seen:] {
		if m.Side != t.side || t.seen == 0 {
			fmt.Fprintf(t.out, "%s plays %s\n", m.Side, m.Move)
		}
	}
	t.seen = len(moves)
}

func (t *terminalPlayer) Observe(ctx context.Context, g *kalah.Game) error {
	if g.Over() {
		t.report(g)
		t.draw(g, t.side)
		s, n := g.Score()
		fmt.Fprintf(t.out, "The game is over: South %d, North %d (%s).\n", s, n, g.Termination())
		t.seen = 0
	}
	return nil
}

func houseList(g *kalah.Game) string {
	var parts []string
	for _, m := range g.Legal() {
		parts = append(parts, m.String())
	}
	return strings.Join(parts, ", ")
}

// randomToken returns a fresh secret for a one-off login.
func randomToken() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"kalah/player"
	"kalah/protocol/line"
	"kalah/remote"
)

func init() {
	register(&command{name: "bot", summary: "put a computer player online on a kalah server", run: runBot})
}

func runBot(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bot", "--server ADDR --player SPEC [--name N --token T] [--games N] [--challenge NAME | --wait]",
		"Connects a player (see kalah players) to a kalah match server over kalah's line\n"+
			"protocol and plays queued games. ADDR is host:port (the server's --bot-addr)\n"+
			"or a ws:// URL ending in /ws/bot. The first login registers the name with the\n"+
			"token; keep the token to log in again. The rules flags choose the games to\n"+
			"queue for when given; by default any rules the server offers are taken.\n"+
			"With --wait the bot joins no queue: it waits for the games of tournaments\n"+
			"run by the server that name it bot:NAME, and plays them as they come.")
	rf := addRulesFlags(fs)
	addr := fs.String("server", "localhost:2670", "server address: host:port or ws://host:port/ws/bot")
	spec := fs.String("player", "pekar", "the player to put online (see kalah players)")
	name := fs.String("name", "", "name to log in with (default: the player spec, cleaned)")
	token := fs.String("token", os.Getenv("KALAH_TOKEN"), "secret token for the name (default $KALAH_TOKEN, or a new random one, printed once the server has taken it)")
	games := fs.Int("games", 0, "games to play (0: until interrupted)")
	challenge := fs.String("challenge", "", "challenge this bot instead of joining the queue")
	wait := fs.Bool("wait", false, "wait for tournament games (the server's bot:NAME player) instead of joining the queue")
	accept := fs.Bool("accept", false, "stay online accepting challenges (from bots, and from people on the web page's lobby) instead of joining the queue")
	seed := fs.Uint64("seed", 1, "seed for players that draw at random")
	retries := fs.Int("retries", 1000, "how many times to connect again, with a growing pause, when the connection drops (0: never)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if err := atLeast(0, "games", *games, "retries", *retries); err != nil {
		return err
	}
	if *accept && (*wait || *challenge != "") {
		return usagef("--accept takes challenges: not with --wait or --challenge")
	}
	if *wait && *challenge != "" {
		return usagef("--wait and --challenge exclude each other")
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	rulesWord := ""
	rulesGiven := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "rules", "houses", "seeds", "first", "end", "empty-capture", "early-end", "pie", "sow-opponent-store":
			rulesGiven = true
		}
	})
	if rulesGiven {
		rulesWord = line.RulesToken(r)
	}
	p, err := player.New(*spec, player.Options{Rules: r, Seed: *seed})
	if err != nil {
		return usagef("--player: %w", err)
	}
	if *name == "" {
		*name = cleanName(*spec)
	}
	if !line.ValidName(*name) {
		return usagef("--name %q: 1 to 32 letters, digits, '-', '_' or '.'", *name)
	}
	newToken := *token == ""
	if newToken {
		b := make([]byte, 12)
		rand.Read(b)
		*token = hex.EncodeToString(b)
	}
	c := &remote.Client{Addr: *addr, Name: *name, Token: *token, Player: p, Rules: rulesWord, Challenge: *challenge, Wait: *wait, Accept: *accept, Games: *games, Log: e.log}
	loggedIn := false
	c.OnMsg = func(m line.Msg) {
		if m.Cmd != "ok" || m.Arg(0) != "login" || loggedIn {
			return
		}
		loggedIn = true
		// The token is the name's from now on: said once the server has
		// taken it, not before (a bot that never reached a server has none).
		if newToken {
			fmt.Fprintf(e.stderr, "kalah bot: logged in as %s with the new token %s; keep it: --token %s (or $KALAH_TOKEN) logs in as %s again\n", m.Arg(1), *token, *token, m.Arg(1))
		}
	}
	var won, drawn, lost int
	c.OnEnd = func(st line.Start, end line.End) {
		mine, theirs := end.South, end.North
		if st.Side != 0 {
			mine, theirs = theirs, mine
		}
		switch {
		case mine > theirs:
			won++
		case mine < theirs:
			lost++
		default:
			drawn++
		}
		fmt.Fprintf(e.stdout, "game %s vs %s: %d-%d (%s)\n", st.Game, st.Opponent, mine, theirs, end.Termination)
	}
	// Play on when the connection drops or the server restarts: connect
	// again after a pause that doubles up to a minute, and play on in a
	// game that was in progress. A refusal (wrong token, full server) ends.
	pause := time.Second
	for {
		start := time.Now()
		err = c.Run(ctx)
		if !loggedIn && errors.Is(err, remote.ErrUnreachable) && ctx.Err() == nil {
			// Never connected: there is no connection to get back.
			return fmt.Errorf("%w; start the server (kalah serve, or kalah host) or give its address with --server HOST:PORT", err)
		}
		if errors.Is(err, remote.ErrNameRefused) {
			err = fmt.Errorf("%w; pick another name with --name NAME, or log in with the name's --token", err)
		}
		done := won + drawn + lost
		if err == nil || ctx.Err() != nil || errors.Is(err, remote.ErrRefused) || *retries == 0 ||
			(*games > 0 && done >= *games) {
			break
		}
		if time.Since(start) > time.Minute {
			pause = time.Second // it had been connected for a while
		}
		e.log.Warn("connection lost; connecting again", "server", *addr, "err", err, "in", pause)
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		if ctx.Err() != nil {
			break
		}
		pause = min(2*pause, time.Minute)
		*retries--
		if *games > 0 {
			c.Games = *games - done
		}
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		err = ctx.Err()
	}
	fmt.Fprintf(e.stdout, "%s: won %d, drew %d, lost %d\n", *name, won, drawn, lost)
	return err
}

// cleanName turns a player spec into a login name.
func cleanName(spec string) string {
	var b strings.Builder
	for _, c := range spec {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) > 32 {
		s = s[:32]
	}
	if s == "" {
		s = "bot"
	}
	return s
}

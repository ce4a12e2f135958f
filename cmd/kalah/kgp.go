package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/coder/websocket"

	"kalah/player"
	"kalah/protocol/kgp"
)

func init() {
	register(&command{name: "kgp", summary: "connect one of our players to a KGP server as a bot", run: runKGP})
}

func runKGP(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "kgp", "[--connect HOST:PORT | ws://HOST/PATH] [--player SPEC] [--name NAME]",
		"Connects a player to a server speaking the Kalah Game Protocol (KGP; kalah serve\n"+
			"offers it on port 2671 and at /kgp) and plays in freeplay mode until the server\n"+
			"says goodbye. The rules flags tell the player how the server plays (default:\n"+
			"the kgp preset; each board gives the number of houses). See docs/protocols/kgp.md.")
	rf := addRulesFlags(fs)
	addr := fs.String("connect", fmt.Sprintf("localhost:%d", kgp.DefaultPort), "server: HOST:PORT for TCP, or a ws:// or wss:// URL")
	spec := fs.String("player", "pekar", "our player (see kalah players)")
	name := fs.String("name", "", "name sent to the server (default: the player spec)")
	think := fs.Duration("think", 0, "time the player may think about each state (0: until the server says stop)")
	token := fs.String("token", "", "auth:token sent to the server: keeps the bot's identity across connections (at least 8 characters)")
	retries := fs.Int("retries", 10, "how many times to reconnect, with a growing pause, after the connection fails")
	hold := fs.Duration("hold", kgp.DefaultHold, "least time between a state's arrival and our answer, so that the server has registered the state (the reference server refuses an answer that comes first)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *think < 0 {
		return usagef("--think %v: want 0 or a positive duration", *think)
	}
	if *hold <= 0 || *hold > 10*time.Second {
		return usagef("--hold %v: want a positive duration up to 10s", *hold)
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "rules" })
	if !given {
		rf.preset = "kgp"
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	p, err := player.New(*spec, player.Options{Rules: r, Seed: 1})
	if err != nil {
		return usageError{err}
	}
	if c, ok := p.(interface{ Close() error }); ok {
		defer c.Close()
	}
	if *name == "" {
		*name = *spec
	}
	if *retries < 0 {
		return usagef("--retries %d: want 0 or more", *retries)
	}
	games := 0
	b := &kgp.Bot{Name: *name, Authors: "kalah", Description: "kalah player " + *spec, Player: p, Rules: r, Think: *think, Token: *token, Hold: *hold, Logger: e.log,
		OnEnd: func(end kgp.GameEnd) {
			games++
			fmt.Fprintf(e.stdout, "game %d: %s\n", games, describeKGPEnd(end))
		},
		// Every error the server sends is the user's business: a refused
		// login, a lost move, an illegal one.
		OnError: func(msg string) { fmt.Fprintf(e.stderr, "kalah kgp: %s\n", msg) },
	}
	// Play while the server keeps the connection; when it fails, connect
	// again after a pause that doubles up to a minute.
	backoff := time.Second
	for attempt := 0; ; attempt++ {
		conn, err := dialKGP(ctx, *addr)
		if err == nil {
			fmt.Fprintf(e.stderr, "kalah kgp: connected to %s as %s (%s)\n", *addr, *name, *spec)
			backoff = time.Second
			err = b.Play(ctx, conn)
			if err == nil {
				fmt.Fprintf(e.stdout, "the server said goodbye after %s\n", count(games, "game"))
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if attempt >= *retries {
			return err
		}
		e.log.Warn("connection lost; reconnecting", "server", *addr, "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Minute)
	}
}

func dialKGP(ctx context.Context, addr string) (io.ReadWriteCloser, error) {
	if strings.HasPrefix(addr, "ws://") || strings.HasPrefix(addr, "wss://") {
		ws, _, err := websocket.Dial(ctx, addr, nil)
		if err != nil {
			return nil, err
		}
		return websocket.NetConn(context.WithoutCancel(ctx), ws, websocket.MessageText), nil
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// describeKGPEnd says how a KGP game ended, from the bot's side: "loss to
// alice, 20-28 (normal)"; a server that tells no opponent or score (the
// protocol does not require them) gets the result alone.
func describeKGPEnd(end kgp.GameEnd) string {
	s := end.Result
	if end.Opponent != "" {
		switch end.Result {
		case "win":
			s += " against " + end.Opponent
		case "loss":
			s += " to " + end.Opponent
		default:
			s += " with " + end.Opponent
		}
	}
	if end.Score != "" {
		s += ", " + end.Score
	}
	return s + " (" + end.Termination + ")"
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"

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
	if err := parseFlags(fs, args); err != nil {
		return err
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
	var conn io.ReadWriteCloser
	if strings.HasPrefix(*addr, "ws://") || strings.HasPrefix(*addr, "wss://") {
		ws, _, err := websocket.Dial(ctx, *addr, nil)
		if err != nil {
			return err
		}
		conn = websocket.NetConn(context.WithoutCancel(ctx), ws, websocket.MessageText)
	} else {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", *addr)
		if err != nil {
			return err
		}
		conn = c
	}
	b := &kgp.Bot{Name: *name, Authors: "kalah", Description: "kalah player " + *spec, Player: p, Rules: r, Think: *think, Logger: e.log}
	e.log.Info("connected", "server", *addr, "player", *spec)
	if err := b.Play(ctx, conn); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "the server said goodbye")
	return nil
}

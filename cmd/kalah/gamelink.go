package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"strconv"
	"time"

	"kalah/player"
	"kalah/protocol/gamelink"
)

func init() {
	register(&command{name: "gamelink", summary: "play one of our players against a bot on the GameLink platform", run: runGameLink})
}

func runGameLink(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "gamelink", "(--listen [--port N] | --connect HOST[:PORT]) [--player SPEC]",
		"Plays one game of GameLink Kalah against a GameLink peer (docs/protocols/gamelink.md).\n"+
			"--listen plays as player 1, who moves first, on the first free port of 10007-10014\n"+
			"(or --port); --connect plays as player 2. The rules are the gamelink preset unless\n"+
			"changed; GameLink itself varies only --houses (at most 9) and --seeds.")
	rf := addRulesFlags(fs)
	listen := fs.Bool("listen", false, "play as player 1: listen and wait for player 2")
	host := fs.String("host", "localhost", "address to listen on with --listen: localhost lets only this machine in; 0.0.0.0 (or empty) every machine that can reach this one")
	port := fs.Int("port", 0, "port to listen on with --listen (default: the first free of 10007-10014)")
	connect := fs.String("connect", "", "play as player 2: connect to player 1 at HOST[:PORT]")
	spec := fs.String("player", "pekar", "our player (see kalah players)")
	moveTime := fs.Duration("time", 0, "MoveTimeLimit for our player (default 30s)")
	delay := fs.Duration("delay", 0, "MoveDelay before each of our moves")
	wait := fs.Duration("wait", 0, "with --connect, keep trying this long for player 1 to listen")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *listen == (*connect != "") {
		return usagef("give either --listen or --connect HOST")
	}
	if *port > 65535 {
		return usagef("--port %d: want 0 (the first free of 10007-10014) to 65535", *port)
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "rules" })
	if !given {
		rf.preset = "gamelink"
	}
	r, err := rf.rules()
	if err != nil {
		return err
	}
	if err := gamelink.CheckRules(r); err != nil {
		return usageError{err}
	}
	p, err := player.New(*spec, player.Options{Rules: r, Seed: 1})
	if err != nil {
		return usageError{err}
	}
	if c, ok := p.(interface{ Close() error }); ok {
		defer c.Close()
	}
	peer := &gamelink.Peer{Player: p, Rules: r, MoveTime: *moveTime, Delay: *delay, Logger: e.log}
	var conn net.Conn
	if *listen {
		peer.Number = 1
		peer.Names = [2]string{*spec, "gamelink peer"}
		addr := net.JoinHostPort(*host, strconv.Itoa(*port))
		l, err := gamelink.Listen(ctx, addr)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "player 1 (%s) waiting on %s\n", *spec, l.Addr())
		if a, ok := l.Addr().(*net.TCPAddr); ok && a.IP.IsLoopback() {
			fmt.Fprintln(e.stdout, "Only this machine can connect; for a peer on another machine, listen with --host 0.0.0.0.")
		}
		stop := context.AfterFunc(ctx, func() { l.Close() })
		conn, err = l.Accept()
		stop()
		l.Close()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
	} else {
		peer.Number = 2
		peer.Names = [2]string{"gamelink peer", *spec}
		deadline := time.Now().Add(*wait)
		for {
			conn, err = gamelink.Dial(ctx, *connect)
			if err == nil || time.Now().After(deadline) {
				break
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "connected to %s as player %d\n", conn.RemoteAddr(), peer.Number)
	g, err := peer.Play(ctx, conn)
	if g != nil {
		fmt.Fprintf(e.stdout, "%s\n", g)
	}
	if err != nil {
		return err
	}
	s, n := g.Score()
	res := "a tie"
	if w, ok := g.Result().Winner(); ok {
		res = "player " + strconv.Itoa(int(w)+1) + " wins"
		if int(w)+1 == peer.Number {
			res += " (us)"
		}
	}
	fmt.Fprintf(e.stdout, "player 1 %d - %d player 2: %s [%s]\n", s, n, res, g.Termination())
	return nil
}

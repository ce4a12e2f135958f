package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"kalah"
	"kalah/player"
	"kalah/protocol/line"
	"kalah/remote"
	"kalah/tui"
)

func init() {
	register(&command{name: "join", summary: "join a game hosted with kalah host on another machine", run: runJoin})
}

func runJoin(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "join", "HOST[:PORT] [--player human|SPEC] [--name N] [--games N]",
		"Joins games hosted by \"kalah host\" (or any kalah server) and plays them at\n"+
			"this terminal; the host referees. Type a house number (1 is your leftmost)\n"+
			"to move, or \"resign\". --player puts a computer player in your seat.")
	spec := fs.String("player", "human", "who plays at this end: human, or a player spec (see kalah players)")
	name := fs.String("name", "", "your name (default: your login name, with a suffix if the server keeps it for itself or someone else holds it)")
	token := fs.String("token", "", "token for the name (default: a new random one)")
	games := fs.Int("games", 1, "games to play")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return usagef("want the host's address: kalah join HOST[:PORT]")
	}
	addr := fs.Arg(0)
	// Flags may follow the address too.
	if err := parseFlags(fs, fs.Args()[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *games < 1 {
		return usagef("--games %d: want at least 1", *games)
	}
	if !strings.Contains(addr, "://") {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			addr = net.JoinHostPort(addr, "2670")
		}
	}
	chosen := *name != ""
	if !chosen {
		*name = defaultName()
	}
	base := strings.TrimRight(strings.TrimRight(*name, "0123456789"), "-")
	if *token == "" {
		*token = randomToken()
	}
	human := strings.EqualFold(*spec, "human")
	var p player.Player
	tp := &terminalPlayer{in: newLineInput(e.stdin), out: e.stdout, names: [2]string{*name, "opponent"}}
	if human {
		p = joinPlayer{tp}
	} else {
		var err error
		if p, err = player.New(*spec, player.Options{Rules: kalah.Standard(), Seed: 1}); err != nil {
			return usagef("--player: %w", err)
		}
	}
	var st line.Start
	var last kalah.Position
	var mover kalah.Side
	c := &remote.Client{Addr: addr, Name: *name, Token: *token, Player: p, Games: *games, Log: quietLog(e)}
	c.OnMsg = func(m line.Msg) {
		switch m.Cmd {
		case "start":
			st, _ = line.ParseStart(m)
			tp.names[1] = st.Opponent
			fmt.Fprintf(e.stdout, "Game %s against %s (%s); you are %s.\n", st.Game, st.Opponent, st.Rules, st.Side)
			mover = st.Side
		case "go":
			if t, err := line.ParseTurn(m); err == nil {
				mover = t.Position.ToMove()
			}
		case "moved":
			if side, mv, err := line.ParseMoved(m); err == nil && (side != mover || !human) {
				fmt.Fprintf(e.stdout, "%s plays %s\n", side, mv)
			}
		case "state":
			if p, err := kalah.ParsePosition(m.Rest(0)); err == nil {
				last = p
			}
		case "away":
			fmt.Fprintln(e.stdout, "The host's connection dropped; waiting for it to come back...")
		case "end":
			if end, err := line.ParseEnd(m); err == nil {
				names := [2]string{}
				names[mover], names[mover.Other()] = tp.names[0]+" (you)", tp.names[1]
				fmt.Fprintln(e.stdout, tui.Board{Pos: last, Bottom: mover, Over: true, Names: names}.String())
				fmt.Fprintf(e.stdout, "The game is over: South %d, North %d (%s).\n", end.South, end.North, end.Termination)
			}
		}
	}
	fmt.Fprintf(e.stdout, "Connecting to %s as %s...\n", addr, *name)
	for tries := 0; ; tries++ {
		err := c.Run(ctx)
		if errors.Is(err, remote.ErrUnreachable) && ctx.Err() == nil {
			return fmt.Errorf("%w; is kalah host running there? Start it, or check the address", err)
		}
		if !errors.Is(err, remote.ErrNameRefused) {
			return err
		}
		if chosen || tries == 3 {
			return fmt.Errorf("%w; pick another name with --name NAME (or log in with the name's --token)", err)
		}
		// The default name is someone else's on this server (or one it
		// keeps): take another rather than making the person find one.
		refused := *name
		*name = suffixedName(base)
		tp.names[0], c.Name = *name, *name
		fmt.Fprintf(e.stdout, "The server refused the name %s (%v); joining as %s instead.\n", refused, err, *name)
	}
}

// joinPlayer is the person at this terminal playing a game refereed
// elsewhere: the game it is given holds only the position.
type joinPlayer struct{ t *terminalPlayer }

func (j joinPlayer) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	j.t.seen = g.Len()
	return j.t.Move(ctx, g, c)
}

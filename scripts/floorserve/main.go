// Command floorserve is the least a server of our line protocol can do: it
// greets, takes any login, pairs the queue first come first served and
// referees each game in memory, with no store, no clocks, no accounts, no
// limits and no metrics. A move is applied and answered on its
// connection's reader, under its game's lock, with one write a connection.
//
// It is not a server to run: it is the floor under kalah serve's load
// figures. The load generator (../shared/tools/loadgen) measured against
// it on the same machine shows how much of a latency tail is the
// generator's own and the kernel's, which no server can take away.
//
//	go run ./scripts/floorserve -addr 127.0.0.1:2670 &
//	loadgen -addr 127.0.0.1:2670 -games 4000 -think 1s -for 20s
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"kalah"
	"kalah/protocol/line"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:2670", "line-protocol address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floorserve:", err)
		os.Exit(1)
	}
	slog.Info("floorserve listening", "addr", ln.Addr().String())
	(&floor{}).serve(ln)
}

// perMove is the limit a "go" names, as kalah serve's default; nothing
// enforces it here.
const perMove = 10 * time.Second

// floor holds the queue and numbers the games.
type floor struct {
	mu      sync.Mutex // guards waiting and games
	waiting *conn
	games   int
}

// serve accepts connections until ln is closed.
func (f *floor) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go f.handle(c)
	}
}

// conn is one bot's connection.
type conn struct {
	c    net.Conn
	name string

	wmu sync.Mutex // guards w
	w   *bufio.Writer

	game *game // set when paired and cleared at the end, read by its reader: all under floor.mu
}

// send writes lines in one write.
func (c *conn) send(lines ...line.Msg) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, m := range lines {
		c.w.WriteString(m.String())
		c.w.WriteByte('\n')
	}
	c.w.Flush()
}

// game is one game in play.
type game struct {
	mu    sync.Mutex // guards g and over
	id    int
	g     *kalah.Game
	seats [2]*conn // South, North
	over  bool
}

func (f *floor) handle(nc net.Conn) {
	defer nc.Close()
	c := &conn{c: nc, w: bufio.NewWriter(nc)}
	c.send(line.Greeting())
	r := line.NewReader(nc, 4096)
	for {
		s, err := r.ReadLine()
		if err != nil {
			f.leave(c)
			return
		}
		m, err := line.Parse(s)
		if err != nil {
			c.send(line.Errorf(line.CodeSyntax, "%v", err))
			continue
		}
		switch m.Cmd {
		case "login":
			c.name = m.Arg(0)
			c.send(line.Msg{Cmd: "ok", Args: []string{"login", c.name}})
		case "queue":
			c.send(line.Msg{Cmd: "ok", Args: []string{"queue"}})
			f.queue(c)
		case "move":
			f.move(c, m)
		case "pong":
		default:
			c.send(line.Errorf(line.CodeSyntax, "unknown command %q", m.Cmd))
		}
	}
}

// queue pairs c with the bot waiting, or makes it the one waiting.
func (f *floor) queue(c *conn) {
	f.mu.Lock()
	other := f.waiting
	if other == nil || other == c {
		f.waiting = c
		f.mu.Unlock()
		return
	}
	f.waiting = nil
	f.games++
	kg, _ := kalah.NewGame(kalah.Standard())
	g := &game{id: f.games, g: kg, seats: [2]*conn{other, c}}
	other.game, c.game = g, g
	f.mu.Unlock()

	g.mu.Lock()
	defer g.mu.Unlock()
	pos := g.g.Position()
	id := strconv.Itoa(g.id)
	for i, s := range g.seats {
		side := kalah.Side(i)
		msgs := []line.Msg{
			line.Start{Game: id, Side: side, Opponent: g.seats[1-i].name, Rules: kalah.Standard()}.Msg(),
			line.State(pos),
		}
		if side == g.g.ToMove() {
			msgs = append(msgs, line.Turn{PerMove: perMove, Position: pos}.Msg())
		}
		s.send(msgs...)
	}
}

// move plays c's move in its game and tells both seats.
func (f *floor) move(c *conn, m line.Msg) {
	f.mu.Lock()
	g := c.game
	f.mu.Unlock()
	if g == nil {
		c.send(line.Errorf(line.CodeState, "no game"))
		return
	}
	mv, err := line.ParseMove(m)
	g.mu.Lock()
	defer g.mu.Unlock()
	side := g.g.ToMove()
	if g.over || g.seats[side] != c {
		c.send(line.Errorf(line.CodeState, "not your turn"))
		return
	}
	if err == nil {
		_, err = g.g.Play(mv)
	}
	if err != nil {
		c.send(line.Errorf(line.CodeSyntax, "%v", err))
		return
	}
	last, _ := g.g.Last()
	pos := g.g.Position()
	both := []line.Msg{line.Moved(last), line.State(pos)}
	if g.g.Over() {
		g.over = true
		both = append(both, line.EndOf(g.g).Msg())
		f.mu.Lock()
		g.seats[0].game, g.seats[1].game = nil, nil
		f.mu.Unlock()
		for _, s := range g.seats {
			s.send(both...)
		}
		return
	}
	next := g.g.ToMove()
	for i, s := range g.seats {
		if kalah.Side(i) == next {
			s.send(append(both, line.Turn{PerMove: perMove, Position: pos}.Msg())...)
		} else {
			s.send(both...)
		}
	}
}

// leave takes a closed connection out of the queue; its game, if any, is
// left to end with the opponent's next move refused (the floor does not
// referee departures).
func (f *floor) leave(c *conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.waiting == c {
		f.waiting = nil
	}
}

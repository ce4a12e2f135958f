// Command gobot is a complete kalah bot (docs/PROTOCOL.md), standard library
// only: gobot HOST:PORT NAME TOKEN [GAMES [wait]] plays on a server (queueing,
// or with "wait" taking tournament games as bot:NAME); with no arguments
// (exec:gobot) it talks on stdin/stdout. It takes a free move when it can,
// and says what it is doing on stderr: connected, waiting, playing whom,
// each result.
package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// choose picks a house (1 = the mover's leftmost) from a position's fields.
func choose(pos []string) int {
	sides := strings.Split(pos[0], "/")
	seeds, best := strings.Split(sides[map[string]int{"S": 0, "N": 1}[pos[2]]], ","), 0
	for i := len(seeds) - 1; i >= 0; i-- {
		n, _ := strconv.Atoi(seeds[i])
		if n == len(seeds)-i {
			return i + 1
		}
		if n > 0 && best == 0 {
			best = i + 1
		}
	}
	return best
}

func main() {
	var in io.Reader = os.Stdin
	var out io.Writer = os.Stdout
	games, join := 1, "queue"
	if len(os.Args) > 3 { // over TCP: log in and join the queue (or wait)
		c, err := net.Dial("tcp", os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		in, out = c, c
		games, _ = strconv.Atoi(append(os.Args, "1")[4]) // GAMES, or 1
		if len(os.Args) > 5 {
			join = os.Args[5]
		}
		say("connected to %s as %s; %s", os.Args[1], os.Args[2], map[string]string{"queue": "in the queue, waiting for an opponent", "wait": "waiting for tournament games"}[join])
		fmt.Fprintf(out, "login %s %s\n%s\n", os.Args[2], os.Args[3], join)
	}
	side := "S"
	for sc := bufio.NewScanner(in); sc.Scan(); {
		switch w := append(strings.Fields(sc.Text()), "", "", "", ""); w[0] {
		case "go": // go <per-move ms> <remaining ms> <position>
			fmt.Fprintf(out, "move %d\n", choose(w[3:]))
		case "ping":
			fmt.Fprintln(out, "pong")
		case "start": // start <game> <side> <opponent> <rules>
			side = w[2]
			say("game %s: playing %s as %s", w[1], w[3], side)
		case "error":
			say("server said: %s", sc.Text())
		case "end": // end <result> <termination> <south>-<north>
			say("game over: %s (%s), %s from South's side; I played %s", w[1], w[2], w[3], side)
			if games--; games == 0 {
				return
			}
			if join == "queue" { // a waiting bot goes on waiting by itself
				say("in the queue, waiting for an opponent")
				fmt.Fprintln(out, "queue")
			}
		}
	}
}

// say tells the person running the bot what is happening, on stderr (stdout
// may be the protocol).
func say(format string, a ...any) { fmt.Fprintf(os.Stderr, "gobot: "+format+"\n", a...) }

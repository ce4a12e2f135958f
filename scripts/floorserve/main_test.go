package main

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/protocol/line"
)

// TestTwoBotsPlayAGameToItsEnd plays two bots, each moving its first legal
// house, over real sockets: every move is confirmed to both, the game
// ends, and the final position holds every seed.
func TestTwoBotsPlayAGameToItsEnd(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go (&floor{}).serve(ln)

	type result struct {
		moved int
		end   string
		err   error
	}
	done := make(chan result, 2)
	for _, name := range []string{"a", "b"} {
		go func() {
			var res result
			defer func() { done <- res }()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				res.err = err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			r := bufio.NewReader(c)
			c.Write([]byte("login " + name + " tok\nqueue\n"))
			for {
				s, err := r.ReadString('\n')
				if err != nil {
					res.err = err
					return
				}
				m, err := line.Parse(strings.TrimSpace(s))
				if err != nil {
					res.err = err
					return
				}
				switch m.Cmd {
				case "go":
					turn, err := line.ParseTurn(m)
					if err != nil {
						res.err = err
						return
					}
					c.Write([]byte(line.MoveMsg(firstLegal(turn.Position)).String() + "\n"))
				case "moved":
					res.moved++
				case "state":
					p, err := kalah.ParsePosition(m.Rest(0))
					if err != nil {
						res.err = err
						return
					}
					if total := p.Total(); total != kalah.Standard().TotalSeeds() {
						res.err = fmt.Errorf("seeds not conserved: %d in %q", total, s)
						return
					}
				case "end":
					res.end = s
					return
				case "error":
					res.err = fmt.Errorf("server said %q", s)
					return
				}
			}
		}()
	}
	var moved [2]int
	for i := range 2 {
		r := <-done
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.end == "" {
			t.Fatal("no end")
		}
		moved[i] = r.moved
	}
	if moved[0] != moved[1] || moved[0] < 2 {
		t.Errorf("moves confirmed to each bot: %v, want the same, at least 2", moved)
	}
}

func firstLegal(p kalah.Position) kalah.Move {
	return p.Moves()[0]
}

package server

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/protocol/line"
)

// pipeBot is a client on an in-memory connection, for fake-time tests.
type pipeBot struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func pipeConnect(t *testing.T, srv *Server) *pipeBot {
	cl, sv := net.Pipe()
	srv.startConn(line.NewTCP(sv, 0))
	b := &pipeBot{t: t, c: cl, r: bufio.NewReader(cl)}
	b.expect("kalah")
	return b
}

func (b *pipeBot) send(s string) { b.c.Write([]byte(s + "\n")) }

func (b *pipeBot) expect(cmd string) line.Msg {
	b.t.Helper()
	for {
		s, err := b.r.ReadString('\n')
		if err != nil {
			b.t.Fatalf("waiting for %s: %v", cmd, err)
		}
		m, _ := line.Parse(s)
		if m.Cmd == "ping" {
			b.send("pong")
			continue
		}
		if m.Cmd == cmd {
			return m
		}
	}
}

// TestAwayClockFakeTime checks, in fake time, that a bot that drops out
// has exactly its clock to come back: back within it, it carries on; gone
// past it, it loses by disconnection.
func TestAwayClockFakeTime(t *testing.T) {
	for _, comeBack := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			st, err := store.Open(":memory:")
			if err != nil {
				t.Fatal(err)
			}
			srv, err := New(Config{Store: st, PerMove: 10 * time.Second, Grace: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			a, b := pipeConnect(t, srv), pipeConnect(t, srv)
			a.send("login away t")
			a.expect("ok")
			b.send("login here t")
			b.expect("ok")
			a.send("queue")
			a.expect("ok")
			b.send("queue")
			a.expect("go")
			a.c.Close()
			b.expect("away")
			time.Sleep(9 * time.Second)
			synctest.Wait()
			if len(srv.LiveGames()) != 1 {
				t.Fatal("the game ended before the clock ran out")
			}
			if comeBack {
				a2 := pipeConnect(t, srv)
				a2.send("login away t")
				a2.expect("start")
				turn, _ := line.ParseTurn(a2.expect("go"))
				b.expect("back")
				a2.send(line.MoveMsg(turn.Position.Moves()[0]).String())
				b.expect("moved")
				b.c.Close() // now the other one goes
				a2.expect("away")
				time.Sleep(11 * time.Second)
				m := a2.expect("end")
				if e, _ := line.ParseEnd(m); !strings.HasPrefix(m.String(), "end ") || e.Termination != kalah.Disconnect || e.Result != kalah.SouthWins {
					t.Fatalf("end %s", m)
				}
				a2.c.Close()
			} else {
				time.Sleep(2 * time.Second)
				m := b.expect("end")
				if e, _ := line.ParseEnd(m); e.Termination != kalah.Disconnect || e.Result != kalah.NorthWins {
					t.Fatalf("end %s", m)
				}
				b.c.Close()
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := srv.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			games, _ := st.Games(context.Background(), store.Filter{Status: store.Finished})
			if len(games) != 1 || games[0].Record.Termination != kalah.Disconnect {
				t.Fatalf("stored %+v", games)
			}
			st.Close()
		})
	}
}

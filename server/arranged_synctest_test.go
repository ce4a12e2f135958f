package server

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/protocol/line"
)

// TestArrangedWaitFakeTime checks, in fake time, that an arranged game
// waits exactly Arranged.Wait for a bot that is not there: one that comes
// just in time plays; one that does not loses by disconnection then.
func TestArrangedWaitFakeTime(t *testing.T) {
	for _, comes := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			st, err := store.Open(":memory:")
			if err != nil {
				t.Fatal(err)
			}
			srv, err := New(Config{Store: st})
			if err != nil {
				t.Fatal(err)
			}
			alice := pipeConnect(t, srv)
			alice.send("login alice t")
			alice.expect("ok")
			alice.send("wait")
			alice.expect("ok")
			// alice plays (or hears of the forfeit) on her own, answering
			// pings meanwhile: a pipe must be read.
			aliceEnd := make(chan line.End, 1)
			go func() { aliceEnd <- pipePlay(alice) }()
			done := make(chan arrangedOut, 1)
			go func() {
				r, err := srv.PlayArranged(context.Background(), Arranged{Rules: kalah.Rules{Houses: 3, Seeds: 1},
					South: "bot:carol", North: "bot:alice", PerMove: 10 * time.Second, Wait: 90 * time.Second})
				done <- arrangedOut{r, err}
			}()
			time.Sleep(89 * time.Second)
			synctest.Wait()
			select {
			case o := <-done:
				t.Fatalf("over before the wait: %+v", o)
			default:
			}
			if n := len(srv.LiveGames()); n != 0 {
				t.Fatalf("%d games started while carol is away", n)
			}
			var e line.End
			if comes {
				carol := pipeConnect(t, srv)
				carol.send("login carol t")
				carol.expect("ok")
				carol.send("wait")
				e = pipePlay(carol)
				if e.Termination != kalah.Normal {
					t.Fatalf("carol came: %+v", e)
				}
				carol.c.Close()
			} else {
				time.Sleep(2 * time.Second)
				e = <-aliceEnd
				if e.Termination != kalah.Disconnect || e.Result != kalah.NorthWins {
					t.Fatalf("carol absent: %+v", e)
				}
			}
			o := <-done
			if o.err != nil {
				t.Fatal(o.err)
			}
			if line.EndOf(mustGame(t, o.res.Record)) != e {
				t.Fatalf("result %+v, told %+v", o.res.Record, e)
			}
			if comes && <-aliceEnd != e {
				t.Fatalf("alice was told another end than carol")
			}
			alice.c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := srv.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			st.Close()
		})
	}
}

func mustGame(t *testing.T, rec kalah.Record) *kalah.Game {
	t.Helper()
	g, err := rec.Game()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// pipePlay answers every go with the first legal move until the end.
func pipePlay(b *pipeBot) line.End {
	for {
		s, err := b.r.ReadString('\n')
		if err != nil {
			return line.End{}
		}
		m, _ := line.Parse(s)
		switch m.Cmd {
		case "ping":
			b.send("pong")
		case "go":
			turn, _ := line.ParseTurn(m)
			b.send(line.MoveMsg(turn.Position.Moves()[0]).String())
		case "end":
			e, _ := line.ParseEnd(m)
			return e
		}
	}
}

package server

import (
	"context"
	"testing"
	"time"

	"kalah/internal/store"
	"kalah/protocol/kgp"
	"kalah/server/bots"
)

// TestClosedConnectionNeverPaired: a KGP bot whose socket has just closed
// is never paired, whether it closed while it waited (still in the
// queue as the next bot comes) or between its pairing and its game's
// start: no game is recorded, and the bot that came waits on and plays
// the next one.
func TestClosedConnectionNeverPaired(t *testing.T) {
	for _, when := range []string{"waiting", "paired"} {
		t.Run(when, func(t *testing.T) {
			e := newKGPEnv(t, time.Second, &kgp.Server{})
			ctx := context.Background()
			a := e.dial("tcp")
			a.hello("set info:name leaver")
			e.waitQueue(1)
			gone := e.ts.srv.bots.Queued()[0].Gone()
			// a's socket closes as the next bot comes: the server has seen
			// it close, but a is still in the queue (waiting) or already
			// paired (paired).
			leave := func() {
				a.close()
				select {
				case <-gone:
				case <-time.After(5 * time.Second):
					t.Error("the server did not see the socket close")
				}
			}
			// fired is closed once the hook has run: the bot hears "ok queue"
			// before its pairing, so the hooks are cleared only after it.
			fired := make(chan struct{})
			if when == "waiting" {
				bots.SetTestHooks(func(string) { leave(); close(fired) }, nil)
			} else {
				bots.SetTestHooks(nil, func(waited, came *bots.Entry) {
					if waited.Gone() == gone {
						leave()
						close(fired)
					}
				})
			}
			b := dial(t, e.ts.addr)
			b.login("stayer", "stayer-token-123")
			b.send("queue")
			b.expect("ok")
			select {
			case <-fired:
			case <-time.After(5 * time.Second):
				t.Fatal("the hook never ran")
			}
			bots.SetTestHooks(nil, nil)
			e.waitQueue(1)
			waiting := e.ts.srv.bots.Queued()[0].Seat().St.Name
			if waiting != "stayer" {
				t.Errorf("waiting in the queue: %q, want stayer", waiting)
			}
			if games, err := e.ts.st.Games(ctx, store.Filter{}); err != nil || len(games) != 0 {
				t.Fatalf("games recorded with a bot that had left: %+v %v", games, err)
			}
			// The next bot plays the one that waited.
			c := dial(t, e.ts.addr)
			c.login("comer", "comer-token-1234")
			c.send("queue")
			sb, sc := b.expect("start"), c.expect("start")
			if sb.Arg(2) != "comer" || sc.Arg(2) != "stayer" {
				t.Errorf("starts %v, %v", sb, sc)
			}
			games, err := e.ts.st.Games(ctx, store.Filter{})
			if err != nil || len(games) != 1 || games[0].Seats[0].Name != "stayer" || games[0].Seats[1].Name != "comer" {
				t.Errorf("games: %+v %v", games, err)
			}
		})
	}
}

package server

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/protocol/line"
)

// TestResumeGraceEverySeat: after a restart each bot of a game has the
// whole resume grace before its clock runs, whichever comes back first:
// here the bot to move is back at once and moves, and the other's clock
// waits for it past the move limit (it lost "did not come back in time"
// a move limit after the first bot's move); and a game is adjudicated
// only once the absent bot's own grace is over.
func TestResumeGraceEverySeat(t *testing.T) {
	const perMove = time.Second
	const grace = 4 * time.Second
	cfg := Config{PerMove: perMove, ResumeGrace: grace}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kalah.db")
	ts := newTestServer(t, path, cfg)
	a, b := queuePair(t, ts.addr, "ann", "ben")
	a.expect("start")
	live := ts.srv.LiveGames()
	if len(live) != 1 {
		t.Fatalf("live games: %+v", live)
	}
	id := live[0].ID
	// moves has c (seat) answer its turns until the other seat is to move.
	moves := func(srv *Server, c *client, seat int) {
		t.Helper()
		for {
			turn, err := line.ParseTurn(c.expect("go"))
			if err != nil {
				t.Fatal(err)
			}
			before, _ := srv.BoardOf(ctx, id)
			c.send(line.MoveMsg(turn.Position.Moves()[0]).String())
			deadline := time.Now().Add(10 * time.Second)
			for {
				bd, err := srv.BoardOf(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if len(bd.Moves) > len(before.Moves) {
					if bd.Over || bd.ToMoveSeat != seat {
						return
					}
					break // an extra turn
				}
				if time.Now().After(deadline) {
					t.Fatal("the move was not played")
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	moves(ts.srv, a, 0) // ben (North) to move
	ts.stop()
	a.tr.Close()
	b.tr.Close()

	// Ben is back at once and moves; Ann comes back after twice the move
	// limit, within her grace, and finds her turn waiting.
	ts2 := newTestServer(t, path, cfg)
	b2 := dial(t, ts2.addr)
	b2.login("ben", "b")
	moves(ts2.srv, b2, 1)
	time.Sleep(2 * perMove)
	bd, err := ts2.srv.BoardOf(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if bd.Over || bd.Running != -1 || bd.ToMoveSeat != 0 {
		t.Fatalf("Ann away in her grace, 2 move limits after Ben moved: over %v (%s), running %d, to move %d", bd.Over, bd.Reason, bd.Running, bd.ToMoveSeat)
	}
	a2 := dial(t, ts2.addr)
	a2.login("ann", "a")
	moves(ts2.srv, a2, 0)
	ts2.stop()
	a2.tr.Close()
	b2.tr.Close()

	// Ben is back at once and moves; Ann never comes back: she loses, but
	// only once her own grace is over.
	ts3 := newTestServer(t, path, cfg)
	restarted := time.Now()
	b3 := dial(t, ts3.addr)
	b3.login("ben", "b")
	moves(ts3.srv, b3, 1)
	rec := waitStored(t, ts3.st, id)
	if took := time.Since(restarted); took < grace {
		t.Errorf("Ann lost %v after the restart, within her grace of %v", took, grace)
	}
	if rec.Termination != kalah.Disconnect || !strings.Contains(rec.Tags[ReasonTag], "ann did not come back") {
		t.Errorf("the game ended %s (%s)", rec.Termination, rec.Tags[ReasonTag])
	}
}

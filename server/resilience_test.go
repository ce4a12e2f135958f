package server

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"kalah"
)

// TestStoreFullIsToldAndRetried: when the store cannot write (a full
// disk), the game waits and says so in words to the players and
// watchers, tries again, and goes on once it can: no move and no result
// is lost, and nobody's clock runs meanwhile.
func TestStoreFullIsToldAndRetried(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "first", ClockMS: 60_000, By: ann})
	if err != nil {
		t.Fatal(err)
	}
	events, stop, err := ts.srv.Subscribe(st.ID, Actor{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	moveWhenAsked(t, ts.srv, st.ID, st.Tokens[0], 1)
	waitTurn(t, ts.srv, st.ID, 0)
	turn := time.Now() // South's clock runs from about now
	// The disk is full: the store takes nothing more. (SQLite's own
	// SQLITE_FULL: the file may not grow, and rows filling the game's own
	// page of moves leave its next move no room.)
	if err := ts.st.LimitSize(ctx, 1); err != nil {
		t.Fatal(err)
	}
	filled := 0
	for i := 0; ; i++ {
		err := ts.st.Write(ctx, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO moves(game, ply, side, house, swap, ms) VALUES(?,?,'S',1,0,0)`, st.ID, 1000+i)
			return err
		})
		if err != nil {
			if !strings.Contains(err.Error(), "full") {
				t.Fatalf("filling the disk: %v", err)
			}
			break
		}
		filled++
	}
	t.Logf("%d rows filled the disk", filled)
	unfill := func() {
		if err := ts.st.Write(ctx, func(tx *sql.Tx) error {
			_, err := tx.Exec(`DELETE FROM moves WHERE game=? AND ply>=1000`, st.ID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	moved := make(chan error, 1)
	before := time.Since(turn) // filling the disk took South's time: a slow disk's, the race detector's
	go func() { moved <- ts.srv.Move(ctx, st.ID, Actor{Token: st.Tokens[0]}, 2) }()
	var told string
	for e := range events {
		if e.Kind == "trouble" && e.Text != "" {
			told = e.Text
			break
		}
	}
	b, _ := ts.srv.BoardOf(ctx, st.ID)
	if told == "" || b.Trouble != told || b.Running != -1 {
		t.Fatalf("told %q, the board says %q, running %d", told, b.Trouble, b.Running)
	}
	time.Sleep(300 * time.Millisecond) // a few tries
	if err := ts.st.LimitSize(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := <-moved; err != nil {
		t.Fatalf("the move made while the disk was full: %v", err)
	}
	unfill()
	for e := range events {
		if e.Kind == "trouble" && e.Text == "" {
			break // all clear
		}
	}
	if err := ts.srv.Resign(ctx, st.ID, Actor{Token: st.Tokens[0]}); err != nil {
		t.Fatal(err)
	}
	rec := waitStored(t, ts.st, st.ID)
	if len(rec.Moves) < 3 || rec.Termination != kalah.Resign {
		t.Fatalf("stored %d moves, %s", len(rec.Moves), rec.Termination)
	}
	if rec.Moves[2].Millis > before.Milliseconds()+250 {
		t.Errorf("the move made while the disk was full charged %d ms, %d ms after its turn began", rec.Moves[2].Millis, before.Milliseconds())
	}
}

// TestAbandonedGameEnds: a guest who leaves a game against the computer
// (no page of it open, nothing done in it) loses it after AbandonAfter, so
// the game ends and its place among the guest's open games is free.
func TestAbandonedGameEnds(t *testing.T) {
	ts := newTestServer(t, "", Config{AbandonAfter: 400 * time.Millisecond, MaxOpenGames: 1})
	guest := newWebClient(t, ts)
	var st Started
	if code := guest.do("POST", "/api/games", `{"south":"human","north":"greedy"}`, &st); code != http.StatusCreated {
		t.Fatalf("a guest's game: %d", code)
	}
	if code := guest.do("POST", fmt.Sprintf("/api/games/%d/move", st.ID), `{"move":"1"}`, nil); code != http.StatusOK {
		t.Fatalf("the guest's move: %d", code)
	}
	// One unfinished game is the most: a second is refused...
	if code := guest.do("POST", "/api/games", `{"south":"human","north":"greedy"}`, nil); code != http.StatusTooManyRequests {
		t.Fatalf("a second game while the first is open: %d", code)
	}
	// ... until the first, left, ends.
	rec := waitStored(t, ts.st, st.ID)
	if rec.Termination != kalah.Disconnect || rec.Tags[ReasonTag] == "" {
		t.Fatalf("the left game ended %s (%q)", rec.Termination, rec.Tags[ReasonTag])
	}
	deadline := time.Now().Add(5 * time.Second)
	for guest.do("POST", "/api/games", `{"south":"human","north":"greedy"}`, nil) != http.StatusCreated {
		if time.Now().After(deadline) {
			t.Fatal("the guest is still locked out")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPersonResumesWithStoredClock: after a restart a person's game goes
// on with each clock exactly as stored, none running until the person is
// back (their page open) or the resume grace is over.
func TestPersonResumesWithStoredClock(t *testing.T) {
	ts := newTestServer(t, "", Config{ResumeGrace: time.Minute})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "first", ClockMS: 60_000, By: ann})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	moveWhenAsked(t, ts.srv, st.ID, st.Tokens[0], 1)
	waitTurn(t, ts.srv, st.ID, 0)
	path := ts.path
	ts.stop()
	sg, err := ts.st.Game(ctx, st.ID)
	if err == nil {
		t.Fatal("the stopped server's store is still open")
	}
	ts2 := newTestServer(t, path, Config{ResumeGrace: time.Minute})
	sg, err = ts2.st.Game(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := [2]int64{60_000, 60_000}
	g, _ := sg.Record.Game()
	_ = g
	for _, m := range sg.Record.Moves {
		want[int(m.Side)] -= m.Millis // no swap here
	}
	if want[0] >= 60_000 {
		t.Fatalf("the person's move took %d ms", 60_000-want[0])
	}
	time.Sleep(300 * time.Millisecond) // the downtime goes on: nobody is charged for it
	b, err := ts2.srv.BoardOf(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b.Running != -1 || b.RemainingMS != want {
		t.Fatalf("after the restart: running %d, clocks %v, stored %v", b.Running, b.RemainingMS, want)
	}
	// The person's page opens: their clock runs from there.
	events, stop, err := ts2.srv.Subscribe(st.ID, Actor{Token: st.Tokens[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	_ = events
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ = ts2.srv.BoardOf(ctx, st.ID)
		if b.Running == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the person is back and no clock runs: %d", b.Running)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if b.RemainingMS[0] > want[0] || b.RemainingMS[0] < want[0]-1000 {
		t.Errorf("the person's clock runs from %d, stored %d", b.RemainingMS[0], want[0])
	}
}

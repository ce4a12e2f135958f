package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/protocol/line"
)

// postBoard posts body to path of ts over HTTP and returns the status and
// the Board answered (zero unless 200).
func postBoard(t *testing.T, ts *testServer, path string, body any) (int, Board) {
	t.Helper()
	data, _ := json.Marshal(body)
	resp, err := http.Post(ts.http.URL+path, "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b Board
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode, b
}

// mustBoard returns game id's Board.
func mustBoard(t *testing.T, srv *Server, id int64) Board {
	t.Helper()
	b, err := srv.BoardOf(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// turn plays seat's whole turn in game id (extra turns too), each time
// its first legal move.
func turn(t *testing.T, srv *Server, id int64, seat int, token string) {
	t.Helper()
	for b := mustBoard(t, srv, id); !b.Over && b.ToMoveSeat == seat; b = mustBoard(t, srv, id) {
		m, err := kalah.ParseMove(b.Legal[0])
		if err != nil {
			t.Fatal(err)
		}
		moveWhenAsked(t, srv, id, token, m)
	}
}

// TestDrawOverHTTP: over the API, between two people in a rated game, a
// draw is offered, cancelled, declined, offered again and lapses when the
// one it was made to moves (not when the one who offered does), and is
// accepted at last: the game ends a draw by agreement, rated as a draw
// (the player who had lost before gains). Only the players may act, each
// only as the negotiation allows; the computer is never offered one.
func TestDrawOverHTTP(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	rated := GameRequest{South: "human", North: "human", Rated: true, Seated: annBob}
	// A first game that Ann wins, so that the ratings differ and a draw
	// moves them.
	first, err := ts.srv.StartGame(ctx, rated)
	if err != nil {
		t.Fatal(err)
	}
	playTokens(t, ts.srv, first.ID, first.Tokens, minMovesRated) // a rated game's moves
	if err := ts.srv.Resign(ctx, first.ID, Actor{Token: first.Tokens[1]}); err != nil {
		t.Fatal(err)
	}
	waitFinished(t, ts.srv)

	st, err := ts.srv.StartGame(ctx, rated)
	if err != nil {
		t.Fatal(err)
	}
	ann, bob := st.Tokens[0], st.Tokens[1]
	path := fmt.Sprintf("/api/games/%d/draw", st.ID)
	draw := func(tok, action string, want, offer int) {
		t.Helper()
		code, b := postBoard(t, ts, path, map[string]string{"token": tok, "action": action})
		if code != want || code == http.StatusOK && b.DrawOffer != offer {
			t.Fatalf("%s by %q: %d, draw_offer %d; want %d, %d", action, tok, code, b.DrawOffer, want, offer)
		}
	}
	draw(ann, "offer", http.StatusConflict, 0) // nobody has moved: abort instead
	if mustBoard(t, ts.srv, st.ID).Draws {
		t.Fatal("the board offers draws before both sides have moved")
	}
	moveWhenAsked(t, ts.srv, st.ID, ann, 1)
	moveWhenAsked(t, ts.srv, st.ID, bob, 1)
	if !mustBoard(t, ts.srv, st.ID).Draws {
		t.Fatal("the board offers no draw once both sides have moved")
	}
	draw("", "offer", http.StatusForbidden, 0)
	draw("not-a-seat", "offer", http.StatusForbidden, 0)
	draw(ann, "maybe", http.StatusBadRequest, 0)
	draw(ann, "accept", http.StatusConflict, 0) // nothing offered
	draw(ann, "offer", http.StatusOK, 0)
	draw(ann, "offer", http.StatusOK, 0) // again: it stands
	draw(ann, "accept", http.StatusConflict, 0)
	draw(bob, "cancel", http.StatusConflict, 0)
	var seen Board
	get(t, ts, fmt.Sprintf("/api/games/%d/board", st.ID), &seen)
	if seen.DrawOffer != 0 || seen.Over {
		t.Fatalf("the board of an offer: draw_offer %d, over %v", seen.DrawOffer, seen.Over)
	}
	draw(ann, "cancel", http.StatusOK, -1)
	draw(bob, "decline", http.StatusConflict, -1)
	draw(ann, "offer", http.StatusOK, 0)
	draw(bob, "decline", http.StatusOK, -1)

	// Ann offers on her turn and moves: the offer stands for Bob, and
	// lapses once he moves instead of answering.
	draw(ann, "offer", http.StatusOK, 0)
	turn(t, ts.srv, st.ID, 0, ann)
	if b, _ := ts.srv.BoardOf(ctx, st.ID); b.DrawOffer != 0 {
		t.Fatalf("the offerer's own move withdrew the offer: %d", b.DrawOffer)
	}
	turn(t, ts.srv, st.ID, 1, bob)
	if b, _ := ts.srv.BoardOf(ctx, st.ID); b.DrawOffer != -1 {
		t.Fatalf("an offer outlived the move of the one it was made to: %d", b.DrawOffer)
	}
	draw(bob, "accept", http.StatusConflict, -1)

	// Bob offers; Ann, offering too, accepts.
	draw(bob, "offer", http.StatusOK, 1)
	code, b := postBoard(t, ts, path, map[string]string{"token": ann, "action": "offer"})
	if code != http.StatusOK || !b.Over || b.Result != kalah.Draw || b.Termination != "agreement" || b.Reason != "Draw by agreement" || b.DrawOffer != -1 {
		t.Fatalf("accepted: %d, over %v %s %s %q", code, b.Over, b.Result, b.Termination, b.Reason)
	}
	draw(bob, "offer", http.StatusConflict, -1) // over
	waitFinished(t, ts.srv)
	rec := checkStored(t, ts.st, st.ID, nil)
	if rec.Result != kalah.Draw || rec.Termination != kalah.Agreement {
		t.Fatalf("stored %s %s", rec.Result, rec.Termination)
	}
	changes, err := ts.st.GameRatings(ctx, st.ID)
	if err != nil || len(changes) != 2 {
		t.Fatalf("the draw's ratings: %+v %v", changes, err)
	}
	for _, c := range changes {
		moved := c.After.Rating - c.Before
		if c.ID.Is(annBob[0]) && moved >= 0 || c.ID.Is(annBob[1]) && moved <= 0 {
			t.Errorf("%s moved %+.1f by a draw after Ann's win", c.ID, moved)
		}
	}
	var final Board
	get(t, ts, fmt.Sprintf("/api/games/%d/board", st.ID), &final)
	if !final.Rated || final.Ratings[0] == nil || final.Ratings[0].Change == nil || *final.Ratings[0].Change >= 0 {
		t.Fatalf("the finished board's ratings: rated %v %+v", final.Rated, final.Ratings)
	}

	// Against the computer there is no one to ask.
	cg, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "first", By: identity.Of(identity.Person, "carol")})
	if err != nil {
		t.Fatal(err)
	}
	moveWhenAsked(t, ts.srv, cg.ID, cg.Tokens[0], 1)
	waitPlies(t, ts.srv, cg.ID, 2)
	if mustBoard(t, ts.srv, cg.ID).Draws {
		t.Fatal("the board offers a draw against the computer")
	}
	if code, _ := postBoard(t, ts, fmt.Sprintf("/api/games/%d/draw", cg.ID), map[string]string{"token": cg.Tokens[0], "action": "offer"}); code != http.StatusConflict {
		t.Fatalf("a draw offered to the computer: %d", code)
	}
}

// TestDrawOverLineProtocol: two bots on our line protocol agree a draw:
// each hears the offer ("draw offer S"), a draw accepted with nothing
// offered is refused, and the accepted draw ends the game for both
// ("end 1/2-1/2 agreement ..."), stored and rated as a draw.
func TestDrawOverLineProtocol(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	a, b := queuePair(t, ts.addr, "alice", "bob")
	first := func(c *client) {
		t.Helper()
		turn, err := line.ParseTurn(c.expect("go"))
		if err != nil {
			t.Fatal(err)
		}
		c.send(line.MoveMsg(turn.Position.Moves()[0]).String())
	}
	first(a)
	first(b)
	a.expect("go")
	b.send("draw accept")
	if m := b.expect("error"); m.Arg(0) != line.CodeState {
		t.Fatalf("accepting nothing: %s", m)
	}
	a.send("draw offer")
	for _, c := range []*client{a, b} {
		if m := c.expect("draw"); m.String() != "draw offer S" {
			t.Fatalf("heard %q", m)
		}
	}
	b.send("draw accept")
	var ends [2]line.End
	for i, c := range []*client{a, b} {
		e, err := line.ParseEnd(c.expect("end"))
		if err != nil {
			t.Fatal(err)
		}
		ends[i] = e
	}
	if ends[0] != ends[1] || ends[0].Result != kalah.Draw || ends[0].Termination != kalah.Agreement {
		t.Fatalf("ends %+v", ends)
	}
	waitFinished(t, ts.srv)
	games, _ := ts.st.Games(context.Background(), store.Filter{})
	if len(games) != 1 {
		t.Fatalf("games %+v", games)
	}
	checkStored(t, ts.st, games[0].ID, &ends[0])
	changes, err := ts.st.GameRatings(context.Background(), games[0].ID)
	if err != nil || len(changes) != 2 {
		t.Fatalf("a rated draw between bots: %+v %v", changes, err)
	}
}

// TestTakebacksRatedOrRefused: between people a takeback is asked and
// granted in a rated game, which stays rated; a game started with
// takebacks refused ("takebacks": false over the API) refuses every ask,
// says so on its board, and so does its rematch.
func TestTakebacksRatedOrRefused(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", Rated: true, Seated: annBob})
	if err != nil {
		t.Fatal(err)
	}
	turn(t, ts.srv, st.ID, 0, st.Tokens[0])
	path := fmt.Sprintf("/api/games/%d/takeback", st.ID)
	if code, b := postBoard(t, ts, path, map[string]string{"token": st.Tokens[0]}); code != http.StatusOK || b.TakebackAsk != 0 || !b.Rated || !b.Takebacks {
		t.Fatalf("asked in a rated game: %d, ask %d, rated %v, takebacks %v", code, b.TakebackAsk, b.Rated, b.Takebacks)
	}
	if code, b := postBoard(t, ts, path, map[string]string{"token": st.Tokens[1]}); code != http.StatusOK || len(b.Moves) != 0 || !b.Rated {
		t.Fatalf("granted: %d, %d moves, rated %v", code, len(b.Moves), b.Rated)
	}

	off, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", Rated: true, Takebacks: new(bool), Seated: annBob})
	if err != nil {
		t.Fatal(err)
	}
	if b := mustBoard(t, ts.srv, off.ID); b.Takebacks {
		t.Fatal("the board of a game with takebacks refused offers them")
	}
	turn(t, ts.srv, off.ID, 0, off.Tokens[0])
	if code, _ := postBoard(t, ts, fmt.Sprintf("/api/games/%d/takeback", off.ID), map[string]string{"token": off.Tokens[0]}); code != http.StatusConflict {
		t.Fatalf("a takeback where they are refused: %d", code)
	}
	turn(t, ts.srv, off.ID, 1, off.Tokens[1])
	if err := ts.srv.Resign(ctx, off.ID, Actor{Token: off.Tokens[0]}); err != nil {
		t.Fatal(err)
	}
	re, err := ts.srv.Rematch(ctx, off.ID, Actor{Token: off.Tokens[0]})
	if err != nil {
		t.Fatal(err)
	}
	if b := mustBoard(t, ts.srv, re.ID); b.Takebacks {
		t.Fatal("the rematch of a game with takebacks refused offers them")
	}
}

// TestAbortedUnrated: a rated game aborted reads "aborted" and unrated
// everywhere: its board (rated false, result aborted), its record over
// the API, the text record, and the players' archives.
func TestAbortedUnrated(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", Rated: true, Seated: annBob})
	if err != nil {
		t.Fatal(err)
	}
	if !mustBoard(t, ts.srv, st.ID).Rated {
		t.Fatal("the game is not rated to begin with")
	}
	turn(t, ts.srv, st.ID, 0, st.Tokens[0])
	code, b := postBoard(t, ts, fmt.Sprintf("/api/games/%d/abort", st.ID), map[string]string{"token": st.Tokens[1]})
	if code != http.StatusOK || b.Rated || b.Result != kalah.NoResult || b.Termination != "aborted" {
		t.Fatalf("aborted: %d, rated %v, result %s, termination %s", code, b.Rated, b.Result, b.Termination)
	}
	waitFinished(t, ts.srv)
	var raw map[string]any
	get(t, ts, fmt.Sprintf("/api/games/%d", st.ID), &raw)
	if rec := raw["record"].(map[string]any); rec["result"] != "aborted" || rec["termination"] != "aborted" || raw["result"] != "aborted" {
		t.Fatalf("the record says %v %v, the game %v", rec["result"], rec["termination"], raw["result"])
	}
	var board map[string]any
	get(t, ts, fmt.Sprintf("/api/games/%d/board", st.ID), &board)
	if board["rated"] != false || board["result"] != "aborted" {
		t.Fatalf("the board says rated %v, result %v", board["rated"], board["result"])
	}
	if err := ts.st.CreateUser(ctx, "bob", "a long password"); err != nil {
		t.Fatal(err)
	}
	var p Profile
	get(t, ts, "/api/players/bob", &p)
	if len(p.Games) != 1 || p.Games[0].Outcome != "aborted" || p.Games[0].Rated || p.Games[0].Result != kalah.NoResult {
		t.Fatalf("bob's archive: %+v", p.Games)
	}
}

package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/protocol/line"
)

// moveWhenAsked plays m for the token's seat as soon as the referee asks.
func moveWhenAsked(t *testing.T, srv *Server, id int64, token string, m kalah.Move) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := srv.Move(context.Background(), id, Actor{Token: token}, m)
		if err == nil {
			return
		}
		if !errors.Is(err, ErrNotYourTurn) || time.Now().After(deadline) {
			t.Fatalf("move %s: %v", m, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitPlies waits until live game id has n moves.
func waitPlies(t *testing.T, srv *Server, id int64, n int) GameView {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := srv.Game(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if v.Plies == n {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("game %d has %d moves, want %d", id, v.Plies, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitTurn waits until seat is to move in live game id, after the
// computer's reply.
func waitTurn(t *testing.T, srv *Server, id int64, seat int) GameView {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := srv.Game(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if v.Plies > 1 && v.LiveGame().Seat(v.ToMove) == seat {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("game %d: seat %d is not to move", id, seat)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCasualTakeBackAndHint: a person against the computer in a casual
// game takes back a move (theirs and the computer's reply), which the
// stored record keeps under its Takebacks tag; a hint is a legal move; the
// game survives a restart with the takeback, and the person resigns out of
// turn.
func TestCasualTakeBackAndHint(t *testing.T) {
	hint := func(ctx context.Context, g *kalah.Game) (kalah.Move, error) { return g.Legal()[0], nil }
	ts := newTestServer(t, "", Config{Hint: hint})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "first", Casual: true, By: ann})
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.srv.TakeBack(ctx, st.ID, Actor{Token: st.Tokens[0]}); !errors.Is(err, kalah.ErrNoUndo) {
		t.Fatalf("a takeback before any move: %v", err)
	}
	m, err := ts.srv.Hint(ctx, st.ID, Actor{Token: st.Tokens[0]})
	if err != nil || m != 1 {
		t.Fatalf("hint %v, %v", m, err)
	}
	moveWhenAsked(t, ts.srv, st.ID, st.Tokens[0], 1) // no extra turn: the computer replies
	waitPlies(t, ts.srv, st.ID, 2)
	if err := ts.srv.TakeBack(ctx, st.ID, Actor{Token: "someone-else"}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("a takeback by a stranger: %v", err)
	}
	if err := ts.srv.TakeBack(ctx, st.ID, Actor{Token: st.Tokens[0]}); err != nil {
		t.Fatal(err)
	}
	v := waitPlies(t, ts.srv, st.ID, 0)
	if !regexp.MustCompile(`^0: 1 [1-6]$`).MatchString(v.Record.Tags[store.TakebackTag]) || !v.Casual {
		t.Fatalf("after the takeback: tags %v, casual %v", v.Record.Tags, v.Casual)
	}
	moveWhenAsked(t, ts.srv, st.ID, st.Tokens[0], 2)
	waitPlies(t, ts.srv, st.ID, 2)

	// Restarted, the game goes on: casual, with its takeback and moves.
	path := ts.path
	ts.stop()
	ts2 := newTestServer(t, path, Config{Hint: hint})
	v = waitPlies(t, ts2.srv, st.ID, 2)
	if !v.Casual || !regexp.MustCompile(`^0: 1 [1-6]$`).MatchString(v.Record.Tags[store.TakebackTag]) || v.Record.Players.South != "ann" {
		t.Fatalf("resumed: casual %v, tags %v, players %+v", v.Casual, v.Record.Tags, v.Record.Players)
	}
	if err := ts2.srv.TakeBack(ctx, st.ID, Actor{Token: st.Tokens[0]}); err != nil {
		t.Fatalf("a takeback after the restart: %v", err)
	}
	waitPlies(t, ts2.srv, st.ID, 0)
	// The person resigns on their turn, every move taken back: nobody has
	// moved, so the game is aborted, with no result ("aborted").
	if err := ts2.srv.Resign(ctx, st.ID, Actor{Token: st.Tokens[0]}); err != nil {
		t.Fatal(err)
	}
	waitFinished(t, ts2.srv)
	rec := checkStored(t, ts2.st, st.ID, nil)
	if rec.Termination != kalah.Aborted || rec.Result != kalah.NoResult || rec.Tags[ReasonTag] != "Aborted: ann resigned at move 1" || !regexp.MustCompile(`^0: 1 [1-6]; 0: 2 [1-6]$`).MatchString(rec.Tags[store.TakebackTag]) {
		t.Fatalf("ended %s %s, tags %v", rec.Result, rec.Termination, rec.Tags)
	}
}

// TestNotCasualRefused: takebacks and hints belong to casual games (hints
// against the computer only).
func TestNotCasualRefused(t *testing.T) {
	ts := newTestServer(t, "", Config{Hint: func(ctx context.Context, g *kalah.Game) (kalah.Move, error) { return 1, nil }})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.srv.TakeBack(ctx, st.ID, Actor{Token: st.Tokens[0]}); !errors.Is(err, ErrNotCasual) {
		t.Fatalf("takeback: %v", err)
	}
	if _, err := ts.srv.Hint(ctx, st.ID, Actor{Token: st.Tokens[0]}); !errors.Is(err, ErrNotCasual) {
		t.Fatalf("hint: %v", err)
	}
	two, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", Casual: true})
	if err != nil {
		t.Fatal(err)
	}
	// Between people a takeback is asked for, and there is none to ask
	// before one's first move.
	if err := ts.srv.TakeBack(ctx, two.ID, Actor{Token: two.Tokens[0]}); !errors.Is(err, kalah.ErrNoUndo) {
		t.Fatalf("takeback between two people before a move: %v", err)
	}
}

// TestInviteJoin: a game with a second person's seat left open is taken by
// the first to Join its link, once; the seat's token then moves it.
func TestInviteJoin(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", Invite: true, Start: "4,4,4,4,4,4/4,4,4,4,4,4 0-0 N"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Tokens[0] == "" || st.Tokens[1] != "" || len(st.Invite) != 32 {
		t.Fatalf("tokens %q, invite %q", st.Tokens, st.Invite)
	}
	v, _ := ts.srv.Game(ctx, st.ID)
	if !v.Open[1] || v.Open[0] {
		t.Fatalf("open seats %v", v.Open)
	}
	guest := Actor{ID: identity.GuestOf("a friend's secret")}
	if _, _, err := ts.srv.Join(ctx, st.ID, guest, ""); !errors.Is(err, ErrNoSeat) {
		t.Fatalf("a join without the invitation: %v", err)
	}
	wrong := st.Invite[:31] + map[bool]string{true: "1", false: "0"}[st.Invite[31] == '0']
	if _, _, err := ts.srv.Join(ctx, st.ID, guest, wrong); !errors.Is(err, ErrNoSeat) {
		t.Fatalf("a join with a wrong invitation: %v", err)
	}
	seat, tok, err := ts.srv.Join(ctx, st.ID, guest, st.Invite)
	if err != nil || seat != 1 || tok == "" {
		t.Fatalf("join: %d %q %v", seat, tok, err)
	}
	if _, _, err := ts.srv.Join(ctx, st.ID, Actor{ID: identity.GuestOf("a stranger")}, st.Invite); !errors.Is(err, ErrNoSeat) {
		t.Fatalf("a second join: %v", err)
	}
	// North is to move in the set-up position: the one who joined.
	if err := ts.srv.Move(context.Background(), st.ID, Actor{Token: st.Tokens[0]}, 1); !errors.Is(err, ErrNotYourTurn) {
		t.Fatalf("south out of turn: %v", err)
	}
	moveWhenAsked(t, ts.srv, st.ID, tok, 1)
	g, err := ts.st.Game(ctx, st.ID)
	if err != nil || g.Seats[1].Open || g.Seats[1].TokenHash == "" || !strings.HasPrefix(g.Record.Start, "4,4") {
		t.Fatalf("stored: %+v %v", g.Seats, err)
	}
}

// TestStartGameRefusesBadSetups: a position, opening or clock that does
// not fit is refused with the reason.
func TestStartGameRefusesBadSetups(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	for _, req := range []GameRequest{
		{South: "human", North: "greedy", Start: "hello"},
		{South: "human", North: "greedy", Opening: []kalah.Move{9}},
		{South: "human", North: "greedy", PerMoveMS: -1},
		{South: "human", North: "greedy", DelayMS: 3_600_000},
		{South: "human", North: "no-such-player"},
	} {
		if _, err := ts.srv.StartGame(context.Background(), req); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%+v: %v", req, err)
		}
	}
}

// TestResignOutOfTurn: a person resigns while the computer is to move (here
// held by the game's delay); the game ends at once, stored as resigned.
func TestResignOutOfTurn(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "greedy", DelayMS: 300})
	if err != nil {
		t.Fatal(err)
	}
	// Both sides move first (before, resigning aborts).
	moveWhenAsked(t, ts.srv, st.ID, st.Tokens[0], 1)
	for {
		v, _ := ts.srv.Game(ctx, st.ID)
		if v.Plies == 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	moveWhenAsked(t, ts.srv, st.ID, st.Tokens[0], 2)
	begin := time.Now()
	if err := ts.srv.Resign(ctx, st.ID, Actor{Token: st.Tokens[0]}); err != nil {
		t.Fatal(err)
	}
	waitFinished(t, ts.srv)
	if time.Since(begin) > 10*time.Second {
		t.Fatal("the resignation waited for the computer's turn")
	}
	rec := checkStored(t, ts.st, st.ID, nil)
	if rec.Termination != kalah.Resign || rec.Result != kalah.NorthWins || len(rec.Moves) < 3 {
		t.Fatalf("ended %s %s after %d moves", rec.Result, rec.Termination, len(rec.Moves))
	}
}

// TestRematch: after a game, a person asks for a rematch: the same
// settings, sides exchanged; against the computer at once, between two
// people the other's seat is open until they ask too (and then they take
// it). A stranger's token, or a game not over, is refused.
func TestRematch(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "first", Casual: true, DelayMS: 5, By: ann})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.srv.Rematch(ctx, st.ID, Actor{Token: st.Tokens[0]}); !errors.Is(err, ErrNotYourTurn) {
		t.Fatalf("a rematch of a game not over: %v", err)
	}
	if err := ts.srv.Resign(ctx, st.ID, Actor{Token: st.Tokens[0]}); err != nil {
		t.Fatal(err)
	}
	waitFinished(t, ts.srv)
	if _, err := ts.srv.Rematch(ctx, st.ID, Actor{Token: "stranger"}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("a stranger's rematch: %v", err)
	}
	re, err := ts.srv.Rematch(ctx, st.ID, Actor{Token: st.Tokens[0]})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ts.srv.Game(ctx, re.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v.South != "first" || v.North != "ann" || re.Tokens[1] == "" || !v.Casual || v.DelayMS != 5 || v.Record.Tags[RematchOfTag] == "" {
		t.Fatalf("the rematch: %+v casual %v delay %d tags %v tokens %q", v.GameInfo, v.Casual, v.DelayMS, v.Record.Tags, re.Tokens)
	}
	old, _ := ts.srv.Game(ctx, st.ID)
	if old.Record.Tags[RematchTag] == "" {
		t.Fatalf("the old game does not name its rematch: %v", old.Record.Tags)
	}

	// Two people: the first to ask starts it, the second takes the seat.
	two, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", Seated: annBob})
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.srv.Resign(ctx, two.ID, Actor{Token: two.Tokens[1]}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if g, _ := ts.st.Game(ctx, two.ID); g.Status == store.Finished {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the game does not end")
		}
		time.Sleep(5 * time.Millisecond)
	}
	bobs, err := ts.srv.Rematch(ctx, two.ID, Actor{Token: two.Tokens[1]})
	if err != nil || bobs.Tokens[0] == "" || bobs.Tokens[1] != "" {
		t.Fatalf("bob's rematch: %+v %v", bobs, err)
	}
	anns, err := ts.srv.Rematch(ctx, two.ID, Actor{Token: two.Tokens[0]})
	if err != nil || anns.ID != bobs.ID || anns.Tokens[1] == "" {
		t.Fatalf("ann's rematch: %+v %v", anns, err)
	}
	v, _ = ts.srv.Game(ctx, bobs.ID)
	if v.South != "bob" || v.North != "ann" || v.Open != [2]bool{} {
		t.Fatalf("the people's rematch: %+v open %v", v.GameInfo, v.Open)
	}
	// Asking again gives each their own seat, which they have: never the
	// other's (one token twice used to take both).
	for _, tok := range two.Tokens {
		again, err := ts.srv.Rematch(ctx, two.ID, Actor{Token: tok})
		if err != nil || again.ID != bobs.ID || again.Tokens != [2]string{} {
			t.Fatalf("asking again: %+v %v", again, err)
		}
	}
	if g, _ := ts.st.Game(ctx, bobs.ID); !g.Seats[0].ID.Is(annBob[1]) || !g.Seats[1].ID.Is(annBob[0]) {
		t.Fatalf("the rematch's seats: %+v", g.Seats)
	}
}

// TestFischerClock: a person's whole-game clock runs while it is their
// turn, gains its increment after each move, and running out loses the
// game, said in words; the board shows both clocks.
func TestFischerClock(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	if _, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "first", IncrementMS: 1000}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("an increment without a clock: %v", err)
	}
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "first", ClockMS: 1500, IncrementMS: 200, By: capAnn})
	if err != nil {
		t.Fatal(err)
	}
	moveWhenAsked(t, ts.srv, st.ID, st.Tokens[0], 1)
	waitPlies(t, ts.srv, st.ID, 2)
	b, err := ts.srv.BoardOf(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b.ClockMS != 1500 || b.IncrementMS != 200 || b.Running != 0 || b.RemainingMS[0] > 1700 || b.RemainingMS[0] < 500 || b.RemainingMS[1] < 1500 {
		t.Fatalf("clocks: %+v running %d remaining %v", b.ClockMS, b.Running, b.RemainingMS)
	}
	// Ann thinks too long.
	waitFinished(t, ts.srv)
	rec := checkStored(t, ts.st, st.ID, nil)
	if rec.Termination != kalah.Timeout || rec.Result != kalah.NorthWins || rec.Tags[ReasonTag] != "Ann ran out of time" {
		t.Fatalf("ended %s %s: %q", rec.Result, rec.Termination, rec.Tags[ReasonTag])
	}
	b, _ = ts.srv.BoardOf(ctx, st.ID)
	if b.Running != -1 || b.RemainingMS[0] != 0 || b.Reason != "Ann ran out of time" {
		t.Fatalf("the board after: running %d remaining %v reason %q", b.Running, b.RemainingMS, b.Reason)
	}
}

// TestRatedQueueGame: a game the queue pairs between two bots logged in
// with their tokens counts on their ladder (the preset and the time
// class); the board shows the ratings and their change; the leaderboard
// and the players' pages list them; a game against a guest counts for
// no one.
func TestRatedQueueGame(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	a, b := dial(t, ts.addr), dial(t, ts.addr)
	a.login("alice", "alice-token")
	b.login("bob", "bob-token")
	a.send("queue")
	a.expect("ok")
	b.send("queue")
	var wg sync.WaitGroup
	var ends [2]line.End
	wg.Add(2)
	go func() { defer wg.Done(); _, ends[0] = a.playGame() }()
	go func() { defer wg.Done(); _, ends[1] = b.playGame() }()
	wg.Wait()
	waitFinished(t, ts.srv)
	ctx := context.Background()
	games, _ := ts.st.Games(ctx, store.Filter{})
	if len(games) != 1 {
		t.Fatalf("games %+v", games)
	}
	board, err := ts.srv.BoardOf(ctx, games[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !board.Rated || board.Ratings[0] == nil || board.Ratings[1] == nil || board.Ratings[0].Change == nil {
		t.Fatalf("board ratings %+v rated %v", board.Ratings, board.Rated)
	}
	ch0, ch1 := *board.Ratings[0].Change, *board.Ratings[1].Change
	if ends[0].Result != kalah.Draw && (ch0 == 0 || ch0 != -ch1 || !board.Ratings[0].Provisional) {
		t.Fatalf("changes %d %d", ch0, ch1)
	}
	var top []store.Rated
	get(t, ts, "/api/ratings?pool=kalah/blitz", &top)
	if len(top) != 2 || top[0].Games != 1 || top[0].Rating.Rating < top[1].Rating.Rating {
		t.Fatalf("leaderboard %+v", top)
	}
	var p Profile
	get(t, ts, "/api/players/alice", &p)
	if len(p.Ratings) != 1 || len(p.History) != 1 || len(p.Games) != 1 || p.Ratings[0].Pool != "kalah/blitz" {
		t.Fatalf("alice's page %+v", p)
	}
	// Her archive downloads as records that read back.
	resp, err := http.Get(ts.http.URL + "/api/players/alice/records")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if g, err := kalah.ParseGame(string(body)); err != nil || g.Len() == 0 || !strings.Contains(string(body), "[Date \"") {
		t.Fatalf("alice's records: %v\n%s", err, body)
	}
	// A person against the computer is not rated.
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "first", Rated: true})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := ts.srv.Game(ctx, st.ID); v.Record.Tags[tagRated] != "" {
		t.Fatalf("a guest's game is rated: %v", v.Record.Tags)
	}
}

func get(t *testing.T, ts *testServer, path string, out any) {
	t.Helper()
	resp, err := http.Get(ts.http.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// TestAbortAndClaim: a game nobody moves in is aborted, without a result
// that counts; between people without a clock, the one whose opponent
// sits on their move may claim the win after a while, not before.
func TestAbortAndClaim(t *testing.T) {
	ts := newTestServer(t, "", Config{AbortAfter: 200 * time.Millisecond, ClaimAfter: 300 * time.Millisecond})
	ctx := context.Background()
	idle, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "greedy", By: capAnn})
	if err != nil {
		t.Fatal(err)
	}
	two, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", Seated: capAnnBob})
	if err != nil {
		t.Fatal(err)
	}
	// Each moves once (before, an idle side is aborted); then Ann moves
	// and Bob does not.
	moveWhenAsked(t, ts.srv, two.ID, two.Tokens[0], 1)
	moveWhenAsked(t, ts.srv, two.ID, two.Tokens[1], 1)
	moveWhenAsked(t, ts.srv, two.ID, two.Tokens[0], 3)
	if err := ts.srv.Claim(ctx, two.ID, Actor{Token: two.Tokens[0]}); !errors.Is(err, ErrNotYourTurn) {
		t.Fatalf("a claim too soon: %v", err)
	}
	if err := ts.srv.Claim(ctx, two.ID, Actor{Token: two.Tokens[1]}); !errors.Is(err, ErrNotYourTurn) {
		t.Fatalf("a claim on one's own turn: %v", err)
	}
	time.Sleep(400 * time.Millisecond)
	if err := ts.srv.Claim(ctx, two.ID, Actor{Token: two.Tokens[0]}); err != nil {
		t.Fatalf("the claim: %v", err)
	}
	waitFinished(t, ts.srv)
	rec := checkStored(t, ts.st, idle.ID, nil)
	if rec.Termination != kalah.Aborted || rec.Tags[ReasonTag] != "Aborted: Ann made no first move within 200ms" {
		t.Fatalf("the idle game: %s %q", rec.Termination, rec.Tags[ReasonTag])
	}
	rec = checkStored(t, ts.st, two.ID, nil)
	if rec.Termination != kalah.Timeout || rec.Result != kalah.SouthWins || rec.Tags[ReasonTag] != "Bob did not move for 300ms; the win was claimed" {
		t.Fatalf("the claimed game: %s %s %q", rec.Result, rec.Termination, rec.Tags[ReasonTag])
	}
}

// TestTakebackBetweenPeople: in a casual game between people a takeback
// is asked for; the opponent declines it, or grants it by taking back too;
// a move answers it; no hints between people.
func TestTakebackBetweenPeople(t *testing.T) {
	ts := newTestServer(t, "", Config{Hint: func(ctx context.Context, g *kalah.Game) (kalah.Move, error) { return 1, nil }})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", Casual: true, Seated: capAnnBob})
	if err != nil {
		t.Fatal(err)
	}
	moveWhenAsked(t, ts.srv, st.ID, st.Tokens[0], 1)
	if _, err := ts.srv.Hint(ctx, st.ID, Actor{Token: st.Tokens[1]}); !errors.Is(err, ErrNotCasual) {
		t.Fatalf("a hint between people: %v", err)
	}
	ask := func(tok string) {
		t.Helper()
		if err := ts.srv.TakeBack(ctx, st.ID, Actor{Token: tok}); err != nil {
			t.Fatal(err)
		}
	}
	ask(st.Tokens[0]) // Ann asks
	if b, _ := ts.srv.BoardOf(ctx, st.ID); b.TakebackAsk != 0 || len(b.Moves) != 1 {
		t.Fatalf("asked: %d, %d moves", b.TakebackAsk, len(b.Moves))
	}
	if err := ts.srv.DeclineTakeBack(ctx, st.ID, Actor{Token: st.Tokens[0]}); !errors.Is(err, ErrNotYourTurn) {
		t.Fatalf("Ann declines her own ask: %v", err)
	}
	if err := ts.srv.DeclineTakeBack(ctx, st.ID, Actor{Token: st.Tokens[1]}); err != nil {
		t.Fatal(err)
	}
	if b, _ := ts.srv.BoardOf(ctx, st.ID); b.TakebackAsk != -1 || len(b.Moves) != 1 {
		t.Fatalf("declined: %d, %d moves", b.TakebackAsk, len(b.Moves))
	}
	ask(st.Tokens[0])
	ask(st.Tokens[1]) // Bob grants it
	b := waitPlies(t, ts.srv, st.ID, 0)
	if b.Record.Tags[store.TakebackTag] != "0: 1" {
		t.Fatalf("granted: tags %v", b.Record.Tags)
	}
	// A move answers an ask.
	moveWhenAsked(t, ts.srv, st.ID, st.Tokens[0], 2)
	ask(st.Tokens[0])
	moveWhenAsked(t, ts.srv, st.ID, st.Tokens[1], 1)
	if bd, _ := ts.srv.BoardOf(ctx, st.ID); bd.TakebackAsk != -1 {
		t.Fatalf("an ask outlived a move: %d", bd.TakebackAsk)
	}
}

// Identities of the tests' people.
var (
	ann       = identity.Of(identity.Person, "ann")
	capAnn    = identity.Of(identity.Person, "Ann")
	annBob    = [2]identity.ID{ann, identity.Of(identity.Person, "bob")}
	capAnnBob = [2]identity.ID{capAnn, identity.Of(identity.Person, "Bob")}
)

// TestInviteJoinNamesTheSeat: once the invitee joins, the game's record
// names them, live (the game, its board's text) and once over (stored,
// and as its round ended it): the seat was left `[North ""]`.
func TestInviteJoinNamesTheSeat(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	st, err := ts.srv.StartGame(ctx, GameRequest{South: "human", North: "human", Invite: true, By: ann})
	if err != nil {
		t.Fatal(err)
	}
	guest := Actor{ID: identity.GuestOf("a friend's secret")}
	if _, _, err := ts.srv.Join(ctx, st.ID, guest, st.Invite); err != nil {
		t.Fatal(err)
	}
	sg, err := ts.st.Game(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	name := sg.Seats[1].Name // the guest's display name
	if name == "" {
		t.Fatal("the seat taken has no name in the store")
	}
	check := func(when string) {
		t.Helper()
		v, err := ts.srv.Game(ctx, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ts.srv.BoardOf(ctx, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Record.Players.North != name || v.North != name || !strings.Contains(b.Record, `[North "`+name+`"]`) {
			t.Errorf("%s: the record's North %q, the game's %q, the board's text:\n%s\nwant %q", when, v.Record.Players.North, v.North, b.Record, name)
		}
	}
	check("live")
	if err := ts.srv.Resign(ctx, st.ID, Actor{Token: st.Tokens[0]}); err != nil {
		t.Fatal(err)
	}
	rec := waitStored(t, ts.st, st.ID)
	if rec.Players.North != name {
		t.Errorf("stored: North %q, want %q", rec.Players.North, name)
	}
	check("over")
}

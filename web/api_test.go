package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	_ "kalah/heuristic"
	"kalah/server"
)

// newMatchServer returns a match server on a database of its own, with
// hints from a short search, stopped at the end of the test.
func newMatchServer(t *testing.T, cfg server.Config) *server.Server {
	t.Helper()
	return newMatchServerTB(t, cfg)
}

// newServer serves the page over a match server of its own; everyone is
// trusted to start games between computers unless opts says otherwise.
func newServer(t *testing.T) (*httptest.Server, *Handler) {
	return newServerWith(t, server.Config{}, Options{})
}

// serverTournaments returns msrv's tournaments, which run until ctx ends;
// at its end the test waits for them to stop (the caller registers the
// cleanup that ends ctx after this call, so it runs first).
func serverTournaments(t testing.TB, ctx context.Context, msrv *server.Server) *server.Tournaments {
	t.Helper()
	tours, err := msrv.StartTournaments(ctx, server.TournamentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tours.Wait)
	return tours
}

// newServerWith serves the page over a match server of its own, whose
// database keeps the page's tournaments too.
func newServerWith(t testing.TB, cfg server.Config, o Options) (*httptest.Server, *Handler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	path := filepath.Join(t.TempDir(), "kalah.db")
	msrv, _ := newMatchServerAt(t, path, cfg)
	o.Server, o.Tournaments = msrv, serverTournaments(t, ctx, msrv)
	h, err := New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := newTestServerFor(t, h)
	t.Cleanup(cancel)
	return srv, h
}

func newTestServerFor(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// call does a request and decodes a JSON answer into out (if not nil),
// returning the status code.
func call(t testing.TB, srv *httptest.Server, method, path string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, srv.URL+path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v in %q", method, path, err, data)
		}
	}
	if resp.StatusCode >= 400 && !strings.Contains(string(data), `"error"`) {
		t.Errorf("%s %s: error %d without a JSON error: %q", method, path, resp.StatusCode, data)
	}
	return resp.StatusCode
}

func standard() kalah.Rules { return kalah.Standard() }

// waitState polls a game until cond holds.
func waitState(t *testing.T, srv *httptest.Server, id string, cond func(State) bool) State {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var st State
		if code := call(t, srv, "GET", Prefix+"games/"+id+"/board", nil, &st); code != 200 {
			t.Fatalf("state: %d", code)
		}
		if cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("game %s: condition not met; state %+v", id, st.Position)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStaticFiles(t *testing.T) {
	srv, _ := newServer(t)
	for _, tc := range []struct {
		path, ctype string
		code        int
	}{
		{"/", "text/html", 200},
		{"/web/static/app.js", "javascript", 200},
		{"/web/static/app.css", "text/css", 200},
		{"/favicon.ico", "image/svg+xml", 200},
		{"/web/static/nope.js", "", 404},
		{"/nope", "", 404},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.Contains(resp.Header.Get("Content-Type"), tc.ctype) {
			t.Errorf("GET %s: %d %q, want %d %q", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), tc.code, tc.ctype)
		}
	}
	// Gzip is served when asked for, and an unchanged file is not sent again.
	req, _ := http.NewRequest("GET", srv.URL+"/web/static/app.js", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("no gzip: %v", resp.Header)
	}
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	resp, err = http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("etag: %d", resp.StatusCode)
	}
}

func TestMeta(t *testing.T) {
	srv, _ := newServer(t)
	var m Meta
	if code := call(t, srv, "GET", Prefix+"meta", nil, &m); code != 200 {
		t.Fatal(code)
	}
	if len(m.Presets) < 5 || m.Presets[0].Rules.Name != "kalah" {
		t.Errorf("presets: %+v", m.Presets)
	}
	names := map[string]bool{}
	for _, p := range m.Players {
		names[p.Name] = true
	}
	if !names["random"] || !names["greedy"] {
		t.Errorf("players: %v", names)
	}
}

func TestCreateGameBadInput(t *testing.T) {
	srv, _ := newServer(t)
	bad := standard()
	bad.Houses = 0
	for _, tc := range []struct {
		name string
		body any
		code int
	}{
		{"not json", "{", 400},
		{"unknown field", `{"rules":{"houses":6,"seeds":4},"south":"human","north":"greedy","bogus":1}`, 400},
		{"trailing data", `{"rules":{"houses":6,"seeds":4},"south":"human","north":"greedy"} {}`, 400},
		{"bad rules", NewGame{Rules: bad, South: Human, North: "greedy"}, 400},
		{"bad side letter", `{"rules":{"houses":6,"seeds":4,"first":"X"},"south":"human","north":"greedy"}`, 400},
		{"unknown player", NewGame{Rules: standard(), South: Human, North: "nobody"}, 400},
		{"bad start", NewGame{Rules: standard(), Start: "1,2/3", South: Human, North: "greedy"}, 400},
		{"wrong houses", NewGame{Rules: standard(), Start: "1,1/1,1 0-0 S", South: Human, North: "greedy"}, 400},
		{"negative clock", NewGame{Rules: standard(), South: Human, North: "greedy", PerMoveMS: -1}, 400},
		{"tournament by hand", `{"rules":{"houses":6,"seeds":4},"south":"human","north":"greedy","tournament":"t1"}`, 400},
		{"huge body", `{"south":"` + strings.Repeat("x", 70<<10) + `"}`, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code := call(t, srv, "POST", Prefix+"games", tc.body, nil); code != tc.code {
				t.Errorf("code %d, want %d", code, tc.code)
			}
		})
	}
}

func TestPlayAgainstComputer(t *testing.T) {
	srv, _ := newServer(t)
	var c Created
	if code := call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: Human, North: "first", Casual: true}, &c); code != 201 {
		t.Fatal(code)
	}
	if c.Tokens[0] == "" || c.Tokens[1] != "" {
		t.Fatalf("tokens %q", c.Tokens)
	}
	// Bad moves first: unknown game, no token, wrong token, bad syntax,
	// an illegal house.
	for _, tc := range []struct {
		name, id string
		body     any
		code     int
	}{
		{"unknown game", "nope", seatRequest{Token: c.Tokens[0], Move: "1"}, 404},
		{"no token", c.ID, seatRequest{Move: "1"}, 403},
		{"wrong token", c.ID, seatRequest{Token: "x", Move: "1"}, 403},
		{"syntax", c.ID, seatRequest{Token: c.Tokens[0], Move: "seven"}, 400},
		{"out of range", c.ID, seatRequest{Token: c.Tokens[0], Move: "7"}, 400},
		{"bad json", c.ID, "[1]", 400},
	} {
		if code := call(t, srv, "POST", Prefix+"games/"+tc.id+"/move", tc.body, nil); code != tc.code {
			t.Errorf("%s: code %d, want %d", tc.name, code, tc.code)
		}
	}
	// Play house 3 (an extra turn in Kalah(6,4)), then 6.
	var st State
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/move", seatRequest{Token: c.Tokens[0], Move: "3"}, &st); code != 200 {
		t.Fatal(code)
	}
	if len(st.Moves) != 1 || !st.Moves[0].Extra || st.ToMove != kalah.South {
		t.Fatalf("after 3: %+v", st.Moves)
	}
	call(t, srv, "POST", Prefix+"games/"+c.ID+"/move", seatRequest{Token: c.Tokens[0], Move: "6"}, &st)
	st = waitState(t, srv, c.ID, func(s State) bool { return s.ToMove == kalah.South && len(s.Moves) >= 3 })
	if st.Seats[1].Spec != "first" || st.Moves[2].Side != kalah.North {
		t.Fatalf("computer did not answer: %+v", st.Moves)
	}
	// Moving out of turn is refused: wait is not needed, North has moved.
	// Hints work in a casual game.
	var hint map[string]string
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/hint", seatRequest{Token: c.Tokens[0]}, &hint); code != 200 || hint["move"] == "" {
		t.Fatalf("hint: %d %v", code, hint)
	}
	// Undo goes back to before the human's last turn (3+6 was one turn).
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/takeback", seatRequest{Token: c.Tokens[0]}, &st); code != 200 {
		t.Fatal(code)
	}
	if len(st.Moves) != 0 || st.Position != standard().Start().String() {
		t.Fatalf("after undo: %d moves, %s", len(st.Moves), st.Position)
	}
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/takeback", seatRequest{Token: c.Tokens[0]}, nil); code != 409 {
		t.Errorf("undo with nothing to undo: %d", code)
	}
	// Play the game out with hints until it ends.
	for i := 0; i < 200; i++ {
		st = waitState(t, srv, c.ID, func(s State) bool { return s.Over || s.ToMove == kalah.South })
		if st.Over {
			break
		}
		call(t, srv, "POST", Prefix+"games/"+c.ID+"/move", seatRequest{Token: c.Tokens[0], Move: st.Legal[0]}, nil)
	}
	if !st.Over || st.Score[0]+st.Score[1] != 48 || st.Termination != "normal" {
		t.Fatalf("game did not end well: %+v", st)
	}
	st = waitState(t, srv, c.ID, func(s State) bool { return !s.Live }) // stored as finished
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/move", seatRequest{Token: c.Tokens[0], Move: "1"}, nil); code != 409 {
		t.Errorf("move after the end: %d", code)
	}
	if _, err := kalah.ParseGame(st.Record); err != nil {
		t.Errorf("record does not parse: %v", err)
	}
	resp, err := http.Get(srv.URL + Prefix + "games/" + c.ID + "/record")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The record, with the date and where it was played beside the moves.
	if rec := string(b); !strings.Contains(rec, "[Date \"") || !strings.Contains(rec, "[Site \"kalah serve\"]") || !strings.Contains(rec, st.MoveText) {
		t.Errorf("record route: %q", b)
	}
	// The downloaded record, pasted back, is analysed from its own rules,
	// start and moves.
	var plies []Ply
	if code := call(t, srv, "POST", Prefix+"analyze/game", GameAnalysisRequest{Record: string(b), Millis: 500}, &plies); code != 200 || len(plies) != len(st.Moves)+1 {
		t.Errorf("the record analysed: %d, %d plies for %d moves", code, len(plies), len(st.Moves))
	}
	if code := call(t, srv, "POST", Prefix+"analyze/game", GameAnalysisRequest{Record: "[Rules \"kalah\"]\n\n1. 9", Millis: 50}, nil); code != 400 {
		t.Errorf("a bad record: %d", code)
	}
	var list []server.GameInfo
	call(t, srv, "GET", Prefix+"games", nil, &list)
	if len(list) != 1 || itoa(list[0].ID) != c.ID || list[0].Status != "finished" {
		t.Errorf("list: %+v", list)
	}
}

func TestRatedGameRefusesHintsAndUndo(t *testing.T) {
	srv, _ := newServer(t)
	var c Created
	call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: Human, North: "greedy"}, &c)
	call(t, srv, "POST", Prefix+"games/"+c.ID+"/move", seatRequest{Token: c.Tokens[0], Move: "1"}, nil)
	// The computer's reply: resigning before both sides have moved aborts.
	waitState(t, srv, c.ID, func(s State) bool { return len(s.Moves) >= 2 })
	for _, r := range []string{"hint", "takeback"} {
		if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/"+r, seatRequest{Token: c.Tokens[0]}, nil); code != 409 {
			t.Errorf("%s in a rated game: %d", r, code)
		}
	}
	var st State
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/resign", seatRequest{Token: c.Tokens[0]}, &st); code != 200 {
		t.Fatal(code)
	}
	if !st.Over || st.Result != kalah.NorthWins || st.Termination != "resign" {
		t.Errorf("resign: %+v", st)
	}
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/resign", seatRequest{Token: c.Tokens[0]}, nil); code != 409 {
		t.Errorf("resign twice: %d", code)
	}
}

func TestTwoHumansByLink(t *testing.T) {
	srv, _ := newServer(t)
	var c Created
	call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: Human, North: Human, Invite: true}, &c)
	if c.Tokens[0] == "" || c.Tokens[1] != "" {
		t.Fatalf("creator should hold South only: %q", c.Tokens)
	}
	var j struct {
		Seat  int    `json:"seat"`
		Token string `json:"token"`
	}
	if len(c.Invite) != 32 {
		t.Fatalf("invitation %q: want 128 bits", c.Invite)
	}
	// The game's number is not enough: the seat is the invitation's.
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/join", "{}", nil); code != 409 {
		t.Fatalf("a join without the invitation: %d", code)
	}
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/join", seatRequest{Invite: c.Invite}, &j); code != 200 || j.Seat != 1 || j.Token == "" {
		t.Fatalf("join: %d %+v", code, j)
	}
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/join", seatRequest{Invite: c.Invite}, nil); code != 409 {
		t.Errorf("third join: %d", code)
	}
	if code := call(t, srv, "POST", Prefix+"games/nope/join", "{}", nil); code != 404 {
		t.Errorf("join unknown: %d", code)
	}
	// North may not move for South.
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/move", seatRequest{Token: j.Token, Move: "1"}, nil); code != 409 {
		t.Errorf("out of turn: %d", code)
	}
	var st State
	call(t, srv, "POST", Prefix+"games/"+c.ID+"/move", seatRequest{Token: c.Tokens[0], Move: "1"}, &st)
	if st.ToMove != kalah.North {
		t.Fatalf("to move %v", st.ToMove)
	}
	call(t, srv, "POST", Prefix+"games/"+c.ID+"/move", seatRequest{Token: j.Token, Move: "2"}, &st)
	if len(st.Moves) != 2 || st.Moves[1].Side != kalah.North {
		t.Fatalf("moves %+v", st.Moves)
	}
	// Between people a takeback is asked of the opponent, in any game,
	// unless the game refuses them.
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/takeback", seatRequest{Token: j.Token}, &st); code != 200 || st.TakebackAsk != 1 || len(st.Moves) != 2 {
		t.Errorf("a takeback asked between people: %d, asked by %d, %d moves", code, st.TakebackAsk, len(st.Moves))
	}
	var off Created
	call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: Human, North: Human, Invite: true, Takebacks: new(bool)}, &off)
	call(t, srv, "POST", Prefix+"games/"+off.ID+"/join", seatRequest{Invite: off.Invite}, &j)
	call(t, srv, "POST", Prefix+"games/"+off.ID+"/move", seatRequest{Token: off.Tokens[0], Move: "1"}, &st)
	if code := call(t, srv, "POST", Prefix+"games/"+off.ID+"/takeback", seatRequest{Token: off.Tokens[0]}, nil); code != 409 || st.Takebacks {
		t.Errorf("a takeback in a game that refuses them: %d, the board's takebacks %v", code, st.Takebacks)
	}
}

func TestEventsStreamMoves(t *testing.T) {
	srv, _ := newServer(t)
	var c Created
	call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: "first", North: "first", DelayMS: 20}, &c)
	resp, err := http.Get(srv.URL + Prefix + "games/" + c.ID + "/board/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	seen := -1
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var st State
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatal(err)
		}
		if len(st.Moves) < seen {
			t.Fatalf("moves went back from %d to %d", seen, len(st.Moves))
		}
		seen = len(st.Moves)
		if st.Over {
			break
		}
	}
	if seen < 2 {
		t.Errorf("saw %d moves", seen)
	}
	resp2, _ := http.Get(srv.URL + Prefix + "games/nope/board/events")
	resp2.Body.Close()
	if resp2.StatusCode != 404 {
		t.Errorf("events of unknown game: %d", resp2.StatusCode)
	}
}

func TestUnknownRoute(t *testing.T) {
	srv, _ := newServer(t)
	if code := call(t, srv, "GET", Prefix+"nothing", nil, nil); code != 404 {
		t.Errorf("code %d", code)
	}
	if code := call(t, srv, "DELETE", Prefix+"games", nil, nil); code != 405 && code != 404 {
		t.Errorf("delete: %d", code)
	}
}

func TestPieRuleSwap(t *testing.T) {
	srv, _ := newServer(t)
	r, _ := kalah.PresetRules("manchester")
	var c Created
	if code := call(t, srv, "POST", Prefix+"games", NewGame{Rules: r, South: "first", North: Human}, &c); code != 201 {
		t.Fatal(code)
	}
	st := waitState(t, srv, c.ID, func(s State) bool { return len(s.Moves) == 1 })
	if st.Legal[len(st.Legal)-1] != "swap" || st.ToMoveSeat != 1 {
		t.Fatalf("swap not offered: %v seat %d", st.Legal, st.ToMoveSeat)
	}
	call(t, srv, "POST", Prefix+"games/"+c.ID+"/move", seatRequest{Token: c.Tokens[1], Move: "swap"}, nil)
	// After the swap the computer plays North and the person South.
	st = waitState(t, srv, c.ID, func(s State) bool { return s.Swapped && s.ToMove == kalah.South })
	if st.ToMoveSeat != 1 || st.Moves[1].Move != "swap" {
		t.Fatalf("after swap: seat %d moves %+v", st.ToMoveSeat, st.Moves)
	}
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/move", seatRequest{Token: c.Tokens[1], Move: "swap"}, nil); code != 400 {
		t.Errorf("second swap: %d", code)
	}
}

// TestComputerGamesNeedTrust: a guest may play the computer or a friend;
// a game between two computers is refused unless the request is trusted
// (signed in); the server's limit on games holds for the page's games.
func TestComputerGamesNeedTrust(t *testing.T) {
	srv, _ := newServerWith(t, server.Config{MaxGames: 2, AdminToken: "admin"}, Options{})
	if code := call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: "first", North: "first"}, nil); code != 401 {
		t.Errorf("two computers for a stranger: %d", code)
	}
	if code := call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: Human, North: Human}, nil); code != 401 {
		t.Errorf("two people for a stranger: %d", code)
	}
	if code := call(t, srv, "POST", Prefix+"tournaments", server.NewTournament{Rules: standard(), Players: []string{"first", "greedy"}}, nil); code != 401 {
		t.Errorf("a tournament for a stranger: %d", code)
	}
	for i := range 3 {
		code := call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: Human, North: "first"}, nil)
		if want := map[bool]int{true: 201, false: 503}[i < 2]; code != want {
			t.Errorf("game %d: %d, want %d", i, code, want)
		}
	}
}

func TestBodyMustBeJSON(t *testing.T) {
	srv, _ := newServer(t)
	// A form on another site can post text/plain; the API refuses it.
	resp, err := http.Post(srv.URL+Prefix+"games", "text/plain", strings.NewReader(`{"rules":{"houses":6,"seeds":4},"south":"first","north":"first"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d", resp.StatusCode)
	}
	resp, err = http.Post(srv.URL+Prefix+"games", "application/json; charset=utf-8", strings.NewReader(`{"rules":{"houses":6,"seeds":4},"south":"human","north":"first"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("json with charset: %d", resp.StatusCode)
	}
}

// TestSeatRoutesBadInput covers every route that acts for a seat, and the
// routes that read one game, with unknown games, missing and wrong tokens
// and malformed bodies.
func TestSeatRoutesBadInput(t *testing.T) {
	srv, _ := newServer(t)
	var c Created
	call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: Human, North: "first", Casual: true}, &c)
	for _, route := range []string{"move", "takeback", "hint", "resign"} {
		for _, tc := range []struct {
			name, id string
			body     any
			code     int
		}{
			{"unknown game", "nope", seatRequest{Token: c.Tokens[0], Move: "1"}, 404},
			{"no token", c.ID, seatRequest{Move: "1"}, 403},
			{"wrong token", c.ID, seatRequest{Token: "not-a-token", Move: "1"}, 403},
			{"not json", c.ID, "token=x", 400},
			{"unknown field", c.ID, `{"token":"x","seat":1}`, 400},
		} {
			if code := call(t, srv, "POST", Prefix+"games/"+tc.id+"/"+route, tc.body, nil); code != tc.code {
				t.Errorf("%s, %s: %d, want %d", route, tc.name, code, tc.code)
			}
		}
	}
	for _, path := range []string{"games/nope/board", "games/nope/record", "games/nope/board/events", "tournaments/nope"} {
		if code := call(t, srv, "GET", Prefix+path, nil, nil); code != 404 {
			t.Errorf("GET %s: %d", path, code)
		}
	}
	if code := call(t, srv, "GET", Prefix+"games/"+c.ID+"/record", nil, nil); code != 200 {
		t.Errorf("record: %d", code)
	}
}

// TestOpenGamesPerGuest: the games a guest starts on the page count among
// the address's guests' live games, as over the server's own API: beyond
// the server's limit the page answers 429 with the reason; a finished
// game frees its place.
func TestOpenGamesPerGuest(t *testing.T) {
	srv, _ := newServerWith(t, server.Config{MaxGuestGamesPerAddr: 2}, Options{})
	var first Created
	for i := range 3 {
		var c Created
		code := call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: Human, North: "first"}, &c)
		if want := map[bool]int{true: 201, false: 429}[i < 2]; code != want {
			t.Fatalf("game %d: %d, want %d", i, code, want)
		}
		if i == 0 {
			first = c
		}
	}
	call(t, srv, "POST", Prefix+"games/"+first.ID+"/resign", seatRequest{Token: first.Tokens[0]}, nil)
	deadline := time.Now().Add(10 * time.Second)
	for call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: Human, North: "first"}, nil) != 201 {
		if time.Now().After(deadline) {
			t.Fatal("a finished game does not free its place")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRematchRoute: after resigning, the person asks for a rematch: a new
// game with the sides exchanged, which the old game names.
func TestRematchRoute(t *testing.T) {
	srv, _ := newServer(t)
	var c Created
	call(t, srv, "POST", Prefix+"games", NewGame{Rules: standard(), South: Human, North: "first"}, &c)
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/rematch", seatRequest{Token: c.Tokens[0]}, nil); code != 409 {
		t.Errorf("a rematch before the end: %d", code)
	}
	call(t, srv, "POST", Prefix+"games/"+c.ID+"/resign", seatRequest{Token: c.Tokens[0]}, nil)
	waitState(t, srv, c.ID, func(s State) bool { return s.Over && !s.Live })
	var re Created
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/rematch", seatRequest{Token: c.Tokens[0]}, &re); code != 201 || re.Tokens[1] == "" {
		t.Fatalf("rematch: %d %+v", code, re)
	}
	st := waitState(t, srv, re.ID, func(s State) bool { return true })
	was := waitState(t, srv, c.ID, func(s State) bool { return true })
	if st.Seats[1].ID != was.Seats[0].ID || st.Seats[1].ID.IsZero() || st.Seats[0].Spec != "first" {
		t.Fatalf("the rematch's seats: %+v", st.Seats)
	}
	if old := waitState(t, srv, c.ID, func(s State) bool { return true }); old.Rematch != re.ID {
		t.Fatalf("the old game names %q, want %q", old.Rematch, re.ID)
	}
	if code := call(t, srv, "POST", Prefix+"games/"+c.ID+"/rematch", seatRequest{Token: "x"}, nil); code != 403 {
		t.Errorf("a stranger's rematch: %d", code)
	}
}

package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/player"
	"kalah/server/arranged"
)

// postArranged sends a body to POST /api/arranged.
func postArranged(t *testing.T, ts *testServer, contentType, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(ts.http.URL+"/api/arranged", contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestArrangedHTTPErrors(t *testing.T) {
	ts := newTestServer(t, "", Config{MaxGames: 1})
	const js = "application/json"
	for _, c := range []struct {
		name, ct, body string
		code           int
		want           string
	}{
		{"not json", "text/plain", `{"south":"greedy","north":"first"}`, 415, "application/json"},
		{"bad json", js, `{"south":`, 400, "request body"},
		{"unknown field", js, `{"south":"greedy","north":"first","colour":"red"}`, 400, "colour"},
		{"trailing data", js, `{"south":"greedy","north":"first"} {}`, 400, "after the JSON value"},
		{"no north", js, `{"south":"greedy"}`, 400, "required"},
		{"unknown player", js, `{"south":"greedy","north":"nosuchplayer"}`, 400, "nosuchplayer"},
		{"bad bot name", js, `{"south":"bot:a b","north":"greedy"}`, 400, "bot's name"},
		{"bot plays itself", js, `{"south":"bot:alice","north":"bot:alice"}`, 403, "itself"},
		{"a stranger's bot", js, `{"south":"bot:alice","north":"greedy"}`, 403, "not yours"},
		{"negative clock", js, `{"south":"greedy","north":"first","per_move_ms":-1}`, 400, "per_move_ms"},
		{"bad rules", js, `{"south":"greedy","north":"first","rules":{"houses":99,"seeds":1}}`, 400, ""},
		{"bad opening", js, `{"south":"greedy","north":"first","opening":[9]}`, 400, "opening"},
	} {
		resp, body := postArranged(t, ts, c.ct, c.body)
		if resp.StatusCode != c.code || !strings.Contains(body, c.want) || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: %d %s, want %d with %q", c.name, resp.StatusCode, body, c.code, c.want)
		}
	}
	// A full server answers 503 with Retry-After; Remote makes it ErrBusy.
	st, err := ts.srv.StartGame(context.Background(), GameRequest{South: "greedy", North: "human"})
	if err != nil {
		t.Fatal(err)
	}
	resp, body := postArranged(t, ts, js, `{"south":"greedy","north":"first"}`)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("full server: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	r, err := Dial(context.Background(), ts.http.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.PlayArranged(context.Background(), Arranged{South: "greedy", North: "first"}); !errors.Is(err, ErrBusy) {
		t.Errorf("remote on a full server: %v", err)
	}
	ts.srv.Resign(context.Background(), st.ID, Actor{Token: st.Tokens[1]}) // freeing the place
}

// TestArrangedRefusedSeatForfeits: a player the server does not start (a
// program, where programs are not allowed; one over its limits) is not
// refused: it loses its game, stored with the reason.
func TestArrangedRefusedSeatForfeits(t *testing.T) {
	ts := newTestServer(t, "", Config{Limits: player.Limits{Time: 50 * time.Millisecond}})
	r, err := Dial(context.Background(), ts.http.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ south, reason string }{
		{"exec:true", "exec"},
		{"test-spy:time=1s", "over this server's limits"},
	} {
		res, err := r.PlayArranged(context.Background(), Arranged{South: c.south, North: "first"})
		if err != nil || res.Record.Termination != kalah.Crash || res.Record.Result != kalah.NorthWins || !strings.Contains(res.Reason, c.reason) {
			t.Fatalf("%s: %+v, %v", c.south, res, err)
		}
		if rec := checkStored(t, ts.st, res.ID, nil); len(rec.Moves) != 0 {
			t.Errorf("%s: moves %v", c.south, rec.Moves)
		}
	}
}

func TestArrangedHTTPGame(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	small := kalah.Rules{Houses: 4, Seeds: 3}
	// Two server-side players: the answer is the finished game.
	resp, body := postArranged(t, ts, "application/json",
		`{"rules":{"houses":4,"seeds":3},"south":"greedy","north":"first","opening":[2],"per_move_ms":5000,"tags":{"Event":"x"}}`)
	var reply ArrangedReply
	if err := json.Unmarshal([]byte(body), &reply); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	if id, _ := strconv.ParseInt(resp.Header.Get(GameHeader), 10, 64); id != reply.ID || id == 0 {
		t.Errorf("header %q, reply id %d", resp.Header.Get(GameHeader), reply.ID)
	}
	g, err := reply.Record.Game()
	if err != nil || !g.Over() || reply.Record.Players.South != "greedy" || reply.Record.Moves[0].House != 2 || reply.Record.Tags["Event"] != "x" {
		t.Fatalf("reply %+v: %v", reply, err)
	}
	checkStored(t, ts.st, reply.ID, nil)

	// While a game is played, newlines keep the connection busy; the
	// answer still reads as JSON.
	defer func(d time.Duration) { arranged.KeepAlive = d }(arranged.KeepAlive)
	arranged.KeepAlive = time.Millisecond
	resp, body = postArranged(t, ts, "application/json", `{"rules":{"houses":4,"seeds":3},"south":"greedy","north":"first","delay_ms":5}`)
	reply = ArrangedReply{}
	if err := json.Unmarshal([]byte(body), &reply); err != nil || resp.StatusCode != 200 || !strings.HasPrefix(body, "\n") || reply.Record.Termination != kalah.Normal {
		t.Fatalf("%d %q: %v", resp.StatusCode, body, err)
	}

	// A bot through Remote, whose connection drops mid-game: Remote
	// follows the game to its end.
	r, err := Dial(ctx, ts.http.URL)
	if err != nil {
		t.Fatal(err)
	}
	r.Poll = 10 * time.Millisecond
	alice := dial(t, ts.addr)
	alice.login("alice", "a")
	alice.send("wait")
	alice.expect("ok")
	if bots, err := r.Bots(ctx); err != nil || len(bots) != 1 || bots[0] != "alice" || r.WaitingBots()[0] != "alice" {
		t.Fatalf("bots %v %v", bots, err)
	}
	started := make(chan int64, 1)
	done := make(chan arrangedOut, 1)
	go func() {
		res, err := r.PlayArranged(ctx, Arranged{Rules: small, South: " bot:alice", North: "greedy", PerMove: 5 * time.Second,
			OnStart: func(id int64) { started <- id }})
		done <- arrangedOut{res, err}
	}()
	id := <-started
	ts.http.CloseClientConnections()
	_, end := alice.playGame()
	res := await(t, done)
	if res.ID != id || res.Record.Players.South != "bot:alice" || res.Record.Players.North != "greedy" || res.Record.Result != end.Result {
		t.Fatalf("followed game %+v, alice saw %+v", res, end)
	}
	sg, err := ts.st.Game(ctx, id)
	if err != nil || sg.Status != store.Finished || sg.Seats[0].Name != "alice" {
		t.Fatalf("stored %+v %v", sg, err)
	}
}

func TestRemoteDialErrors(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	for _, u := range []string{"ftp://x", "http://", "http://127.0.0.1:1", ts.http.URL + "/nothing"} {
		if _, err := Dial(ctx, u); err == nil {
			t.Errorf("%s: no error", u)
		}
	}
	if _, err := Dial(ctx, "http://127.0.0.1:1"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("refused: %v", err)
	}
	if _, err := Dial(ctx, ts.http.URL+"/nothing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("404: %v", err)
	}
	r, err := Dial(ctx, strings.TrimPrefix(ts.http.URL, "http://")+"/")
	if err != nil || r.URL() != ts.http.URL {
		t.Fatalf("%v %v", r, err)
	}
}

// TestArrangedHTTPServerStops: a server that stops following a game
// answers with an error once it has started, which Remote reports as
// ErrUnavailable (play the game again).
func TestArrangedHTTPServerStops(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	base, stop := context.WithCancel(context.Background())
	defer stop()
	hs := httptest.NewUnstartedServer(ts.srv.Handler())
	hs.Config.BaseContext = func(net.Listener) context.Context { return base }
	hs.Start()
	defer hs.Close()
	ctx := context.Background()
	r, err := Dial(ctx, hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	alice := dial(t, ts.addr)
	alice.login("alice", "a")
	alice.send("wait")
	alice.expect("ok")
	small := kalah.Rules{Houses: 4, Seeds: 3}
	started := make(chan int64, 1)
	done := make(chan arrangedOut, 1)
	go func() {
		res, err := r.PlayArranged(ctx, Arranged{Rules: small, South: "bot:alice", North: "greedy", PerMove: 5 * time.Second,
			OnStart: func(id int64) { started <- id }})
		done <- arrangedOut{res, err}
	}()
	id := <-started
	stop()
	if o := <-done; !errors.Is(o.err, ErrUnavailable) || o.res.ID != id || !strings.Contains(o.err.Error(), "stops following") {
		t.Fatalf("%+v %v", o.res, o.err)
	}
	alice.playGame() // the game itself plays on
	// Following a game on a server that has gone away ends: see
	// TestRemoteFollowGivesUp in server/client.
}

// FuzzArrangedHTTP posts arbitrary bodies to /api/arranged: each is
// refused with an error status and message, or played to a finished
// game; nothing panics.
func FuzzArrangedHTTP(f *testing.F) {
	for _, s := range []string{
		`{"south":"greedy","north":"first","rules":{"houses":3,"seeds":2}}`,
		`{"south":"bot:x","north":"random","rules":{"houses":2,"seeds":1},"wait_ms":1}`,
		`{"south":"first","north":"first","opening":[1,-1,2],"rules":{"houses":3,"seeds":2,"pie":true}}`,
		`{"south":"exec:true","north":"first"}`,
		`{"south":"greedy","north":"first","per_move_ms":-5,"seeds":[1,2],"tags":{"a":"b"}}`,
		`{"south":"","north":null}`,
		`[1,2]`,
		"{\"south\":\"gr\x00eedy\"",
	} {
		f.Add([]byte(s))
	}
	st, err := store.Open(":memory:")
	if err != nil {
		f.Fatal(err)
	}
	srv, err := New(Config{Store: st, ArrangedWait: time.Millisecond, PerMove: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		st.Close()
	})
	h := srv.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		var req ArrangedRequest
		if json.Unmarshal(body, &req) == nil && req.Rules.Houses*req.Rules.Seeds > 24 {
			t.Skip("a big board takes long to play")
		}
		r := httptest.NewRequest("POST", "/api/arranged", strings.NewReader(string(body)))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var reply ArrangedReply
		if err := json.Unmarshal(w.Body.Bytes(), &reply); err != nil {
			t.Fatalf("%d %q: %v", w.Code, w.Body.String(), err)
		}
		switch {
		case w.Code == http.StatusOK:
			if reply.Error != "" || reply.ID == 0 || reply.Record.Termination == kalah.NotOver {
				t.Fatalf("played: %+v", reply)
			}
		case w.Code >= 400 && w.Code < 600:
			if reply.Error == "" {
				t.Fatalf("%d without a message: %q", w.Code, w.Body.String())
			}
		default:
			t.Fatalf("status %d", w.Code)
		}
	})
}

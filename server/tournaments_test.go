package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/remote"
	"kalah/tournament"
)

// spyBuilt counts the players "test-spy" built anywhere in this process:
// a game the server refuses must build none.
var spyBuilt atomic.Int64

func init() {
	player.Register(player.Info{Name: "test-spy", Usage: "test-spy[:time=D]", Summary: "a test player that counts its births",
		New: func(sp player.Spec, o player.Options) (player.Player, error) {
			spyBuilt.Add(1)
			return firstMover{}, nil
		}})
}

// firstMover sows its first legal house.
type firstMover struct{}

func (firstMover) Move(ctx context.Context, g *kalah.Game, c player.Clock) (kalah.Move, error) {
	return g.Legal()[0], nil
}

// tourWorld is a test server with its tournaments, their part of the API
// mounted beside the server's, and bots connected with the remote client.
type tourWorld struct {
	ts    *testServer
	tours *Tournaments
	web   *httptest.Server
	ctx   context.Context
	bots  sync.WaitGroup
	errs  chan error
}

func newTourWorld(t *testing.T, cfg Config, o TournamentOptions) *tourWorld {
	t.Helper()
	ts := newTestServer(t, "", cfg)
	ctx, cancel := context.WithCancel(context.Background())
	tours, err := ts.srv.StartTournaments(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/tournaments", tours)
	mux.Handle("/api/tournaments/", tours)
	mux.Handle("/", ts.srv.Handler())
	w := &tourWorld{ts: ts, tours: tours, web: httptest.NewServer(mux), ctx: ctx, errs: make(chan error, 8)}
	// Before the server stops (its cleanup was registered first).
	t.Cleanup(func() {
		cancel()
		w.bots.Wait()
		tours.Wait()
		w.web.CloseClientConnections()
		w.web.Close()
	})
	return w
}

// call does a request with client (nil: a stranger's) and decodes a JSON
// answer into out, if not nil; headers come in pairs.
func (w *tourWorld) call(t *testing.T, client *http.Client, method, path string, body any, out any, header ...string) int {
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
	req, _ := http.NewRequest(method, w.web.URL+path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v in %q", method, path, err, data)
		}
	}
	if resp.StatusCode >= 400 && !strings.Contains(string(data), `"error"`) {
		t.Errorf("%s %s: error %d without a JSON error: %q", method, path, resp.StatusCode, data)
	}
	return resp.StatusCode
}

// account signs up a person and returns a client holding the session.
func (w *tourWorld) account(t *testing.T, name string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if code := w.call(t, c, "POST", "/api/account/signup", map[string]string{"name": name, "password": "a long password"}, nil); code != http.StatusCreated {
		t.Fatalf("sign up %s: %d", name, code)
	}
	return c
}

// ownBot makes a bot of the person signed in on c and returns its token.
func (w *tourWorld) ownBot(t *testing.T, c *http.Client, name string) string {
	t.Helper()
	var v struct{ Token string }
	if code := w.call(t, c, "POST", "/api/account/bots", map[string]string{"name": name}, &v); code != http.StatusCreated || v.Token == "" {
		t.Fatalf("bot %s: %d", name, code)
	}
	return v.Token
}

// connect puts a built-in player online as bot name, waiting for
// tournament games (it sent wait), until stop is closed or the test ends.
func (w *tourWorld) connect(t *testing.T, name, token, spec string, stop <-chan struct{}) {
	t.Helper()
	p, err := player.New(spec, player.Options{Rules: kalah.Standard(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if token == "" {
		token = "secret-" + name
	}
	ctx, cancel := context.WithCancel(w.ctx)
	c := &remote.Client{Addr: w.ts.addr, Name: name, Token: token, Player: p, Wait: true}
	w.bots.Add(1)
	go func() {
		defer w.bots.Done()
		defer cancel()
		if err := c.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			w.errs <- fmt.Errorf("bot %s: %w", name, err)
		}
	}()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(w.ts.srv.WaitingBots(), name) {
		if time.Now().After(deadline) {
			t.Fatalf("bot %s is not waiting: %v", name, w.ts.srv.WaitingBots())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// finish waits for tournament id to end and returns its state.
func (w *tourWorld) finish(t *testing.T, id string) TournamentState {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var ts TournamentState
	for {
		select {
		case err := <-w.errs:
			t.Fatal(err)
		default:
		}
		if code := w.call(t, nil, "GET", "/api/tournaments/"+id, nil, &ts); code != 200 {
			t.Fatalf("state of %s: %d", id, code)
		}
		if !ts.Running && ts.Played == ts.Total {
			break
		}
		if !ts.Running && ts.Error != "" {
			t.Fatalf("tournament %s stopped: %s", id, ts.Error)
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running: %d/%d %s", ts.Played, ts.Total, ts.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ts.Error != "" {
		t.Fatal(ts.Error)
	}
	return ts
}

// run starts a tournament over HTTP as client (nil: a stranger) and waits
// for its end.
func (w *tourWorld) run(t *testing.T, client *http.Client, req NewTournament, header ...string) TournamentState {
	t.Helper()
	var ts TournamentState
	if code := w.call(t, client, "POST", "/api/tournaments", req, &ts, header...); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	return w.finish(t, ts.ID)
}

func mustID(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkServerGames checks that every game of a finished tournament is a
// finished game of the server with the tournament's score, and that the
// server has no other game of it: none was played anywhere else.
func (w *tourWorld) checkServerGames(t *testing.T, ts TournamentState) []tournament.Played {
	t.Helper()
	ctx := context.Background()
	played, err := w.tours.Store().Games(ctx, mustID(t, ts.ID))
	if err != nil || len(played) != ts.Total || len(ts.Games) != ts.Total {
		t.Fatalf("%d games stored of %d: %v", len(played), ts.Total, err)
	}
	seen := map[string]bool{}
	for i, g := range ts.Games {
		if g.Game == "" || seen[g.Game] {
			t.Fatalf("game %d (%s-%s) has no server game of its own: %q", i, g.South, g.North, g.Game)
		}
		seen[g.Game] = true
		v, err := w.ts.srv.Game(ctx, mustID(t, g.Game))
		if err != nil || v.Status != store.Finished {
			t.Fatalf("server game %s: %+v %v", g.Game, v.GameInfo, err)
		}
		if v.Score != (kalah.Score{South: g.Score[0], North: g.Score[1]}) || g.Score != [2]int{played[i].SouthSeeds, played[i].NorthSeeds} ||
			v.Record.Tags["Tournament"] != ts.ID || played[i].Worker != "server" {
			t.Errorf("game %d: server %+v, page %v, store %+v", i, v.Score, g.Score, played[i])
		}
	}
	all, err := w.ts.srv.FinishedGames(ctx, 1000, 0, identity.ID{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range all {
		if g.Tags["Tournament"] == ts.ID {
			n++
		}
	}
	if n != ts.Total {
		t.Errorf("%d server games of tournament %s, want %d", n, ts.ID, ts.Total)
	}
	return played
}

func TestTournamentsOverHTTP(t *testing.T) {
	w := newTourWorld(t, Config{Limits: player.Limits{Time: time.Second}}, TournamentOptions{})
	small := kalah.Rules{Houses: 4, Seeds: 3}
	ts := w.run(t, nil, NewTournament{Name: "Small", Rules: small, Players: []string{"first", "greedy", "random"}, Seed: 3})
	if ts.Total != 6 || ts.Name != "Small" || len(ts.Standings) != 3 {
		t.Fatalf("finished: %+v", ts)
	}
	points, games := 0.0, 0
	for i, s := range ts.Standings {
		points += s.Points
		games += s.Games
		if s.Wins+s.Draws+s.Losses != s.Games || s.Games != 4 {
			t.Errorf("standing %+v", s)
		}
		if i > 0 && s.Points > ts.Standings[i-1].Points {
			t.Errorf("standings out of order")
		}
	}
	if points != 6 || games != 12 {
		t.Errorf("points %v games %d", points, games)
	}
	for i := range ts.Cross {
		for j := range ts.Cross {
			if i != j && ts.Cross[i][j]+ts.Cross[j][i] != 2 {
				t.Errorf("cross %d %d: %v + %v", i, j, ts.Cross[i][j], ts.Cross[j][i])
			}
		}
	}
	// Every game is the server's, and the server plays no other.
	w.checkServerGames(t, ts)
	// A gauntlet: the first player meets each of the others from both sides.
	g := w.run(t, nil, NewTournament{Format: "gauntlet", Rules: small, Players: []string{"greedy", "first", "random"}, Seed: 1})
	if g.Format != "gauntlet" || g.Total != 4 {
		t.Errorf("gauntlet: %s with %d games", g.Format, g.Total)
	}
	var list []TournamentState
	w.call(t, nil, "GET", "/api/tournaments", nil, &list)
	if len(list) != 2 || list[0].ID != g.ID || list[1].ID != ts.ID || list[1].Format != "roundrobin" {
		t.Errorf("list %+v", list)
	}
	for _, tc := range []struct {
		name string
		body any
	}{
		{"sprt", NewTournament{Format: "sprt", Rules: small, Players: []string{"first", "greedy"}}},
		{"knockout", NewTournament{Format: "knockout", Rules: small, Players: []string{"first", "greedy"}}},
		{"one player", NewTournament{Rules: small, Players: []string{"first"}}},
		{"human", NewTournament{Rules: small, Players: []string{"first", "human"}}},
		{"unknown", NewTournament{Rules: small, Players: []string{"first", "nobody"}}},
		{"program", NewTournament{Rules: small, Players: []string{"first", "exec:true"}}},
		{"over the server's limits", NewTournament{Rules: small, Players: []string{"first", "test-spy:time=2s"}}},
		{"a bot twice", NewTournament{Rules: small, Players: []string{"bot:alice", "bot:alice"}}},
		{"bad rules", NewTournament{Rules: kalah.Rules{}, Players: []string{"first", "greedy"}}},
		{"rounds", NewTournament{Rules: small, Players: []string{"first", "greedy"}, Rounds: 99}},
		{"clock", NewTournament{Rules: small, Players: []string{"first", "greedy"}, PerMoveMillis: -1}},
		{"json", "{"},
		{"unknown field", `{"players":["first","greedy"],"colour":"red"}`},
	} {
		if code := w.call(t, nil, "POST", "/api/tournaments", tc.body, nil); code != http.StatusBadRequest {
			t.Errorf("%s: %d", tc.name, code)
		}
	}
	for _, bad := range []string{"x", "999", "0", "-1"} {
		if code := w.call(t, nil, "GET", "/api/tournaments/"+bad, nil, nil); code != http.StatusNotFound {
			t.Errorf("%s: %d", bad, code)
		}
	}
	if code := w.call(t, nil, "DELETE", "/api/tournaments/"+ts.ID, nil, nil); code != http.StatusMethodNotAllowed {
		t.Errorf("delete: %d", code)
	}
}

// TestTournamentsResume: a tournament the server was running when it
// stopped goes on when its tournaments start again; one the command line
// was running is not the server's to resume.
func TestTournamentsResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kalah.db")
	ts := newTestServer(t, path, Config{})
	small := kalah.Rules{Houses: 4, Seeds: 3}
	ctx1, stop := context.WithCancel(context.Background())
	tours1, err := ts.srv.StartTournaments(ctx1, TournamentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := tours1.Create(ctx1, Organizer{}, NewTournament{Rules: small, Players: []string{"first", "greedy"}, Rounds: 2, DelayMillis: 2})
	if err != nil {
		t.Fatal(err)
	}
	for {
		s, err := tours1.State(ctx1, id)
		if err != nil {
			t.Fatal(err)
		}
		if s.Played >= 1 {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	stop()
	tours1.Wait()
	st := tours1.Store()
	if in, _ := st.Tournament(context.Background(), mustID(t, id)); in.Status != tournament.StatusStopped || in.Played == in.Games {
		t.Fatalf("the stopped tournament: %+v", in)
	}
	// One stopped on the command line is not the server's to resume.
	other, err := st.Create(context.Background(), tournament.Config{Players: []string{"first", "random"}, Rules: small, Rounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	octx, ocancel := context.WithCancel(context.Background())
	st.Run(octx, other, tournament.RunOptions{Executor: tournament.Local{Workers: 1, Name: "cli"},
		Progress: func(tournament.Progress) { ocancel() }})
	ocancel()
	if in, _ := st.Tournament(context.Background(), other); in.Status == tournament.StatusFinished || in.Played == 0 {
		t.Fatalf("the command line's tournament: %s, %d played", in.Status, in.Played)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer func() { cancel2() }()
	tours2, err := ts.srv.StartTournaments(ctx2, TournamentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tours2.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, err := tours2.State(ctx2, id)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Running {
			if s.Played != s.Total || s.Total != 4 || s.Error != "" {
				t.Fatalf("after resuming: %d/%d %q", s.Played, s.Total, s.Error)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("resumed tournament does not end")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if s, err := tours2.State(ctx2, strconv.FormatInt(other, 10)); err != nil || s.Running || !strings.Contains(s.Error, "not running here") {
		t.Errorf("the command line's tournament after the restart: %+v, %v", s, err)
	}
}

func TestTournamentOfConnectedBots(t *testing.T) {
	w := newTourWorld(t, Config{}, TournamentOptions{Wait: 5 * time.Second})
	w.connect(t, "alice", "", "greedy", nil)
	w.connect(t, "bob", "", "first", nil)
	if b := w.tours.Bots(); !slices.Equal(b, []string{"bot:alice", "bot:bob"}) {
		t.Fatalf("bots offered: %v", b)
	}
	small := kalah.Rules{Houses: 4, Seeds: 3}
	players := []string{"bot:alice", "bot:bob", "greedy", "random"}
	// Entered by a stranger: the bots accepted, by waiting.
	ts := w.run(t, nil, NewTournament{Name: "Class", Rules: small, Players: players, Rounds: 2, PerMoveMillis: 5000, Seed: 5})
	if ts.Total != 24 || len(ts.Games) != 24 {
		t.Fatalf("%d games of %d", len(ts.Games), ts.Total)
	}
	count := map[[2]string]int{}
	for _, g := range ts.Games {
		if !g.Done {
			t.Fatalf("game not done: %+v", g)
		}
		count[[2]string{g.South, g.North}]++
	}
	for _, a := range players {
		for _, b := range players {
			if want := map[bool]int{true: 0, false: 2}[a == b]; count[[2]string{a, b}] != want {
				t.Errorf("%s-%s played %d times, want %d", a, b, count[[2]string{a, b}], want)
			}
		}
	}
	played := w.checkServerGames(t, ts)
	ctx := context.Background()
	for i, g := range ts.Games {
		v, _ := w.ts.srv.Game(ctx, mustID(t, g.Game))
		if v.Termination != kalah.Normal || played[i].Reason != "" {
			t.Errorf("game %d ended %s: %s", i, v.Termination, played[i].Reason)
		}
		if want := strings.TrimPrefix(g.South, "bot:"); v.South != want {
			t.Errorf("game %d: server South %s, want %s", i, v.South, want)
		}
	}
}

// TestTournamentWithAbsentBot: the admin may enter a bot that is not
// there; each of its games waits for it, then it loses them, on the
// server.
func TestTournamentWithAbsentBot(t *testing.T) {
	wait := 300 * time.Millisecond
	w := newTourWorld(t, Config{AdminToken: "admin"}, TournamentOptions{Wait: wait})
	w.connect(t, "alice", "", "greedy", nil)
	small := kalah.Rules{Houses: 4, Seeds: 3}
	start := time.Now()
	ts := w.run(t, nil, NewTournament{Rules: small, Players: []string{"bot:alice", "bot:ghost", "first"}, PerMoveMillis: 5000, Seed: 2},
		"Authorization", "Bearer admin")
	if el := time.Since(start); el < 4*wait {
		t.Errorf("finished in %v, though ghost's 4 games each wait %v", el, wait)
	}
	played := w.checkServerGames(t, ts)
	for _, s := range ts.Standings {
		if s.Player == "bot:ghost" && (s.Losses != 4 || s.Points != 0) {
			t.Errorf("ghost: %+v", s)
		}
	}
	for i, g := range ts.Games {
		if g.South != "bot:ghost" && g.North != "bot:ghost" {
			continue
		}
		if played[i].Termination != kalah.Disconnect.String() || !strings.Contains(played[i].Reason, "ghost") || !strings.Contains(g.Reason, "ghost") {
			t.Errorf("ghost's game %d: %s %q", i, played[i].Termination, played[i].Reason)
		}
	}
}

// TestWhoMayEnterABot: a bot enters a tournament by its owner, by the
// admin token, or by its own acceptance (logged in, waiting for
// tournament games); anyone else naming it is refused, and nothing is
// stored.
func TestWhoMayEnterABot(t *testing.T) {
	w := newTourWorld(t, Config{AdminToken: "admin"}, TournamentOptions{Wait: 200 * time.Millisecond})
	alice, bob := w.account(t, "alice"), w.account(t, "bob")
	w.ownBot(t, alice, "alicebot")
	carolToken := w.ownBot(t, bob, "bobbot")
	small := kalah.Rules{Houses: 3, Seeds: 2}
	req := func(bot string) NewTournament {
		return NewTournament{Rules: small, Players: []string{"bot:" + bot, "first"}, PerMoveMillis: 5000}
	}
	create := func(c *http.Client, bot string, header ...string) int {
		t.Helper()
		var ts TournamentState
		code := w.call(t, c, "POST", "/api/tournaments", req(bot), &ts, header...)
		if code == http.StatusCreated {
			w.finish(t, ts.ID)
		}
		return code
	}
	stored := func() int {
		list, err := w.tours.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	for _, tc := range []struct {
		name   string
		client *http.Client
		bot    string
		header []string
		want   int
	}{
		{"a guest", nil, "alicebot", nil, http.StatusUnauthorized},
		{"someone else's bot, not waiting", bob, "alicebot", nil, http.StatusForbidden},
		{"a bot nobody owns, not waiting", bob, "stranger", nil, http.StatusForbidden},
		{"a wrong admin token", nil, "alicebot", []string{"Authorization", "Bearer nope"}, http.StatusUnauthorized},
		{"its owner", alice, "alicebot", nil, http.StatusCreated},
		{"the admin token", nil, "alicebot", []string{"Authorization", "Bearer admin"}, http.StatusCreated},
	} {
		before := stored()
		if code := create(tc.client, tc.bot, tc.header...); code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.want)
		}
		if added := stored() - before; added != map[bool]int{true: 1, false: 0}[tc.want == http.StatusCreated] {
			t.Errorf("%s: %d tournaments stored", tc.name, added)
		}
	}
	// bob's bot waits for tournament games: it accepts them from anyone.
	stop := make(chan struct{})
	w.connect(t, "bobbot", carolToken, "greedy", stop)
	if code := create(alice, "bobbot"); code != http.StatusCreated {
		t.Errorf("a waiting bot entered by someone else: %d", code)
	}
	// Gone, it accepts nothing more.
	close(stop)
	deadline := time.Now().Add(10 * time.Second)
	for slices.Contains(w.ts.srv.WaitingBots(), "bobbot") {
		if time.Now().After(deadline) {
			t.Fatal("bobbot still waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if code := create(alice, "bobbot"); code != http.StatusForbidden {
		t.Errorf("a bot gone, entered by someone else: %d", code)
	}
	if code := create(bob, "bobbot"); code != http.StatusCreated {
		t.Errorf("a bot gone, entered by its owner: %d", code)
	}
}

// TestRefusedTournamentGameIsForfeit: a tournament game the server will
// not play as asked (a player over its --max-think) is played on the
// server with that seat forfeited and the reason stored, in the
// tournament and in the server's games; it is not played anywhere else
// (the player is never built). Both for the server's own tournaments
// (one made before the limit was lowered) and for kalah tournament
// --server (a tournament of another machine, over HTTP).
func TestRefusedTournamentGameIsForfeit(t *testing.T) {
	w := newTourWorld(t, Config{AdminToken: "admin", Limits: player.Limits{Time: 50 * time.Millisecond}}, TournamentOptions{})
	ctx := context.Background()
	small := kalah.Rules{Houses: 4, Seeds: 3}
	before := spyBuilt.Load()
	checkForfeits := func(t *testing.T, st *tournament.Store, id int64, want int) {
		t.Helper()
		played, err := st.Games(ctx, id)
		if err != nil || len(played) != want {
			t.Fatalf("%d games played, want %d (%v)", len(played), want, err)
		}
		for _, p := range played {
			rec, err := st.Record(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			spy := 0
			if rec.Players.North == "test-spy:time=400ms" {
				spy = 1
			}
			if p.Termination != kalah.Crash.String() || !strings.Contains(p.Reason, "over this server's limits") ||
				!strings.HasPrefix(p.Worker, "server") || [2]int{p.SouthSeeds, p.NorthSeeds}[spy] >= [2]int{p.SouthSeeds, p.NorthSeeds}[1-spy] {
				t.Errorf("game %d: %+v", p.ID, p)
			}
		}
		// The server stored them, forfeited, with the reason.
		forfeits := 0
		all, err := w.ts.srv.FinishedGames(ctx, 1000, 0, identity.ID{})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range all {
			if g.Tags["Tournament"] == strconv.FormatInt(id, 10) && g.Termination == kalah.Crash && strings.Contains(g.Tags[ReasonTag], "over this server's limits") {
				forfeits++
			}
		}
		if forfeits < want {
			t.Errorf("%d forfeits stored by the server, want %d", forfeits, want)
		}
	}

	// The server's own: made when its limit was higher, resumed now.
	st := w.tours.Store()
	id, err := st.Create(ctx, tournament.Config{Name: "made before", Players: []string{"first", "test-spy:time=400ms"}, Rules: small,
		Organizer: OrganizerServer, Clock: tournament.Clock{PerMove: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := w.tours.Resume(ctx); err != nil || len(ids) != 1 {
		t.Fatalf("resumed %v, %v", ids, err)
	}
	ts := w.finish(t, strconv.FormatInt(id, 10))
	w.checkServerGames(t, ts)
	checkForfeits(t, st, id, 2)

	// kalah tournament --server: the tournament is the command line's,
	// its bot game is played on the server.
	w.connect(t, "alice", "", "greedy", nil)
	r, err := Dial(ctx, w.web.URL)
	if err != nil {
		t.Fatal(err)
	}
	r.Token = "admin"
	cli, err := tournament.Open(filepath.Join(t.TempDir(), "cli.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	cid, err := cli.Create(ctx, tournament.Config{Players: []string{"bot:alice", "test-spy:time=400ms"}, Rules: small,
		Clock: tournament.Clock{PerMove: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	x := &TournamentExecutor{Server: r, Rest: tournament.Local{Workers: 1}, Worker: "server " + r.URL()}
	if err := cli.Run(ctx, cid, tournament.RunOptions{Executor: x}); err != nil {
		t.Fatal(err)
	}
	played, err := cli.Games(ctx, cid)
	if err != nil || len(played) != 2 {
		t.Fatalf("the command line's games: %+v, %v", played, err)
	}
	for _, p := range played {
		rec, _ := cli.Record(ctx, p.ID)
		spySouth := rec.Players.South != "bot:alice"
		lost := p.SouthSeeds < p.NorthSeeds
		if p.Termination != kalah.Crash.String() || !strings.Contains(p.Reason, "over this server's limits") || lost != spySouth {
			t.Errorf("the command line's game %d: %+v", p.ID, p)
		}
	}
	if n := spyBuilt.Load() - before; n != 0 {
		t.Errorf("the refused player was built %d times", n)
	}
}

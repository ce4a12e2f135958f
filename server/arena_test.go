package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
)

// peopleWorld is a tourWorld whose people play their tournament games
// over the HTTP API: the first legal move whenever it is their turn.
type peopleWorld struct {
	*tourWorld
	mu      sync.Mutex
	clients map[string]*http.Client // by identity key
	stop    chan struct{}
	done    sync.WaitGroup
}

func newPeopleWorld(t *testing.T, cfg Config, o TournamentOptions) *peopleWorld {
	w := &peopleWorld{tourWorld: newTourWorld(t, cfg, o), clients: map[string]*http.Client{}, stop: make(chan struct{})}
	t.Cleanup(func() {
		close(w.stop)
		w.done.Wait()
	})
	return w
}

// person signs up name; they play their games of tournament tid (their
// page, as it were, open on it) until the test ends.
func (w *peopleWorld) person(t *testing.T, name, tid string) *http.Client {
	t.Helper()
	c := w.account(t, name)
	w.mu.Lock()
	w.clients[identity.Of(identity.Person, name).Key()] = c
	w.mu.Unlock()
	if tid != "" {
		w.plays(t, c, name, tid)
	}
	return c
}

// plays has c (person name) play their games of tournament tid.
func (w *peopleWorld) plays(t *testing.T, c *http.Client, name, tid string) {
	me := identity.Of(identity.Person, name)
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			var st PeopleTournamentState
			if w.quietCall(c, "GET", "/api/tournaments/"+tid, nil, &st) != 200 || st.You == nil || st.You.Game == "" {
				continue
			}
			var b Board
			if w.quietCall(c, "GET", "/api/games/"+st.You.Game+"/board", nil, &b) != 200 || b.Over || len(b.Legal) == 0 || !b.Seats[b.ToMoveSeat].ID.Is(me) {
				continue
			}
			w.quietCall(c, "POST", "/api/games/"+st.You.Game+"/move", map[string]string{"move": b.Legal[0]}, nil)
		}
	}()
}

// quietCall is call without a test to fail: for goroutines.
func (w *peopleWorld) quietCall(c *http.Client, method, path string, body, out any) int {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, w.web.URL+path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == 200 {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return 0
		}
	}
	return resp.StatusCode
}

// peopleState returns tournament id's state as c sees it.
func (w *peopleWorld) peopleState(t *testing.T, c *http.Client, id string) PeopleTournamentState {
	t.Helper()
	var st PeopleTournamentState
	if code := w.call(t, c, "GET", "/api/tournaments/"+id, nil, &st); code != 200 {
		t.Fatalf("state of %s: %d", id, code)
	}
	return st
}

// waitPeople waits until tournament id's state satisfies ok.
func (w *peopleWorld) waitPeople(t *testing.T, id string, within time.Duration, ok func(PeopleTournamentState) bool) PeopleTournamentState {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		select {
		case err := <-w.errs:
			t.Fatal(err)
		default:
		}
		st := w.peopleState(t, nil, id)
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("tournament %s: still %s, round %d, %d played; standings %+v; games %+v", id, st.Status, st.Round, st.Played, st.Standings, st.Games)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPeopleSwissWithBye: a Swiss of two people and a bot that joins by
// its own token: three rounds, each of one game and a bye; everyone sits
// out once, meets each other once, and the standings, the games (each a
// finished server game of the tournament, its result the table's) and
// the winner agree. Strangers cannot join; nobody joins a finished one.
func TestPeopleSwissWithBye(t *testing.T) {
	w := newPeopleWorld(t, Config{}, TournamentOptions{RoundPause: -1})
	alice := w.person(t, "alice", "")
	w.connect(t, "deep", "deep-token", "first", nil)
	var st PeopleTournamentState
	req := map[string]any{"people": true, "format": "swiss", "name": "Friday Swiss", "rounds": 3, "clock_ms": 60000, "increment_ms": 1000, "starts_in_s": 2}
	if code := w.call(t, alice, "POST", "/api/tournaments", req, &st); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	id := st.ID
	if !strings.HasPrefix(id, "p") || st.Status != store.TourWaiting || st.Format != FormatSwiss || st.You == nil || !st.You.Active || st.Creator != "alice" {
		t.Fatalf("created: %+v", st)
	}
	w.plays(t, alice, "alice", id)
	bob := w.person(t, "bob", id)
	// A stranger cannot join, nor enter someone's bot.
	if code := w.call(t, nil, "POST", "/api/tournaments/"+id+"/join", map[string]string{}, nil); code != http.StatusUnauthorized {
		t.Errorf("a stranger joins: %d", code)
	}
	if code := w.call(t, bob, "POST", "/api/tournaments/"+id+"/join", map[string]string{"bot": "nosuchbot"}, nil); code != http.StatusForbidden {
		t.Errorf("bob enters a bot not his: %d", code)
	}
	if code := w.call(t, bob, "POST", "/api/tournaments/"+id+"/join", map[string]string{}, &st); code != 200 || !st.You.Active {
		t.Fatalf("bob joins: %d %+v", code, st.You)
	}
	// The bot joins by its own token.
	if code := w.call(t, nil, "POST", "/api/tournaments/"+id+"/join", "", &st, "Authorization", "Bearer deep-token"); code != 200 || !st.You.ID.Is(identity.Of(identity.Bot, "deep")) {
		t.Fatalf("the bot joins itself: %d %+v", code, st.You)
	}
	st = w.waitPeople(t, id, 60*time.Second, func(s PeopleTournamentState) bool { return s.Status == store.TourFinished })
	if st.Round != 3 || st.Played != 3 || len(st.Games) != 3 || len(st.Standings) != 3 || st.Note != "" {
		t.Fatalf("finished: round %d, %d played, games %+v, standings %+v, note %q", st.Round, st.Played, st.Games, st.Standings, st.Note)
	}
	met := map[string]bool{}
	points := map[string]int{}
	for _, g := range st.Games {
		if !g.Done || !g.Counted || g.Game == "" {
			t.Errorf("game %+v", g)
			continue
		}
		pair := []string{g.SouthID.Key(), g.NorthID.Key()}
		slices.Sort(pair)
		if met[strings.Join(pair, "-")] {
			t.Errorf("%s met twice", pair)
		}
		met[strings.Join(pair, "-")] = true
		v, err := w.ts.srv.Game(context.Background(), mustID(t, g.Game))
		if err != nil || v.Status != store.Finished || v.Record.Tags[PeopleTournamentTag] != id || v.Record.Tags["Round"] != fmt.Sprint(g.Round) {
			t.Fatalf("server game %s: %+v %v", g.Game, v.GameInfo, err)
		}
		want := map[kalah.Result]string{kalah.SouthWins: "1-0", kalah.NorthWins: "0-1", kalah.Draw: "½-½"}[v.Record.Result]
		if g.Result != want || v.SouthID != g.SouthID {
			t.Errorf("game %s: the table says %s, the server %v", g.Game, g.Result, v.Record.Result)
		}
		points[g.SouthID.Key()] += g.Points[0]
		points[g.NorthID.Key()] += g.Points[1]
	}
	for i, s := range st.Standings {
		if s.Byes != 1 || s.Games != 2 || s.Points != points[s.ID.Key()]+2 || s.Rank != i+1 {
			t.Errorf("standing %+v (points from the games %d)", s, points[s.ID.Key()])
		}
		if i > 0 && s.Points > st.Standings[i-1].Points {
			t.Errorf("standings out of order: %+v", st.Standings)
		}
	}
	if st.Winner == "" || st.Winner != st.Standings[0].Name {
		t.Errorf("winner %q, standings %+v", st.Winner, st.Standings)
	}
	// It is listed, and over: nobody joins it any more.
	var list []TournamentState
	w.call(t, nil, "GET", "/api/tournaments", nil, &list)
	if len(list) != 1 || list[0].ID != id || !list[0].People || list[0].Status != store.TourFinished || len(list[0].Players) != 3 {
		t.Errorf("list %+v", list)
	}
	carol := w.person(t, "carol", "")
	if code := w.call(t, carol, "POST", "/api/tournaments/"+id+"/join", map[string]string{}, nil); code != http.StatusConflict {
		t.Errorf("joining a finished tournament: %d", code)
	}
}

// shortArena makes an arena of alice's with left to play (it "started" a
// minute less left ago), under a 10+0 clock, and runs it.
func (w *peopleWorld) shortArena(t *testing.T, left time.Duration) string {
	t.Helper()
	ctx := context.Background()
	p := w.tours.people
	alice := identity.Of(identity.Person, "alice")
	n, err := p.st.CreatePeopleTournament(ctx, store.PeopleTournament{Name: "Blitz", Format: FormatArena, Creator: alice, Rules: kalah.Standard(),
		ClockMS: 10000, Minutes: 1, Rated: true, Starts: time.Now().Add(left - time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.st.JoinPeopleTournament(ctx, n, alice, maxPeopleEntrants); err != nil {
		t.Fatal(err)
	}
	if !p.start(n) {
		t.Fatal("not started")
	}
	return peopleIDString(n)
}

// TestPeopleArena: three people, a bot its owner entered and a person
// who never moves play an arena to its end: whoever's game ends is paired
// again, nobody plays two games at once, the one who never moved is
// withdrawn after the abort, one who withdraws is paired no more, every
// game is a finished server game of the arena, and the standings add up
// the games' points, the winner first.
func TestPeopleArena(t *testing.T) {
	w := newPeopleWorld(t, Config{AbortAfter: 1500 * time.Millisecond}, TournamentOptions{})
	alice := w.person(t, "alice", "")
	tok := w.ownBot(t, alice, "alicebot")
	w.connect(t, "alicebot", tok, "first", nil)
	id := w.shortArena(t, 12*time.Second)
	w.plays(t, alice, "alice", id)
	if code := w.call(t, alice, "POST", "/api/tournaments/"+id+"/join", map[string]string{"bot": "alicebot"}, nil); code != 200 {
		t.Fatalf("alice enters her bot: %d", code)
	}
	var clients []*http.Client
	for _, name := range []string{"bob", "carol"} {
		c := w.person(t, name, id)
		if code := w.call(t, c, "POST", "/api/tournaments/"+id+"/join", map[string]string{}, nil); code != 200 {
			t.Fatalf("%s joins: %d", name, code)
		}
		clients = append(clients, c)
	}
	dave := w.person(t, "dave", "") // joins, never moves
	if code := w.call(t, dave, "POST", "/api/tournaments/"+id+"/join", "", nil); code != 200 {
		t.Fatalf("dave joins: %d", code)
	}
	// carol withdraws once she has played two games.
	st := w.waitPeople(t, id, 20*time.Second, func(s PeopleTournamentState) bool {
		for _, x := range s.Standings {
			if x.Name == "carol" && x.Games >= 2 {
				return true
			}
		}
		return false
	})
	var left PeopleTournamentState
	if code := w.call(t, clients[1], "POST", "/api/tournaments/"+id+"/withdraw", map[string]string{}, &left); code != 200 || left.You.Active {
		t.Fatalf("carol withdraws: %d %+v", code, left.You)
	}
	withdrew := time.Now()
	st = w.waitPeople(t, id, 30*time.Second, func(s PeopleTournamentState) bool { return s.Status == store.TourFinished })
	// Games still in play at the end go on; wait for them, then look.
	st = w.waitPeople(t, id, 30*time.Second, func(s PeopleTournamentState) bool {
		return !slices.ContainsFunc(s.Games, func(g PeopleGame) bool { return !g.Done })
	})
	ctx := context.Background()
	type span struct{ from, to time.Time }
	busy := map[string][]span{}
	games := map[string]int{} // counted, by player
	aborted := 0
	pairings, err := w.tours.people.st.PeoplePairings(ctx, mustID(t, strings.TrimPrefix(id, "p")))
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range pairings {
		if pr.Game == 0 {
			continue
		}
		v, err := w.ts.srv.Game(ctx, pr.Game)
		if err != nil || v.Status != store.Finished || v.Tags[PeopleTournamentTag] != id || v.Tags[tagClock] != "10000" {
			t.Fatalf("server game %d: %+v %v", pr.Game, v.GameInfo, err)
		}
		for _, who := range []identity.ID{pr.South, pr.North} {
			busy[who.Key()] = append(busy[who.Key()], span{v.Created, v.Finished})
			if who.Name == "carol" && pr.Paired.After(withdrew) {
				t.Errorf("carol paired after she withdrew: %+v", pr)
			}
		}
		if v.Termination == kalah.Aborted {
			aborted++
			if pr.Counted || !strings.HasPrefix(pr.Note, "aborted") {
				t.Errorf("aborted game counted: %+v", pr)
			}
		}
	}
	listed := 0
	for _, pr := range pairings {
		if pr.Game != 0 || pr.Result != store.PairNone {
			listed++
		}
		if pr.Counted {
			games[pr.South.Key()]++
			games[pr.North.Key()]++
		}
	}
	if st.GamesTotal != listed || len(st.Games) != min(listed, maxListedGames) {
		t.Errorf("%d games listed of %d, %d pairings", len(st.Games), st.GamesTotal, listed)
	}
	for who, spans := range busy {
		for i := range spans {
			for j := range i {
				if spans[i].from.Before(spans[j].to) && spans[j].from.Before(spans[i].to) {
					t.Errorf("%s played two games at once: %v and %v", who, spans[i], spans[j])
				}
			}
		}
	}
	if aborted == 0 {
		t.Error("dave's game was not aborted")
	}
	for i, s := range st.Standings {
		sum := 0
		for _, p := range s.Scores {
			sum += p
		}
		if s.Points != sum || s.Games != games[s.ID.Key()] || s.Rank != i+1 || len(s.Scores) != s.Games {
			t.Errorf("standing %+v: %d counted games", s, games[s.ID.Key()])
		}
		if i > 0 && s.Points > st.Standings[i-1].Points {
			t.Errorf("out of order: %+v", st.Standings)
		}
		switch s.Name {
		case "dave":
			if s.Active || s.Games != 0 {
				t.Errorf("dave, who never moved: %+v", s)
			}
		case "carol":
			if s.Active {
				t.Errorf("carol withdrew: %+v", s)
			}
		default:
			if s.Games < 2 {
				t.Errorf("%s played %d games in the arena", s.Name, s.Games)
			}
		}
	}
	if len(st.Standings) != 5 || st.Winner != st.Standings[0].Name || st.Winner == "" || st.Played == 0 {
		t.Errorf("winner %q, %d played, standings %+v", st.Winner, st.Played, st.Standings)
	}
	// Whoever stayed got games in turn: nobody waited while two others
	// played each other again and again.
	most, least := 0, 1<<30
	for _, s := range st.Standings {
		if s.Active && s.Name != "dave" {
			most, least = max(most, s.Games), min(least, s.Games)
		}
	}
	if least < most/2 {
		t.Errorf("games of those who stayed: %d to %d", least, most)
	}
	// The page of the last game names its tournament.
	var b Board
	if code := w.call(t, nil, "GET", "/api/games/"+st.Games[0].Game+"/board", nil, &b); code != 200 || b.Tournament != id {
		t.Errorf("board of %s: %d, tournament %q", st.Games[0].Game, code, b.Tournament)
	}
}

// TestArenaLateGameNotCounted: a game still in play when the arena ends
// goes on, but counts for nothing; with no game counted, there is no
// winner.
func TestArenaLateGameNotCounted(t *testing.T) {
	w := newPeopleWorld(t, Config{}, TournamentOptions{})
	alice := w.person(t, "alice", "")
	id := w.shortArena(t, 2*time.Second)
	bob := w.person(t, "bob", "")
	if code := w.call(t, bob, "POST", "/api/tournaments/"+id+"/join", map[string]string{}, nil); code != 200 {
		t.Fatalf("bob joins: %d", code)
	}
	st := w.waitPeople(t, id, 10*time.Second, func(s PeopleTournamentState) bool { return len(s.Games) == 1 })
	st = w.waitPeople(t, id, 10*time.Second, func(s PeopleTournamentState) bool { return s.Status == store.TourFinished })
	if st.Games[0].Done || st.Winner != "" {
		t.Fatalf("at the end: %+v, winner %q", st.Games, st.Winner)
	}
	if code := w.call(t, bob, "POST", "/api/tournaments/"+id+"/join", map[string]string{}, nil); code != http.StatusConflict {
		t.Errorf("joining an arena that is over: %d", code)
	}
	w.plays(t, alice, "alice", id)
	w.plays(t, bob, "bob", id)
	st = w.waitPeople(t, id, 20*time.Second, func(s PeopleTournamentState) bool { return s.Games[0].Done })
	g := st.Games[0]
	if g.Counted || g.Result == "" || g.Result == "-" || !strings.Contains(g.Note, "not counted") || st.Played != 0 || st.Winner != "" {
		t.Errorf("the late game: %+v; %d played, winner %q", g, st.Played, st.Winner)
	}
	for _, s := range st.Standings {
		if s.Points != 0 || s.Games != 0 {
			t.Errorf("%+v", s)
		}
	}
}

// movePeople plays, until stop closes, the first legal move for every
// person to move in tournament id's live games on srv.
func movePeople(t *testing.T, srv *Server, tours *Tournaments, id string, stop <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx := context.Background()
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			st, err := tours.people.State(ctx, id, identity.ID{})
			if err != nil {
				continue
			}
			for _, g := range st.Games {
				n, _ := strconv.ParseInt(g.Game, 10, 64)
				r := srv.liveRound(n)
				if r == nil {
					continue
				}
				v := r.View()
				if v == nil || v.G.Over() {
					continue
				}
				seat := v.G.Seat(v.G.ToMove())
				if v.Seats[seat].Kind == "human" {
					srv.Move(ctx, n, Actor{ID: v.Seats[seat].ID}, v.G.Legal()[0])
				}
			}
		}
	}()
	return done
}

// TestPeopleSwissResume: a server that stops in the middle of a Swiss
// round resumes its game where it was, and the tournament goes on to its
// end with no game paired twice.
func TestPeopleSwissResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kalah.db")
	cfg := Config{ResumeGrace: 100 * time.Millisecond}
	ts := newTestServer(t, path, cfg)
	ctx1, stop1 := context.WithCancel(context.Background())
	defer stop1()
	tours, err := ts.srv.StartTournaments(ctx1, TournamentOptions{RoundPause: -1})
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := identity.Of(identity.Person, "alice"), identity.Of(identity.Person, "bob")
	id, err := tours.people.Create(ctx1, alice, NewPeopleTournament{Format: FormatSwiss, Rounds: 2, ClockMS: 60000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tours.people.Join(ctx1, id, Actor{ID: bob}, Organizer{}, ""); err != nil {
		t.Fatal(err)
	}
	var first PeopleGame
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st, err := tours.people.State(ctx1, id, identity.ID{})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Games) == 1 && st.Games[0].Game != "" {
			first = st.Games[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no game: %+v", st)
		}
	}
	game := mustID(t, first.Game)
	if err := ts.srv.Move(ctx1, game, Actor{ID: first.SouthID}, 1); err != nil {
		t.Fatal(err)
	}
	stop1()
	tours.Wait()
	ts.stop()

	ts = newTestServer(t, path, cfg)
	ctx2, stop2 := context.WithCancel(context.Background())
	defer stop2()
	tours, err = ts.srv.StartTournaments(ctx2, TournamentOptions{RoundPause: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { stop2(); tours.Wait() }()
	quit := make(chan struct{})
	moving := movePeople(t, ts.srv, tours, id, quit)
	defer func() { close(quit); <-moving }()
	var st PeopleTournamentState
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if st, err = tours.people.State(ctx2, id, identity.ID{}); err != nil {
			t.Fatal(err)
		}
		if st.Status == "finished" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not finished after the restart: %+v", st)
		}
	}
	if st.Round != 2 || len(st.Games) != 2 || st.Played != 2 || st.Games[1].Game != first.Game {
		t.Fatalf("after the restart: round %d, games %+v", st.Round, st.Games)
	}
	v, err := ts.srv.Game(ctx2, game)
	if err != nil || v.Status != store.Finished || len(v.Record.Moves) < 2 || v.Record.Moves[0].House != 1 || v.Termination != kalah.Normal {
		t.Errorf("the game resumed: %+v %v", v.GameInfo, err)
	}
}

// TestPeopleSwissAbsentBot: a bot its owner entered that is not there
// for its game (not logged in) loses it once the server's ArrangedWait
// has passed, and no game is started for it.
func TestPeopleSwissAbsentBot(t *testing.T) {
	w := newPeopleWorld(t, Config{ArrangedWait: 300 * time.Millisecond}, TournamentOptions{RoundPause: -1})
	alice := w.person(t, "alice", "")
	w.ownBot(t, alice, "ghost")
	var st PeopleTournamentState
	req := map[string]any{"people": true, "format": "swiss", "rounds": 1, "clock_ms": 60000, "starts_in_s": 1}
	if code := w.call(t, alice, "POST", "/api/tournaments", req, &st); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	if code := w.call(t, alice, "POST", "/api/tournaments/"+st.ID+"/join", map[string]string{"bot": "ghost"}, nil); code != 200 {
		t.Fatalf("alice enters her bot: %d", code)
	}
	st = w.waitPeople(t, st.ID, 10*time.Second, func(s PeopleTournamentState) bool { return s.Status == store.TourFinished })
	if len(st.Games) != 1 || st.Games[0].Game != "" || !st.Games[0].Counted || !strings.Contains(st.Games[0].Note, "ghost was not free") ||
		st.Winner != "alice" || st.Standings[0].Points != 2 {
		t.Errorf("games %+v, winner %q, standings %+v", st.Games, st.Winner, st.Standings)
	}
}

// TestPeopleTournamentRefusals: what a people's tournament refuses, each
// with a clear error and its status, and nothing stored for it.
func TestPeopleTournamentRefusals(t *testing.T) {
	w := newPeopleWorld(t, Config{}, TournamentOptions{})
	alice := w.person(t, "alice", "")
	bob := w.person(t, "bob", "")
	w.ownBot(t, bob, "bobbot")
	ok := map[string]any{"people": true, "format": "arena", "minutes": 5, "clock_ms": 60000, "starts_in_s": 600}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range ok {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		what   string
		client *http.Client
		body   any
		code   int
	}{
		{"a stranger", nil, ok, http.StatusUnauthorized},
		{"no format", alice, with("format", nil), http.StatusBadRequest},
		{"a round robin of people", alice, with("format", "roundrobin"), http.StatusBadRequest},
		{"no clock", alice, with("clock_ms", nil), http.StatusBadRequest},
		{"a clock of 3 s", alice, with("clock_ms", 3000), http.StatusBadRequest},
		{"an increment of two minutes", alice, with("increment_ms", 120000), http.StatusBadRequest},
		{"an arena of no minutes", alice, with("minutes", nil), http.StatusBadRequest},
		{"an arena of a day", alice, with("minutes", 24*60), http.StatusBadRequest},
		{"an arena with rounds", alice, with("rounds", 3), http.StatusBadRequest},
		{"a swiss with minutes", alice, with("format", "swiss"), http.StatusBadRequest},
		{"a start in the past", alice, with("starts_in_s", -5), http.StatusBadRequest},
		{"a start next month", alice, with("starts_in_s", 40*24*3600), http.StatusBadRequest},
		{"a players list", alice, with("players", []string{"greedy"}), http.StatusBadRequest},
		{"a seed", alice, with("seed", 7), http.StatusBadRequest},
		{"bad rules", alice, with("rules", map[string]any{"houses": 99, "seeds": 4}), http.StatusBadRequest},
		{"an unknown field", alice, with("berserk", true), http.StatusBadRequest},
		{"a clock for computers", alice, map[string]any{"players": []string{"first", "greedy"}, "clock_ms": 60000}, http.StatusBadRequest},
		{"an arena of computers", alice, map[string]any{"players": []string{"first", "greedy"}, "format": "arena"}, http.StatusBadRequest},
	} {
		if code := w.call(t, c.client, "POST", "/api/tournaments", c.body, nil); code != c.code {
			t.Errorf("%s: %d, want %d", c.what, code, c.code)
		}
	}
	var list []TournamentState
	if w.call(t, nil, "GET", "/api/tournaments", nil, &list); len(list) != 0 {
		t.Fatalf("refused tournaments stored: %+v", list)
	}
	// A person has at most three unfinished.
	var ids []string
	for range maxPeopleByCreator {
		var st PeopleTournamentState
		if code := w.call(t, alice, "POST", "/api/tournaments", ok, &st); code != http.StatusCreated {
			t.Fatalf("create: %d", code)
		}
		ids = append(ids, st.ID)
	}
	if code := w.call(t, alice, "POST", "/api/tournaments", ok, nil); code != http.StatusTooManyRequests {
		t.Errorf("a fourth: %d", code)
	}
	id := ids[0]
	for _, c := range []struct {
		what         string
		client       *http.Client
		path, body   string
		code         int
		header, auth string
	}{
		{"a stranger joins", nil, id + "/join", `{}`, http.StatusUnauthorized, "", ""},
		{"a wrong bot token", nil, id + "/join", `{}`, http.StatusUnauthorized, "Authorization", "Bearer nope"},
		{"alice enters bob's bot", alice, id + "/join", `{"bot":"bobbot"}`, http.StatusForbidden, "", ""},
		{"a bot's name that is none", bob, id + "/join", `{"bot":"no such/bot"}`, http.StatusBadRequest, "", ""},
		{"an unknown field", bob, id + "/join", `{"seat":1}`, http.StatusBadRequest, "", ""},
		{"no such tournament", bob, "p999/join", `{}`, http.StatusNotFound, "", ""},
		{"a tournament id that is none", bob, "px/join", `{}`, http.StatusNotFound, "", ""},
		{"joining a computers' tournament", bob, "1/join", `{}`, http.StatusBadRequest, "", ""},
		{"withdrawing who never joined", bob, id + "/withdraw", `{}`, http.StatusBadRequest, "", ""},
		{"an unknown action", bob, id + "/berserk", `{}`, http.StatusNotFound, "", ""},
	} {
		var h []string
		if c.header != "" {
			h = []string{c.header, c.auth}
		}
		if code := w.call(t, c.client, "POST", "/api/tournaments/"+c.path, c.body, nil, h...); code != c.code {
			t.Errorf("%s: %d, want %d", c.what, code, c.code)
		}
	}
	if code := w.call(t, bob, "GET", "/api/tournaments/"+id+"/join", nil, nil); code != http.StatusMethodNotAllowed {
		t.Errorf("GET join: %d", code)
	}
	// Bob's bot, entered by bob, is withdrawn by bob and by nobody else.
	if code := w.call(t, bob, "POST", "/api/tournaments/"+id+"/join", `{"bot":"BobBot"}`, nil); code != 200 {
		t.Fatalf("bob enters his bot: %d", code)
	}
	if code := w.call(t, alice, "POST", "/api/tournaments/"+id+"/withdraw", `{"bot":"bobbot"}`, nil); code != http.StatusForbidden {
		t.Errorf("alice withdraws bob's bot: %d", code)
	}
	var st PeopleTournamentState
	if code := w.call(t, bob, "POST", "/api/tournaments/"+id+"/withdraw", `{"bot":"bobbot"}`, &st); code != 200 {
		t.Errorf("bob withdraws his bot: %d", code)
	}
	if i := slices.IndexFunc(st.Standings, func(s PeopleStanding) bool { return s.Name == "bobbot" }); i < 0 || st.Standings[i].Active {
		t.Errorf("bobbot, under its own name, withdrawn: %+v", st.Standings)
	}
	// Joins and withdrawals are limited in rate.
	limited := false
	for range 30 {
		if code := w.call(t, bob, "POST", "/api/tournaments/"+id+"/join", `{}`, nil); code == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Error("30 joins at once, none refused")
	}
}

// TestArenaResume: an arena whose server restarts while a game is played
// goes on: the game resumes where it was and counts, and the arena pairs
// again until its end.
func TestArenaResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kalah.db")
	cfg := Config{ResumeGrace: 100 * time.Millisecond}
	ts := newTestServer(t, path, cfg)
	ctx1, stop1 := context.WithCancel(context.Background())
	defer stop1()
	tours, err := ts.srv.StartTournaments(ctx1, TournamentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := identity.Of(identity.Person, "alice"), identity.Of(identity.Person, "bob")
	p := tours.people
	n, err := p.st.CreatePeopleTournament(ctx1, store.PeopleTournament{Name: "Restart", Format: FormatArena, Creator: alice, Rules: kalah.Standard(),
		ClockMS: 60000, Minutes: 1, Starts: time.Now().Add(-52 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []identity.ID{alice, bob} {
		if _, err := p.st.JoinPeopleTournament(ctx1, n, who, maxPeopleEntrants); err != nil {
			t.Fatal(err)
		}
	}
	p.start(n)
	id := peopleIDString(n)
	var first PeopleGame
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st, err := p.State(ctx1, id, identity.ID{})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Games) == 1 && st.Games[0].Game != "" { // paired, then started
			first = st.Games[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no game: %+v", st)
		}
	}
	game := mustID(t, first.Game)
	if err := ts.srv.Move(ctx1, game, Actor{ID: first.SouthID}, 2); err != nil {
		t.Fatal(err)
	}
	stop1()
	tours.Wait()
	ts.stop()

	ts = newTestServer(t, path, cfg)
	ctx2, stop2 := context.WithCancel(context.Background())
	defer stop2()
	tours, err = ts.srv.StartTournaments(ctx2, TournamentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { stop2(); tours.Wait() }()
	quit := make(chan struct{})
	moving := movePeople(t, ts.srv, tours, id, quit)
	defer func() { close(quit); <-moving }()
	var st PeopleTournamentState
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if st, err = tours.people.State(ctx2, id, identity.ID{}); err != nil {
			t.Fatal(err)
		}
		if st.Status == store.TourFinished {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not finished after the restart: %+v", st)
		}
	}
	g := st.Games[len(st.Games)-1]
	if g.Game != first.Game || !g.Done || !g.Counted || len(st.Games) < 2 || st.Winner == "" {
		t.Fatalf("after the restart: games %+v, winner %q", st.Games, st.Winner)
	}
	v, err := ts.srv.Game(ctx2, game)
	if err != nil || v.Record.Moves[0].House != 2 || v.Termination != kalah.Normal {
		t.Errorf("the game resumed: %+v %v", v.GameInfo, err)
	}
}

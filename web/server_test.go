package web

import (
	"context"
	"testing"
	"time"

	"kalah"
	"kalah/internal/store"
	"kalah/server"
)

func TestServerGames(t *testing.T) {
	st, err := store.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv, err := server.New(server.Config{Store: st, Delay: 30 * time.Millisecond, NoClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := New(ctx, Options{Server: srv})
	if err != nil {
		t.Fatal(err)
	}
	web := newTestServerFor(t, h)

	started, err := srv.StartGame(ctx, server.GameRequest{Rules: kalah.Standard(), South: "first", North: "human"})
	if err != nil {
		t.Fatal(err)
	}
	id := itoa(started.ID)
	// The games the page starts and those started elsewhere are the
	// server's, listed together.
	var c Created
	call(t, web, "POST", Prefix+"games", NewGame{Rules: kalah.Standard(), South: Human, North: "first"}, &c)
	var list []server.GameInfo
	call(t, web, "GET", Prefix+"games", nil, &list)
	ids := map[string]bool{}
	for _, s := range list {
		ids[itoa(s.ID)] = true
	}
	if !ids[id] || !ids[c.ID] {
		t.Fatalf("list %+v", list)
	}
	// South (first) moves; the page sees North, a person, to move.
	s := waitState(t, web, id, func(s State) bool { return s.ToMove == kalah.North })
	if !s.Live || !s.Seats[1].Human || s.Seats[0].Name != "first" || len(s.Moves) == 0 {
		t.Fatalf("state %+v", s)
	}
	// A wrong token is refused; the right one moves, and a watcher sees it.
	if code := call(t, web, "POST", Prefix+"games/"+id+"/move", seatRequest{Token: "bad", Move: s.Legal[0]}, nil); code != 403 {
		t.Errorf("bad token: %d", code)
	}
	changed, stop, err := srv.Subscribe(started.ID, server.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if code := call(t, web, "POST", Prefix+"games/"+id+"/move", seatRequest{Token: started.Tokens[1], Move: s.Legal[0]}, nil); code != 200 {
		t.Errorf("move: %d", code)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no change seen")
	}
	for _, r := range []string{"takeback", "hint"} {
		if code := call(t, web, "POST", Prefix+"games/"+id+"/"+r, seatRequest{Token: started.Tokens[1]}, nil); code != 409 {
			t.Errorf("%s: %d", r, code)
		}
	}
	if code := call(t, web, "POST", Prefix+"games/"+id+"/join", "{}", nil); code != 409 {
		t.Errorf("join: %d", code)
	}
	// Resigning ends it; the finished game still replays from the store.
	if code := call(t, web, "POST", Prefix+"games/"+id+"/resign", seatRequest{Token: started.Tokens[1]}, nil); code != 200 {
		t.Errorf("resign: %d", code)
	}
	s = waitState(t, web, id, func(s State) bool { return s.Over && !s.Live })
	if s.Result != kalah.SouthWins || len(s.Moves) < 2 {
		t.Errorf("finished: %+v", s)
	}
	// The page's links of the release before ("s12") still lead there.
	if code := call(t, web, "GET", Prefix+"games/s"+id+"/board", nil, nil); code != 200 {
		t.Errorf("an old link: %d", code)
	}
	for _, bad := range []string{"999", "s999", "sx", "s"} {
		if code := call(t, web, "GET", Prefix+"games/"+bad+"/board", nil, nil); code != 404 {
			t.Errorf("%s: %d", bad, code)
		}
	}
}

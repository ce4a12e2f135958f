package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/server"
	"kalah/web"
)

// TestOneGameList: on one kalah serve, a person plays the computer on the
// page, a bot on our line protocol and a KGP bot play each other (paired by
// the one queue); both games are in one list, the page's and the API's
// alike, and in the one database of the data directory.
func TestOneGameList(t *testing.T) {
	s := startServe(t, "--kgp-addr", "127.0.0.1:0", "--rules", "kgp", "--time", "2s")
	base := fmt.Sprintf("http://127.0.0.1:%d", s.httpPort)
	post := func(path, body string, out any) int {
		t.Helper()
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if out != nil {
			json.NewDecoder(resp.Body).Decode(out)
		}
		return resp.StatusCode
	}
	get := func(path string, out any) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		json.NewDecoder(resp.Body).Decode(out)
	}

	// The person on the page, against greedy, through the one API.
	var c server.Started
	if code := post("/api/games", `{"rules":{"houses":6,"seeds":4},"south":"human","north":"greedy"}`, &c); code != 201 {
		t.Fatalf("the page's game: %d", code)
	}
	if code := post(fmt.Sprintf("/api/games/%d/move", c.ID), `{"token":"`+c.Tokens[0]+`","move":"1"}`, nil); code != 200 {
		t.Fatalf("the person's move: %d", code)
	}
	// The page's own part of the API answers beside it.
	var meta web.Meta
	get(web.Prefix+"meta", &meta)
	if len(meta.Presets) == 0 {
		t.Fatalf("meta: %+v", meta)
	}

	// A bot on our protocol and a KGP bot, one game.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	var lineOut, kgpOut syncBuffer
	var codes [2]int
	wg.Add(2)
	go func() {
		defer wg.Done()
		codes[0] = run(ctx, []string{"bot", "--server", fmt.Sprintf("127.0.0.1:%d", s.botPort), "--name", "liner",
			"--player", "greedy", "--token", "liner-token", "--games", "1"}, strings.NewReader(""), &lineOut, io.Discard)
	}()
	go func() {
		defer wg.Done()
		codes[1] = run(ctx, []string{"kgp", "--connect", fmt.Sprintf("127.0.0.1:%d", s.kgpPort), "--player", "random",
			"--name", "kagee"}, strings.NewReader(""), &kgpOut, io.Discard)
	}()
	wg.Wait()
	if codes != [2]int{0, 0} {
		t.Fatalf("bots exited %v:\nline bot:\n%s\nkgp bot:\n%s\nserver:\n%s", codes, lineOut.String(), kgpOut.String(), s.log.String())
	}

	// One list, the page's as the API's.
	var api []server.GameInfo
	get("/api/games", &api)
	names := map[string]int64{}
	for _, g := range api {
		names[g.South] = g.ID
		names[g.North] = g.ID
	}
	guest := ""
	for _, g := range api {
		if g.ID == c.ID && g.SouthID.Kind == identity.Guest {
			guest = g.South
		}
	}
	if !strings.HasPrefix(guest, "guest-") || names["liner"] == 0 || names["kgp-kagee"] != names["liner"] {
		t.Fatalf("the list: %+v", api)
	}
	// Each is drawn for the page the same way.
	for _, id := range []int64{c.ID, names["liner"]} {
		var b server.Board
		get(fmt.Sprintf("/api/games/%d/board", id), &b)
		if len(b.Moves) == 0 || b.ID != fmt.Sprint(id) {
			t.Fatalf("board %d: %+v", id, b)
		}
	}
	s.stop()

	// One database.
	st, err := store.Open("kalah-data/kalah.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	games, err := st.Games(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, g := range games {
		for _, seat := range g.Seats {
			kinds[seat.Name] = seat.Kind
		}
	}
	if kinds[guest] != "human" || kinds["liner"] != "bot" || kinds["kgp-kagee"] != "kgp" || kinds["greedy"] != "spec" || len(games) != 2 {
		t.Fatalf("stored games %d, seats %v", len(games), kinds)
	}
}

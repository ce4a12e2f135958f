package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kalah/server"
)

// FuzzRequests sends arbitrary bodies to the routes that read one: the
// answer is never a server error and always JSON.
func FuzzRequests(f *testing.F) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := New(ctx, Options{MaxAnalysis: 50e6, Server: newMatchServerTB(f, server.Config{})})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		`{"rules":{"houses":6,"seeds":4},"position":"1,0,2,0,1,1/0,2,0,1,1,0 19-20 S","time_ms":10}`,
		`{"rules":{"houses":2,"seeds":1},"moves":"1. 1","time_ms":10}`,
		`{"rules":{"houses":3,"seeds":2,"first":"N","end":"mover-empty"},"south":"human","north":"first"}`,
		`{"rules":{"houses":4,"seeds":3},"players":["first","greedy"],"per_move_ms":5}`,
		`{"token":"x","move":"3"}`, `[]`, `{"rules":{"houses":16,"seeds":64}}`, `{"position":"0,0/0,0 0-0 S"}`,
		// A start that does not fit the rules (it once panicked).
		`{"rules":{"houses":6,"seeds":4},"start":"1,1/1,1 0-0 S","moves":"","time_ms":10}`,
	} {
		for route := range 8 {
			f.Add(route, s)
		}
	}
	routes := []string{"analyze", "analyze/game", "games", "tournaments", "games/nope/move", "games/1/move", "games/1/takeback", "account/signup"}
	f.Fuzz(func(t *testing.T, route int, body string) {
		if route < 0 || route >= len(routes) {
			return
		}
		// Keep each case quick: start no computer players (an empty seat is
		// a person, who costs nothing).
		if (routes[route] == "tournaments" || routes[route] == "games") &&
			(strings.Contains(body, "players") || strings.Contains(body, "south") || strings.Contains(body, "north")) {
			return
		}
		req := httptest.NewRequest("POST", Prefix+routes[route], strings.NewReader(body))
		// As the page sends it: without the JSON type every body stops at
		// 415 and the handlers are never reached.
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: %d %s", routes[route], body, rec.Code, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %q: not JSON: %q", routes[route], body, rec.Body)
		}
		if rec.Code >= 400 && rec.Code != http.StatusNotFound && !strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("no error message: %q", rec.Body)
		}
	})
}

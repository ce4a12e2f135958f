package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kalah/internal/store"
	"kalah/server"
	"kalah/web"
)

// TestServeMountsWeb checks what kalah serve puts at "/": the page, its
// API, and games kept in the server's data directory (--data) that are
// still there after a restart.
func TestServeMountsWeb(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	st, err := store.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv, err := server.New(server.Config{Store: st, NoClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	data := t.TempDir()
	ctx1, stop1 := context.WithCancel(context.Background())
	h, wait1, err := mountWeb(ctx1, srv, data)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	resp, err = http.Post(ts.URL+web.Prefix+"games", "application/json",
		strings.NewReader(`{"rules":{"houses":6,"seeds":4},"south":"human","north":"human"}`))
	if err != nil {
		t.Fatal(err)
	}
	var c web.Created
	json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	if resp.StatusCode != 201 || c.ID == "" {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	if saved, _ := filepath.Glob(filepath.Join(data, "web-games", "*")); len(saved) == 0 {
		t.Errorf("the page's game is not saved in the data directory %s", data)
	}
	// A second mount, as after a restart, finds the game; the first one
	// ends with its context, as kalah serve's does.
	stop1()
	wait1()
	ctx2, stop2 := context.WithCancel(context.Background())
	h2, wait2, err := mountWeb(ctx2, srv, data)
	defer wait2()
	defer stop2()
	if err != nil {
		t.Fatal(err)
	}
	ts2 := httptest.NewServer(h2)
	defer ts2.Close()
	resp, err = http.Get(ts2.URL + web.Prefix + "games/" + c.ID)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("game after restart: %d", resp.StatusCode)
	}
}

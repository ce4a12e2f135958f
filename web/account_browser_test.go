package web

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"kalah/server"
)

// servedLikeServe serves the page as kalah serve does: the page at "/",
// handing the server's part of the API to it, one database for games and
// tournaments, an admin token set (so strangers are strangers), and the
// page trusting whom the server trusts.
func servedLikeServe(t *testing.T) *httptest.Server {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kalah.db")
	msrv, _ := newMatchServerAt(t, path, server.Config{AdminToken: "admin-secret"})
	ctx, cancel := context.WithCancel(context.Background())
	h, err := New(ctx, Options{Server: msrv, Tournaments: serverTournaments(t, ctx, msrv)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		cancel()
	})
	return srv
}

// TestBrowserAccount: a guest cannot start a tournament; signed up on the
// page, the person can, creates a bot whose token is shown once and logs
// the bot in over HTTP, gives it a new token (the old one then fails), and
// signs out.
func TestBrowserAccount(t *testing.T) {
	srv := servedLikeServe(t)
	ctx := browser(t, 900, 900)
	startTournament := `fetch("/api/tournaments", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({name: "t", rules: {houses: 3, seeds: 2}, players: ["first", "random"], rounds: 1})}).then(r => r.status)`
	open(t, ctx, srv.URL+"/#/account")
	if code := evalAwait[float64](t, ctx, startTournament); code != 401 {
		t.Fatalf("a guest's tournament: %v", code)
	}
	if got := eval[string](t, ctx, `document.querySelector("#acct").textContent`); got != "Sign in" {
		t.Fatalf("nav %q", got)
	}
	eval[bool](t, ctx, `(() => { document.querySelector("#acctname").value = "Ann"; document.querySelector("#acctpass").value = "correct horse"; return true })()`)
	click(t, ctx, "#signup")
	waitJS(t, ctx, `document.querySelector("#acct").textContent === "Ann"`)
	shot(t, ctx, "account-signed-in")
	if code := evalAwait[float64](t, ctx, startTournament); code != 201 {
		t.Fatalf("a signed-in person's tournament: %v", code)
	}
	eval[bool](t, ctx, `(() => { document.querySelector("#botname").value = "annbot"; return true })()`)
	click(t, ctx, `#botform button[type="submit"]`)
	waitJS(t, ctx, `document.querySelector("#bottoken") && document.querySelector("#bottoken").textContent.length > 10`)
	token := eval[string](t, ctx, `document.querySelector("#bottoken").textContent`)
	req, _ := http.NewRequest("GET", srv.URL+"/api/account", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var who map[string]string
	json.NewDecoder(resp.Body).Decode(&who)
	resp.Body.Close()
	if who["bot"] != "annbot" {
		t.Fatalf("the bot's token: %d %v", resp.StatusCode, who)
	}
	// Shown once: the page, reloaded, lists the bot without its token.
	if _, err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "document.body.dataset.ready")
	waitJS(t, ctx, `document.querySelector("#botlist") && document.querySelector("#botlist").textContent === "annbot"`)
	if strings.Contains(eval[string](t, ctx, `document.body.textContent`), token) {
		t.Fatal("the token is shown again")
	}
	// A leaked token is replaced on the page: the new one is shown once
	// and works, the old one no longer does.
	click(t, ctx, "#rotatetoken")
	waitJS(t, ctx, `document.querySelector("#bottoken") && document.querySelector("#bottoken").textContent.length > 10`)
	renewed := eval[string](t, ctx, `document.querySelector("#bottoken").textContent`)
	for tok, want := range map[string]int{token: http.StatusUnauthorized, renewed: http.StatusOK} {
		req, _ := http.NewRequest("GET", srv.URL+"/api/account", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || tok == renewed && tok == token {
			t.Fatalf("after the page's new token, GET /api/account with a token: %d, want %d", resp.StatusCode, want)
		}
	}
	click(t, ctx, "#signout")
	waitJS(t, ctx, `document.querySelector("#acct").textContent === "Sign in"`)
	if code := evalAwait[float64](t, ctx, startTournament); code != 401 {
		t.Fatalf("a tournament after signing out: %v", code)
	}
}

// evalAwait evaluates js and waits for the promise it returns.
func evalAwait[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

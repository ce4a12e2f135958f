package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/netx"
	"kalah/server"
)

// clientFrom returns an HTTP client whose connections come from the
// loopback address ip: another client, as far as the server can tell.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// postJSON posts body (marshalled) and returns the status, the answer
// decoded into a map and the time it took.
func postJSON(t *testing.T, c *http.Client, url string, body any) (int, map[string]any, time.Duration) {
	t.Helper()
	b, _ := json.Marshal(body)
	start := time.Now()
	resp, err := c.Post(url, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Error(err)
		return 0, nil, time.Since(start)
	}
	defer resp.Body.Close()
	var v map[string]any
	json.NewDecoder(resp.Body).Decode(&v)
	return resp.StatusCode, v, time.Since(start)
}

// unbooked is a rule set the opening books do not cover, so the engine
// searches its start for as long as it is given.
func unbooked() kalah.Rules {
	r := kalah.Standard()
	r.Seeds, r.Name = 6, ""
	return r
}

// TestLongAnalysisDoesNotDelayHint: a guest's 8-second analysis holds the
// engine of its rules; a person's hint in a game of the same rules, from
// the same analyzer, still comes within its 300 ms (and a margin for a busy
// machine), not after the analysis (it took 3.2 s behind a 10 s one when
// both waited on one engine's lock).
func TestLongAnalysisDoesNotDelayHint(t *testing.T) {
	an := &Engine{EgdbDir: "-"}
	cfg := server.Config{Hint: func(ctx context.Context, g *kalah.Game) (kalah.Move, error) {
		return Hint(ctx, an, g, 300*time.Millisecond)
	}}
	srv, _ := newServerWith(t, cfg, Options{Analyzer: an, Analyses: 2})
	r := unbooked()
	code, g, _ := postJSON(t, clientFrom("127.0.0.1"), srv.URL+Prefix+"games", map[string]any{"rules": r, "south": "human", "north": "greedy", "casual": true})
	if code != http.StatusCreated {
		t.Fatalf("start a casual game: %d %v", code, g)
	}
	token := g["tokens"].([]any)[0].(string)
	var wg sync.WaitGroup
	var analysed time.Duration
	var analysisCode int
	wg.Add(1)
	go func() {
		defer wg.Done()
		analysisCode, _, analysed = postJSON(t, clientFrom("127.0.0.2"), srv.URL+Prefix+"analyze", AnalyzeRequest{Rules: r, Millis: 8000})
	}()
	time.Sleep(500 * time.Millisecond) // the analysis has its engine
	code, v, took := postJSON(t, clientFrom("127.0.0.1"), fmt.Sprintf("%s%sgames/%v/hint", srv.URL, Prefix, g["id"]), map[string]string{"token": token})
	if code != http.StatusOK || v["move"] == "" {
		t.Fatalf("hint: %d %v", code, v)
	}
	t.Logf("hint in %v beside an 8 s analysis", took)
	if took > 1500*time.Millisecond {
		t.Errorf("a 300 ms hint took %v beside a long analysis", took)
	}
	wg.Wait()
	if analysisCode != http.StatusOK || analysed > 9500*time.Millisecond {
		t.Errorf("the 8 s analysis: %d in %v", analysisCode, analysed)
	}
}

// TestAnalysisLimits: each client's analyses are rate-limited (429 with
// Retry-After past the burst), one client runs at most two at once, and a
// request that finds every place taken waits no longer than its own budget
// before it is refused as busy (503).
func TestAnalysisLimits(t *testing.T) {
	srv, _ := newServerWith(t, server.Config{}, Options{Analyzer: Search{}, AnalysisRate: 0.01, AnalysisBurst: 3, Analyses: 2})
	url := srv.URL + Prefix + "analyze"
	quick := AnalyzeRequest{Rules: kalah.Standard(), Millis: 20}
	a := clientFrom("127.0.0.1")
	for i := range 3 {
		if code, v, _ := postJSON(t, a, url, quick); code != http.StatusOK {
			t.Fatalf("analysis %d within the burst: %d %v", i+1, code, v)
		}
	}
	b, _ := json.Marshal(quick)
	resp, err := a.Post(url, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a fourth analysis past a burst of 3: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// Another address has a bucket of its own; two long analyses take
	// both places; a third from that client is refused at once, another
	// client's waits its budget for a place and is refused as busy.
	long := AnalyzeRequest{Rules: unbooked(), Millis: 3000}
	c := clientFrom("127.0.0.2")
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, v, _ := postJSON(t, c, url, long); code != http.StatusOK {
				t.Errorf("a long analysis: %d %v", code, v)
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	if code, v, _ := postJSON(t, c, url, quick); code != http.StatusTooManyRequests || !strings.Contains(fmt.Sprint(v), "2 analyses of yours") {
		t.Errorf("a third analysis at once from one client: %d %v", code, v)
	}
	d := clientFrom("127.0.0.3")
	code, v, took := postJSON(t, d, url, AnalyzeRequest{Rules: kalah.Standard(), Millis: 400})
	if code != http.StatusServiceUnavailable || took > 1500*time.Millisecond {
		t.Errorf("an analysis with every place taken: %d %v after %v; want 503 after about its 400 ms", code, v, took)
	}
	wg.Wait()
	if code, v, _ := postJSON(t, d, url, quick); code != http.StatusOK {
		t.Errorf("after the long ones ended: %d %v", code, v)
	}
}

// TestSecurityHeaders: the page, its static files and the API carry the
// Content-Security-Policy (frame-ancestors 'none') and the usual headers;
// Strict-Transport-Security only for a client on HTTPS.
func TestSecurityHeaders(t *testing.T) {
	srv, _ := newServer(t)
	for _, path := range []string{"/", "/web/static/app.js", Prefix + "meta", Prefix + "games", Prefix + "no-such-route"} {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if csp := h.Get("Content-Security-Policy"); csp != netx.ContentSecurityPolicy || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin"} {
			if got := h.Get(k); got != want {
				t.Errorf("%s: %s %q, want %q", path, k, got, want)
			}
		}
		if h.Get("Strict-Transport-Security") != "" {
			t.Errorf("%s: Strict-Transport-Security over plain HTTP", path)
		}
	}
}

package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// readyAddr returns the address the ready file of a testServe gives for
// what ("metrics"), or "".
func readyAddr(t *testing.T, what string) string {
	t.Helper()
	b, err := os.ReadFile("ready")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if w, a, ok := strings.Cut(l, " "); ok && w == what {
			return a
		}
	}
	return ""
}

// httpFrom returns a client whose connections come from the loopback
// address ip (127.0.0.x): another client as far as the server can tell.
func httpFrom(ip string, jar http.CookieJar, timeout time.Duration) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: timeout}
	return &http.Client{Jar: jar, Timeout: timeout, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

func getBody(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metricValue returns the value of the sample named (with its labels, as
// the text format writes them) in a /metrics page, or -1.
func metricValue(page, sample string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`).FindStringSubmatch(page)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestServeOperatorEndpoints: --metrics-addr serves /metrics (with the move
// histogram after a game, games live, connections by listener and streams
// by kind, store commits, the WAL's size, refusals by reason), /healthz and
// /debug/pprof/; none of them is on the public address. Without the flag
// there is no such address. The data directory is its owner's only.
func TestServeOperatorEndpoints(t *testing.T) {
	s := startServe(t, "--metrics-addr", "127.0.0.1:0")
	metrics := readyAddr(t, "metrics")
	if metrics == "" {
		t.Fatal("no metrics address in the ready file")
	}
	web := fmt.Sprintf("http://127.0.0.1:%d", s.httpPort)
	admin, err := os.ReadFile(filepath.Join("kalah-data", "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", web+"/api/games", strings.NewReader(`{"rules":{"houses":4,"seeds":2},"south":"first","north":"greedy"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(admin)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ ID int64 }
	json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("start a game: %d", resp.StatusCode)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, body := getBody(t, http.DefaultClient, fmt.Sprintf("%s/api/games/%d", web, started.ID))
		if strings.Contains(body, `"status":"finished"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the game did not finish: %s", body)
		}
	}
	code, page := getBody(t, http.DefaultClient, "http://"+metrics+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for sample, min := range map[string]float64{
		"kalah_move_seconds_count":                           1,
		`kalah_move_seconds_bucket{le="+Inf"}`:               1,
		"kalah_move_confirm_seconds_count":                   0,
		"go_sched_latencies_seconds_count":                   1,
		"kalah_games_live":                                   0,
		`kalah_connections_open{listener="http"}`:            0,
		`kalah_connections_open{listener="bots"}`:            0,
		`kalah_streams_open{kind="board"}`:                   0,
		"kalah_store_commits_total":                          1,
		"kalah_store_wal_bytes":                              0,
		"kalah_line_write_waits_total":                       0,
		`kalah_refusals_total{reason="streams-per-address"}`: 0,
		`kalah_refusals_total{reason="login-rate"}`:          0,
		"go_goroutines":                                      1,
		"process_resident_memory_bytes":                      1,
	} {
		if v := metricValue(page, sample); v < min {
			t.Errorf("/metrics: %s = %v, want at least %v", sample, v, min)
		}
	}
	if code, body := getBody(t, http.DefaultClient, "http://"+metrics+"/healthz"); code != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := getBody(t, http.DefaultClient, "http://"+metrics+"/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/ on the metrics address: %d", code)
	}
	for _, path := range []string{"/metrics", "/healthz", "/debug/pprof/", "/debug/pprof/goroutine"} {
		if code, body := getBody(t, http.DefaultClient, web+path); code != http.StatusNotFound || strings.Contains(body, "goroutine") || strings.Contains(body, "kalah_") {
			t.Errorf("%s on the public address: %d", path, code)
		}
	}
	for path, want := range map[string]os.FileMode{"kalah-data": 0o700, "kalah-data/kalah.db": 0o600, "kalah-data/admin.token": 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %v", path, fi.Mode().Perm(), err, want)
		}
	}
	s.stop()

	startServe(t)
	if a := readyAddr(t, "metrics"); a != "" {
		t.Errorf("the operator's endpoints are on %s without --metrics-addr", a)
	}
}

// testCert writes a self-signed certificate for 127.0.0.1 and its key, and
// returns their files and a pool that trusts it.
func testCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kalah test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestServeTLS: with --tls-cert and --tls-key the page, the API and
// /ws/bot are served over TLS with the certificate given; a session
// cookie is Secure; the answers carry Strict-Transport-Security; plain
// HTTP on that port is refused.
func TestServeTLS(t *testing.T) {
	cert, key, pool := testCert(t)
	s := startServe(t, "--tls-cert", cert, "--tls-key", key)
	base := fmt.Sprintf("https://127.0.0.1:%d", s.httpPort)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer tr.CloseIdleConnections()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Transport: tr, Jar: jar, Timeout: 10 * time.Second}
	resp, err := c.Get(base + "/")
	if err != nil {
		t.Fatalf("the page over TLS: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS == nil || !strings.Contains(string(body), "<html") {
		t.Fatalf("the page over TLS: %d, TLS %v", resp.StatusCode, resp.TLS != nil)
	}
	if resp.Header.Get("Strict-Transport-Security") == "" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("headers over TLS: %v", resp.Header)
	}
	resp, err = c.Post(base+"/api/account/signup", "application/json", strings.NewReader(`{"name":"ann","password":"a long password"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var secure bool
	for _, ck := range resp.Cookies() {
		secure = secure || ck.Name == "kalah_session" && ck.Secure
	}
	if resp.StatusCode != http.StatusCreated || !secure {
		t.Fatalf("sign up over TLS: %d, Secure cookie %v", resp.StatusCode, secure)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, fmt.Sprintf("wss://127.0.0.1:%d/ws/bot", s.httpPort), &websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatalf("/ws/bot over TLS: %v", err)
	}
	_, greeting, err := ws.Read(ctx)
	ws.CloseNow()
	if err != nil || !strings.HasPrefix(string(greeting), "kalah") {
		t.Fatalf("/ws/bot over TLS: %q %v", greeting, err)
	}
	if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", s.httpPort)); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP on the TLS port served the page: %s", b)
		}
	}
}

// TestServeTrustedProxy: from a --trusted-proxy, X-Forwarded-For names the
// client every limit counts (here the sign-ups' rate) and
// X-Forwarded-Proto: https makes the session cookie Secure; from any other
// peer both headers are ignored, so a client cannot pose as many.
func TestServeTrustedProxy(t *testing.T) {
	s := startServe(t, "--trusted-proxy", "127.0.0.1", "--login-rate", "0.001", "--login-burst", "2")
	base := fmt.Sprintf("http://127.0.0.1:%d", s.httpPort)
	n := 0
	signup := func(from, xff, proto string) (int, bool) {
		t.Helper()
		n++
		req, _ := http.NewRequest("POST", base+"/api/account/signup", strings.NewReader(fmt.Sprintf(`{"name":"user%d","password":"a long password"}`, n)))
		req.Header.Set("Content-Type", "application/json")
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		if proto != "" {
			req.Header.Set("X-Forwarded-Proto", proto)
		}
		resp, err := httpFrom(from, nil, 5*time.Second).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		secure := false
		for _, c := range resp.Cookies() {
			secure = secure || c.Secure
		}
		return resp.StatusCode, secure
	}
	// Through the proxy: two clients, each with a bucket of two.
	for range 2 {
		if code, secure := signup("127.0.0.1", "198.51.100.7", "https"); code != http.StatusCreated || !secure {
			t.Fatalf("a client through the proxy, on https: %d, Secure %v", code, secure)
		}
	}
	if code, _ := signup("127.0.0.1", "198.51.100.7", "https"); code != http.StatusTooManyRequests {
		t.Fatalf("the client's third sign-up past a burst of 2: %d", code)
	}
	if code, secure := signup("127.0.0.1", "203.0.113.9", "http"); code != http.StatusCreated || secure {
		t.Fatalf("another client through the proxy, on http: %d, Secure %v", code, secure)
	}
	// Not a proxy: its headers count for nothing.
	for i := range 2 {
		if code, secure := signup("127.0.0.2", fmt.Sprintf("192.0.2.%d", i), "https"); code != http.StatusCreated || secure {
			t.Fatalf("a stranger with forwarding headers: %d, Secure %v", code, secure)
		}
	}
	if code, _ := signup("127.0.0.2", "192.0.2.99", "https"); code != http.StatusTooManyRequests {
		t.Fatalf("a stranger's third sign-up, posing as a fresh address: %d", code)
	}
}

// TestServeStreamsDoNotLockOthersOut: one address opening event streams by
// the dozen fills its own quota, not the server: another address still gets
// the page, the API and /ws/bot. With the per-address limits off, the same
// flood fills --max-conns and the other address is locked out: the attack
// the limits stop.
func TestServeStreamsDoNotLockOthersOut(t *testing.T) {
	flood := func(t *testing.T, limits ...string) (page, api, ws bool) {
		s := startServe(t, append([]string{"--max-conns", "40"}, limits...)...)
		base := fmt.Sprintf("http://127.0.0.1:%d", s.httpPort)
		a := httpFrom("127.0.0.1", nil, 10*time.Second)
		resp, err := a.Post(base+"/api/games", "application/json", strings.NewReader(`{"rules":{"houses":4,"seeds":2},"south":"human","north":"first"}`))
		if err != nil {
			t.Fatal(err)
		}
		var g struct{ ID int64 }
		json.NewDecoder(resp.Body).Decode(&g)
		resp.Body.Close()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		for range 60 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/api/games/%d/board/events", base, g.ID), nil)
				if resp, err := httpFrom("127.0.0.1", nil, 0).Do(req); err == nil {
					io.Copy(io.Discard, resp.Body) // held open until the test ends
					resp.Body.Close()
				}
			}()
		}
		time.Sleep(time.Second) // the flood is in
		b := httpFrom("127.0.0.2", nil, 2*time.Second)
		if resp, err := b.Get(base + "/"); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			page = resp.StatusCode == http.StatusOK && strings.Contains(string(body), "<html")
		}
		if resp, err := b.Get(base + "/api/games"); err == nil {
			resp.Body.Close()
			api = resp.StatusCode == http.StatusOK
		}
		wctx, wcancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer wcancel()
		if c, _, err := websocket.Dial(wctx, fmt.Sprintf("ws://127.0.0.1:%d/ws/bot", s.httpPort), &websocket.DialOptions{HTTPClient: httpFrom("127.0.0.2", nil, 2*time.Second)}); err == nil {
			_, greeting, err := c.Read(wctx)
			ws = err == nil && strings.HasPrefix(string(greeting), "kalah")
			c.CloseNow()
		}
		cancel()
		s.stop()
		return page, api, ws
	}
	t.Run("limits", func(t *testing.T) {
		page, api, ws := flood(t, "--max-streams-per-addr", "8", "--max-conns-per-addr", "20")
		if !page || !api || !ws {
			t.Fatalf("another address while one floods: page %v, API %v, /ws/bot %v", page, api, ws)
		}
	})
	t.Run("no limits", func(t *testing.T) {
		page, api, ws := flood(t, "--max-streams-per-addr", "1000", "--max-conns-per-addr", "0", "--max-streams", "1000")
		if page && api && ws {
			t.Fatal("without the per-address limits the flood did not lock the other address out: this test cannot tell")
		}
	})
}

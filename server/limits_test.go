package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"kalah/internal/netx"
	"kalah/player"
	_ "kalah/search"
)

// from returns an HTTP client whose connections come from the loopback
// address ip (127.0.0.x): another client, as far as the server can tell.
func from(ip string, jar http.CookieJar) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Jar: jar, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// post sends a JSON body and decodes the JSON answer.
func post(t *testing.T, c *http.Client, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	json.NewDecoder(resp.Body).Decode(&v)
	return resp.StatusCode, v
}

// stream opens an event stream; on 200 it reads the first event and
// leaves the stream open until the test ends (or close is called).
type stream struct {
	code   int
	body   string // the refusal's body
	resp   *http.Response
	cancel context.CancelFunc
}

func openStream(t *testing.T, c *http.Client, url string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &stream{code: resp.StatusCode, resp: resp, cancel: cancel}
	t.Cleanup(s.close)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		s.body = string(b)
		s.close()
		return s
	}
	if strings.HasSuffix(url, "/board/events") {
		// The board's stream starts with the board; the game's events
		// only come with moves.
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "event:") {
			t.Fatalf("first line of the stream %s: %q, %v", url, line, err)
		}
	}
	return s
}

func (s *stream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// wsBot dials /ws/bot from ip and reads the greeting, or returns the
// status of the refusal.
func wsBot(t *testing.T, base, ip string) (int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws/bot", &websocket.DialOptions{HTTPClient: from(ip, nil)})
	if err != nil {
		if resp != nil {
			return resp.StatusCode, err
		}
		return 0, err
	}
	defer c.CloseNow()
	_, b, err := c.Read(ctx)
	if err != nil || !strings.HasPrefix(string(b), "kalah") {
		return 0, fmt.Errorf("greeting %q: %v", b, err)
	}
	return http.StatusSwitchingProtocols, nil
}

// TestStreamsPerAddressAndIdentity: one address that holds its quota of
// event streams and WebSockets is refused more (429, saying why) while
// another address still gets the API, a stream and /ws/bot; a signed-in
// account is held to its own quota from any address; a closed stream frees
// its place.
func TestStreamsPerAddressAndIdentity(t *testing.T) {
	ts := newTestServer(t, "", Config{NoClock: true, MaxStreamsPerAddr: 4, MaxStreamsPerIdentity: 3, LoginBurst: 100})
	a := from("127.0.0.1", nil)
	code, v := post(t, a, ts.http.URL+"/api/games", `{"rules":{"houses":4,"seeds":2},"south":"human","north":"first"}`)
	if code != http.StatusCreated {
		t.Fatalf("start a game: %d %v", code, v)
	}
	board := fmt.Sprintf("%s/api/games/%v/board/events", ts.http.URL, v["id"])
	events := fmt.Sprintf("%s/api/games/%v/events", ts.http.URL, v["id"])
	var held []*stream
	for i := range 4 {
		url := board
		if i%2 == 1 {
			url = events
		}
		if s := openStream(t, a, url); s.code != http.StatusOK {
			t.Fatalf("stream %d from the first address: %d %s", i+1, s.code, s.body)
		} else {
			held = append(held, s)
		}
	}
	if s := openStream(t, a, board); s.code != http.StatusTooManyRequests || !strings.Contains(s.body, "your address has 4 open streams") {
		t.Fatalf("a fifth stream from one address: %d %s", s.code, s.body)
	}
	if code, err := wsBot(t, ts.http.URL, "127.0.0.1"); code != http.StatusTooManyRequests {
		t.Fatalf("/ws/bot from the address at its quota: %d %v", code, err)
	}
	// Another address is not locked out.
	b := from("127.0.0.2", nil)
	if resp, err := b.Get(ts.http.URL + "/api/games"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the API for another address: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if s := openStream(t, b, board); s.code != http.StatusOK {
		t.Fatalf("a stream for another address: %d %s", s.code, s.body)
	}
	if code, err := wsBot(t, ts.http.URL, "127.0.0.2"); code != http.StatusSwitchingProtocols {
		t.Fatalf("/ws/bot for another address: %d %v", code, err)
	}
	// A closed stream frees its place.
	held[0].close()
	deadline := time.Now().Add(3 * time.Second)
	for {
		s := openStream(t, a, board)
		if s.code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("closing a stream freed no place: %d %s", s.code, s.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// An account has a quota of its own, from whatever address.
	jar, _ := cookiejar.New(nil)
	if code, v := post(t, from("127.0.0.3", jar), ts.http.URL+"/api/account/signup", `{"name":"ann","password":"a long password"}`); code != http.StatusCreated {
		t.Fatalf("sign up: %d %v", code, v)
	}
	for i := range 3 {
		ip := "127.0.0.3"
		if i == 2 {
			ip = "127.0.0.4"
		}
		if s := openStream(t, from(ip, jar), board); s.code != http.StatusOK {
			t.Fatalf("ann's stream %d: %d %s", i+1, s.code, s.body)
		}
	}
	if s := openStream(t, from("127.0.0.5", jar), board); s.code != http.StatusTooManyRequests || !strings.Contains(s.body, "your account has 3") {
		t.Fatalf("ann's fourth stream, from a fresh address: %d %s", s.code, s.body)
	}
	if s := openStream(t, from("127.0.0.5", nil), board); s.code != http.StatusOK {
		t.Fatalf("a guest on that address: %d %s", s.code, s.body)
	}
}

// TestStreamLifetime: an event stream ends by itself after StreamLifetime.
func TestStreamLifetime(t *testing.T) {
	ts := newTestServer(t, "", Config{NoClock: true, StreamLifetime: 300 * time.Millisecond})
	c := from("127.0.0.1", nil)
	_, v := post(t, c, ts.http.URL+"/api/games", `{"rules":{"houses":4,"seeds":2},"south":"human","north":"first"}`)
	s := openStream(t, c, fmt.Sprintf("%s/api/games/%v/board/events", ts.http.URL, v["id"]))
	if s.code != http.StatusOK {
		t.Fatalf("stream: %d %s", s.code, s.body)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, s.resp.Body)
		ended <- err
	}()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream outlived its lifetime of 300ms by 5s")
	}
}

// TestChallengesPerIdentity: a bot may have MaxChallenges challenges open;
// the next is refused (busy) and the bot challenged hears no more; a person
// is held to the same number of challenges to bots waiting for an answer.
func TestChallengesPerIdentity(t *testing.T) {
	ts := newTestServer(t, "", Config{MaxChallenges: 2})
	a, b := dial(t, ts.addr), dial(t, ts.addr)
	a.login("amy", "amy-token")
	b.login("bob", "bob-token")
	for range 2 {
		a.send("challenge bob")
		a.expect("ok")
		b.expect("challenged")
	}
	a.send("challenge bob")
	if m := a.expect("error"); m.Arg(0) != "busy" || !strings.Contains(m.String(), "2 open challenges") {
		t.Fatalf("a third open challenge: %s", m)
	}
	// Answering one frees a place.
	b.send("decline 1")
	b.expect("ok")
	a.expect("declined")
	a.send("challenge bob")
	a.expect("ok")
	if m := b.expect("challenged"); m.Arg(0) != "3" {
		t.Fatalf("bob heard challenge %s, want 3 (the refused one had no number)", m.Arg(0))
	}

	// A person: two challenges waiting for robo's answer, a third refused.
	jar, _ := cookiejar.New(nil)
	ann := from("127.0.0.1", jar)
	if code, v := post(t, ann, ts.http.URL+"/api/account/signup", `{"name":"ann","password":"a long password"}`); code != http.StatusCreated {
		t.Fatalf("sign up: %d %v", code, v)
	}
	robo := dial(t, ts.addr)
	robo.login("robo", "robo-token")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.http.URL+"/api/bots/robo/challenge", strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			if resp, err := ann.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		robo.expect("challenged")
	}
	if code, v := post(t, ann, ts.http.URL+"/api/bots/robo/challenge", `{}`); code != http.StatusTooManyRequests || !strings.Contains(fmt.Sprint(v), "2 open challenges") {
		t.Fatalf("ann's third challenge: %d %v", code, v)
	}
}

// TestNetworkPlayerLimits: a spec over the limits is refused with the
// limit named, and a computer player the network started stops thinking
// at the server's limit even to a fixed depth in a game without a clock.
func TestNetworkPlayerLimits(t *testing.T) {
	ts := newTestServer(t, "", Config{NoClock: true})
	c := from("127.0.0.1", nil)
	for _, spec := range []string{"alphabeta:depth=60", "minimax:depth=40", "kbab:simple:depth=30", "alphabeta:time=10m"} {
		code, v := post(t, c, ts.http.URL+"/api/games", `{"south":"human","north":"`+spec+`"}`)
		if code != http.StatusForbidden || !strings.Contains(fmt.Sprint(v), "at most") {
			t.Errorf("%s: %d %v; want 403 saying the limit", spec, code, v)
		}
	}
	ts.stop()

	limits := player.NetworkLimits
	limits.Time = 300 * time.Millisecond
	ts = newTestServer(t, "", Config{NoClock: true, Limits: limits})
	// minimax to depth 20 from the start takes hours; held to 300 ms.
	code, v := post(t, c, ts.http.URL+"/api/games", `{"south":"minimax:depth=20","north":"human"}`)
	if code != http.StatusCreated {
		t.Fatalf("start: %d %v", code, v)
	}
	id := int64(v["id"].(float64))
	start := time.Now()
	for {
		g, err := ts.srv.Game(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if g.Plies > 0 {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the computer has not moved within 5 s under a thinking limit of 300 ms (plies %d)", g.Plies)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rss returns the process's resident memory in bytes (Linux).
func rss(t *testing.T) uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm: resident memory cannot be measured here")
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// TestSignupFloodMemory: 48 sign-ups at once from 12 addresses (argon2id
// takes 19 MiB each) keep the process's peak resident memory within 400 MB
// of what it was idle: the hashes wait for the store's few hashers.
func TestSignupFloodMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory and tenfold slower hashing make the figure meaningless")
	}
	ts := newTestServer(t, "", Config{})
	runtime.GC()
	idle := rss(t)
	var peak uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peak = max(peak, rss(t))
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	codes := make([]int, 48)
	for i := range 48 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := from(fmt.Sprintf("127.0.1.%d", 1+i%12), nil)
			codes[i], _ = post(t, c, ts.http.URL+"/api/account/signup", fmt.Sprintf(`{"name":"user%d","password":"a long password"}`, i))
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	for i, code := range codes {
		if code != http.StatusCreated {
			t.Errorf("sign-up %d: %d", i, code)
		}
	}
	t.Logf("resident memory idle %d MB, peak %d MB", idle>>20, peak>>20)
	if peak > idle+400<<20 {
		t.Fatalf("48 sign-ups at once took resident memory from %d MB to %d MB: more than 400 MB", idle>>20, peak>>20)
	}
}

// TestStreamDropsAClientThatDoesNotRead: a stream's client that stops
// reading is dropped once a write waits WriteTimeout, and its place under
// the limits is freed; the lifted deadlines of a long-lived request would
// otherwise let it hold the place for ever.
func TestStreamDropsAClientThatDoesNotRead(t *testing.T) {
	ts := newTestServer(t, "", Config{WriteTimeout: 200 * time.Millisecond})
	srv := ts.srv
	h := srv.streamed(StreamBoard, func(w http.ResponseWriter, r *http.Request) {
		netx.LongLived(w)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := []byte("data: " + strings.Repeat("x", 64<<10) + "\n\n")
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	hs := httptest.NewServer(h)
	defer hs.Close()
	c, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetReadBuffer(4096)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: kalah\r\n\r\n") // and never read
	deadline := time.Now().Add(2 * time.Second)
	for srv.streams.Count(StreamBoard) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the stream never opened")
		}
		time.Sleep(5 * time.Millisecond)
	}
	deadline = time.Now().Add(5 * time.Second)
	for srv.streams.Count(StreamBoard) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a client that reads nothing still holds its stream 5 s on, with writes due within 200 ms")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLimitStreamsCountsOtherHandlers: a handler put behind LimitStreams
// (kalah serve's KGP WebSocket) counts among its client's long-lived
// requests and is refused past the quota.
func TestLimitStreamsCountsOtherHandlers(t *testing.T) {
	ts := newTestServer(t, "", Config{MaxStreamsPerAddr: 2})
	release := make(chan struct{})
	h := ts.srv.LimitStreams(StreamKGPWS, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	hs := httptest.NewServer(h)
	defer hs.Close()
	defer close(release)
	for i := range 2 {
		if s := openStream(t, from("127.0.0.1", nil), hs.URL+"/kgp"); s.code != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, s.code, s.body)
		}
	}
	if s := openStream(t, from("127.0.0.1", nil), hs.URL+"/kgp"); s.code != http.StatusTooManyRequests {
		t.Fatalf("a third: %d %s", s.code, s.body)
	}
	if n := ts.srv.streams.Count(StreamKGPWS); n != 2 {
		t.Fatalf("%d kgp-ws streams counted, want 2", n)
	}
}

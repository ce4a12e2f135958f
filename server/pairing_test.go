package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
	"kalah/referee"
	"kalah/server/lobby"
)

// sseEvent is one event of a Server-Sent Events stream.
type sseEvent struct{ kind, data string }

// openSSE follows the event stream at path with client c: its events as
// they come (the channel closes when the stream does), the answer's status,
// and a function that closes the stream, as a page that goes away does.
func openSSE(t *testing.T, c *http.Client, url string) (<-chan sseEvent, int, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, resp.StatusCode, func() {}
	}
	ch := make(chan sseEvent, 256)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.kind = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case line == "":
				if ev.kind != "" {
					select {
					case ch <- ev:
					default:
					}
				}
				ev = sseEvent{}
			}
		}
	}()
	stop := func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return ch, resp.StatusCode, stop
}

// nextEvent returns the next event of kind, skipping others, or fails.
func nextEvent(t *testing.T, ch <-chan sseEvent, kind string) sseEvent {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("the stream ended before a %q event", kind)
			}
			if ev.kind == kind {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %q event", kind)
		}
	}
}

// seekers returns the open seeks, as anyone sees them.
func openSeeks(t *testing.T, ts *testServer) []Seek {
	t.Helper()
	var out []Seek
	get(t, ts, "/api/seeks", &out)
	return out
}

// TestQuickPairing: two people who ask for the same game are paired at
// once, whoever asks second gets the game in the answer and whoever waited
// hears it on the seek's stream; the game is between their accounts, rated
// as asked, each moving their own seat; offers that differ (the clock,
// rated or casual, the rules) do not pair.
func TestQuickPairing(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ann, bob := newWebClient(t, ts), newWebClient(t, ts)
	ann.signUp("ann")
	bob.signUp("bob")
	const offer = `{"rules":{"houses":6,"seeds":4},"clock_ms":180000,"increment_ms":2000,"rated":true}`
	var first Seek
	if code := ann.do("POST", "/api/seeks", offer, &first); code != 201 || first.ID == 0 || first.Game != 0 {
		t.Fatalf("ann's seek: %d %+v", code, first)
	}
	events, code, _ := openSSE(t, ann.c, fmt.Sprintf("%s/api/seeks/%d/events", ts.http.URL, first.ID))
	if code != 200 {
		t.Fatalf("ann's stream: %d", code)
	}
	nextEvent(t, events, "seek")
	// Different offers wait side by side.
	for _, other := range []string{
		`{"rules":{"houses":6,"seeds":4},"clock_ms":300000,"increment_ms":3000,"rated":true}`,
		`{"rules":{"houses":6,"seeds":4},"clock_ms":180000,"increment_ms":2000,"rated":false}`,
		`{"rules":{"houses":6,"seeds":3},"clock_ms":180000,"increment_ms":2000,"rated":true}`,
	} {
		var sk Seek
		if code := bob.do("POST", "/api/seeks", other, &sk); code != 201 || sk.Game != 0 {
			t.Fatalf("bob's %s: %d %+v", other, code, sk)
		}
	}
	if n := len(openSeeks(t, ts)); n != 2 {
		t.Fatalf("%d open seeks, want ann's and bob's newest", n)
	}
	// The same offer: paired at once.
	var second Seek
	if code := bob.do("POST", "/api/seeks", offer, &second); code != 201 || second.Game <= 0 || second.Token == "" {
		t.Fatalf("bob's equal offer: %d %+v", code, second)
	}
	var paired Seek
	if err := jsonOf(nextEvent(t, events, "paired").data, &paired); err != nil || paired.Game != second.Game || paired.Token == "" || paired.Token == second.Token {
		t.Fatalf("ann hears %+v (%v); bob's game %d", paired, err, second.Game)
	}
	if n := len(openSeeks(t, ts)); n != 0 {
		t.Fatalf("%d open seeks after the pairing", n)
	}
	b, err := ts.srv.BoardOf(context.Background(), second.Game)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{b.Seats[0].ID.String(), b.Seats[1].ID.String()}
	if !(ids[0] == "user:ann" && ids[1] == "user:bob" || ids[0] == "user:bob" && ids[1] == "user:ann") || !b.Rated || b.Casual || b.ClockMS != 180000 {
		t.Fatalf("the game: seats %v rated %v casual %v clock %d", ids, b.Rated, b.Casual, b.ClockMS)
	}
	// Each moves their own seat by the token they were given.
	south := second.Token
	if ids[0] == "user:ann" {
		south = paired.Token
	}
	moveWhenAsked(t, ts.srv, second.Game, south, 1)
}

// jsonOf decodes an event's data.
func jsonOf(data string, v any) error { return json.Unmarshal([]byte(data), v) }

// TestQuickPairingAtOnce: twenty people ask for the same game at the same
// moment; they are paired two by two, each in exactly one game, nobody
// with themselves.
func TestQuickPairingAtOnce(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	const n = 20
	clients := make([]*webClient, n)
	for i := range clients {
		clients[i] = newWebClient(t, ts)
		clients[i].signUp(fmt.Sprintf("p%02d", i))
	}
	seeks := make([]Seek, n)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code := c.do("POST", "/api/seeks", `{"clock_ms":60000,"rated":true}`, &seeks[i]); code != 201 {
				t.Errorf("seek %d: %d", i, code)
			}
		}()
	}
	wg.Wait()
	games := map[int64][]string{}
	for i, sk := range seeks {
		var now Seek
		clients[i].do("GET", fmt.Sprintf("/api/seeks/%d", sk.ID), "", &now)
		if now.Game <= 0 {
			t.Fatalf("p%02d is not paired: %+v", i, now)
		}
		games[now.Game] = append(games[now.Game], sk.By)
	}
	if len(games) != n/2 {
		t.Fatalf("%d games for %d people: %v", len(games), n, games)
	}
	for id, who := range games {
		if len(who) != 2 || who[0] == who[1] {
			t.Errorf("game %d: %v", id, who)
		}
	}
}

// TestPairingByRatingRange: a seek with a rating range meets only
// someone within it, and only if it is within theirs; among those that
// fit, the nearest rating; Accept holds the seeker's range too.
func TestPairingByRatingRange(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ctx := context.Background()
	pool := poolOf(kalah.Standard(), referee.Referee{Budget: 3 * time.Minute, Increment: 2 * time.Second})
	// Carl has won twenty games on the ladder: far above 1500.
	carlID, dummy := identity.Of(identity.Person, "carl"), identity.Of(identity.Person, "dummy")
	people := map[string]*webClient{}
	for _, name := range []string{"ann", "bob", "carl", "dummy", "dora"} {
		people[name] = newWebClient(t, ts)
		people[name].signUp(name)
	}
	for i := range 20 {
		if _, err := ts.st.RateGame(ctx, int64(1000+i), pool, [2]identity.ID{carlID, dummy}, 1); err != nil {
			t.Fatal(err)
		}
	}
	carlRating := ts.srv.ratingIn(ctx, carlID, pool).Rating
	if carlRating < 1800 {
		t.Fatalf("carl's rating %d", carlRating)
	}
	std, _ := json.Marshal(kalah.Standard())
	offer := func(rng int) string {
		return fmt.Sprintf(`{"rules":%s,"clock_ms":180000,"increment_ms":2000,"rated":true,"range":%d}`, std, rng)
	}
	// Ann (1500) accepts ±200: carl may not join her, neither by seeking
	// nor by Accept; bob (1500) does.
	var annSeek, carlSeek, bobSeek Seek
	people["ann"].do("POST", "/api/seeks", offer(200), &annSeek)
	_, _, _ = openSSE(t, people["ann"].c, fmt.Sprintf("%s/api/seeks/%d/events", ts.http.URL, annSeek.ID))
	if code := people["carl"].do("POST", "/api/seeks", offer(0), &carlSeek); code != 201 || carlSeek.Game != 0 {
		t.Fatalf("carl's seek: %d %+v", code, carlSeek)
	}
	_, _, _ = openSSE(t, people["carl"].c, fmt.Sprintf("%s/api/seeks/%d/events", ts.http.URL, carlSeek.ID))
	if code := people["carl"].do("POST", fmt.Sprintf("/api/seeks/%d/accept", annSeek.ID), "{}", nil); code != http.StatusForbidden {
		t.Fatalf("carl accepts ann's ±200: %d", code)
	}
	// The list says so beforehand: to carl ann's seek is closed, to bob
	// and to ann herself open, to a guest closed (it is rated).
	closed := func(c *webClient) string {
		var list []Seek
		c.do("GET", "/api/seeks", "", &list)
		for _, sk := range list {
			if sk.ID == annSeek.ID {
				return sk.Closed
			}
		}
		t.Fatalf("ann's seek is not listed: %+v", list)
		return ""
	}
	if why := closed(people["carl"]); !strings.Contains(why, "outside the ±200") {
		t.Errorf("ann's seek as carl reads it: closed %q", why)
	}
	if why := closed(newWebClient(t, ts)); !strings.Contains(why, "sign in") {
		t.Errorf("ann's seek as a guest reads it: closed %q", why)
	}
	for _, name := range []string{"ann", "bob"} {
		if why := closed(people[name]); why != "" {
			t.Errorf("ann's seek as %s reads it: closed %q", name, why)
		}
	}
	// Bob asks ±1000: both fit him; he gets the nearest, ann.
	if code := people["bob"].do("POST", "/api/seeks", offer(1000), &bobSeek); code != 201 || bobSeek.Game <= 0 {
		t.Fatalf("bob's seek: %d %+v", code, bobSeek)
	}
	var annNow Seek
	people["ann"].do("GET", fmt.Sprintf("/api/seeks/%d", annSeek.ID), "", &annNow)
	if annNow.Game != bobSeek.Game {
		t.Fatalf("bob was paired in game %d, ann in %d", bobSeek.Game, annNow.Game)
	}
	// Dora asks ±100: carl waits with no range, but she does not fit in
	// hers; she waits beside him.
	var doraSeek Seek
	people["dora"].do("POST", "/api/seeks", offer(100), &doraSeek)
	if doraSeek.Game != 0 {
		t.Fatalf("dora (±100) paired with carl (%d): %+v", carlRating, doraSeek)
	}
	if code := people["dora"].do("POST", "/api/seeks", offer(lobby.MaxRange+1), nil); code != http.StatusBadRequest {
		t.Fatalf("a range of %d: %d", lobby.MaxRange+1, code)
	}
}

// TestSeekLivesWithItsSeeker: a seek whose seeker never follows it goes
// after the grace; one followed lives while its stream is open and goes
// the moment the last one closes; nobody else may follow it.
func TestSeekLivesWithItsSeeker(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ts.srv.lobby.SetGrace(300 * time.Millisecond)
	ann, bob := newWebClient(t, ts), newWebClient(t, ts)
	ann.signUp("ann")
	bob.signUp("bob")
	var alone Seek
	ann.do("POST", "/api/seeks", `{"clock_ms":60000}`, &alone)
	if n := len(openSeeks(t, ts)); n != 1 {
		t.Fatalf("%d open seeks", n)
	}
	time.Sleep(400 * time.Millisecond)
	if n := len(openSeeks(t, ts)); n != 0 {
		t.Fatalf("a seek nobody follows is still open after the grace: %d", n)
	}
	if code := ann.do("GET", fmt.Sprintf("/api/seeks/%d", alone.ID), "", nil); code != 404 {
		t.Fatalf("the seek gone: %d", code)
	}
	var sk Seek
	ann.do("POST", "/api/seeks", `{"clock_ms":60000}`, &sk)
	if _, code, _ := openSSE(t, bob.c, fmt.Sprintf("%s/api/seeks/%d/events", ts.http.URL, sk.ID)); code != http.StatusForbidden {
		t.Fatalf("bob follows ann's seek: %d", code)
	}
	ev1, _, close1 := openSSE(t, ann.c, fmt.Sprintf("%s/api/seeks/%d/events", ts.http.URL, sk.ID))
	_, _, close2 := openSSE(t, ann.c, fmt.Sprintf("%s/api/seeks/%d/events", ts.http.URL, sk.ID))
	nextEvent(t, ev1, "seek")
	time.Sleep(400 * time.Millisecond)
	if n := len(openSeeks(t, ts)); n != 1 {
		t.Fatalf("a followed seek went after the grace: %d open", n)
	}
	close1() // one tab of two closes: the seek stays
	time.Sleep(100 * time.Millisecond)
	if n := len(openSeeks(t, ts)); n != 1 {
		t.Fatalf("with a stream left the seek went: %d open", n)
	}
	close2()
	deadline := time.Now().Add(2 * time.Second)
	for len(openSeeks(t, ts)) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the seek outlived its seeker's last stream")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Gone: bob's equal offer waits instead of joining a seeker who left.
	var bobs Seek
	bob.do("POST", "/api/seeks", `{"clock_ms":60000}`, &bobs)
	if bobs.Game != 0 {
		t.Fatalf("bob paired with a seek whose seeker left: %+v", bobs)
	}
}

// TestSeeksOfGuestsAndBots: a guest seeks and accepts casual games, not
// rated ones; a bot's token seeks nothing; one address holds at most
// lobby.MaxSeeksPerAddr open seeks, however many guests it makes.
func TestSeeksOfGuestsAndBots(t *testing.T) {
	ts := newTestServer(t, "", Config{})
	ann := newWebClient(t, ts)
	ann.signUp("ann")
	guest := newWebClient(t, ts)
	if code := guest.do("POST", "/api/seeks", `{"clock_ms":60000,"rated":true}`, nil); code != http.StatusUnauthorized {
		t.Fatalf("a guest's rated seek: %d", code)
	}
	var gs Seek
	if code := guest.do("POST", "/api/seeks", `{"clock_ms":60000}`, &gs); code != 201 || gs.ByID.Kind != identity.Guest || gs.Rated {
		t.Fatalf("a guest's casual seek: %d %+v", code, gs)
	}
	if open := openSeeks(t, ts); len(open) != 1 || open[0].Rating != nil || !strings.HasPrefix(open[0].By, "guest-") {
		t.Fatalf("the guest's seek listed as %+v", open)
	}
	var annRated Seek
	ann.do("POST", "/api/seeks", `{"clock_ms":120000,"rated":true}`, &annRated)
	if code := guest.do("POST", fmt.Sprintf("/api/seeks/%d/accept", annRated.ID), "{}", nil); code != http.StatusUnauthorized {
		t.Fatalf("a guest accepts a rated seek: %d", code)
	}
	var st Started
	if code := ann.do("POST", fmt.Sprintf("/api/seeks/%d/accept", gs.ID), "{}", &st); code != 201 || st.ID == 0 {
		t.Fatalf("ann accepts the guest's casual seek: %d %+v", code, st)
	}
	b, _ := ts.srv.BoardOf(context.Background(), st.ID)
	if !b.Casual || b.Rated {
		t.Fatalf("a casual seek's game: casual %v rated %v", b.Casual, b.Rated)
	}
	var made struct{ Token string }
	ann.do("POST", "/api/account/bots", `{"name":"annbot"}`, &made)
	req, _ := http.NewRequest("POST", ts.http.URL+"/api/seeks", strings.NewReader(`{"clock_ms":60000}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+made.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a bot's seek: %d", resp.StatusCode)
	}
	// A stranger making a new guest for every seek: bounded by address
	// (ann's seek, from the same address, withdrawn first).
	ann.do("POST", fmt.Sprintf("/api/seeks/%d/cancel", annRated.ID), "{}", nil)
	refused := 0
	for i := range lobby.MaxSeeksPerAddr + 2 {
		jar, _ := cookiejar.New(nil)
		c := &webClient{t: t, base: ts.http.URL, c: &http.Client{Jar: jar}}
		if code := c.do("POST", "/api/seeks", fmt.Sprintf(`{"clock_ms":%d}`, 60000*(i+3)), nil); code == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused != 2 {
		t.Fatalf("%d of %d guests' seeks from one address refused, want 2", refused, lobby.MaxSeeksPerAddr+2)
	}
}

package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kalah"
	"kalah/internal/identity"
	"kalah/server"
)

// people returns a browser for each name, signed up in it, on the lobby
// of srv, each a browser of its own (cookies, storage); sowing is not
// animated, to keep the tests short.
func people(t *testing.T, srv string, names ...string) []context.Context {
	t.Helper()
	first := browser(t, 900, 900)
	out := []context.Context{first}
	for range names[1:] {
		ctx, cancel := chromedp.NewContext(first, chromedp.WithNewBrowserContext())
		t.Cleanup(cancel)
		out = append(out, ctx)
	}
	for i, name := range names {
		if name == "" {
			open(t, out[i], srv+"/#/lobby") // a visitor
			continue
		}
		signUp(t, out[i], srv, name)
		eval[bool](t, out[i], `(localStorage.setItem("kalah.animate", "off"), true)`)
	}
	return out
}

// gameID returns the game a page shows.
func gameID(t *testing.T, ctx context.Context) string {
	t.Helper()
	return strings.TrimPrefix(eval[string](t, ctx, `location.hash`), "#/game/")
}

// TestBrowserQuickPairing: two people click the same clock in the lobby at
// the same moment and land in one game, each at the bottom of their own
// board, with the tab telling the one to move that it is their turn; the
// lobby says what each rule preset is.
func TestBrowserQuickPairing(t *testing.T) {
	srv := servedLikeServe(t)
	ps := people(t, srv.URL, "ann", "bob")
	ann, bob := ps[0], ps[1]
	for _, ctx := range ps {
		open(t, ctx, srv.URL+"/#/lobby")
		waitJS(t, ctx, `document.querySelector('#quick button[data-tc="3+2"]')`)
	}
	if info := eval[string](t, ann, `document.querySelector("#presetinfo").textContent`); !strings.Contains(info, "6 houses of 4 seeds") {
		t.Errorf("the standard preset reads %q", info)
	}
	eval[bool](t, ann, `(document.querySelector("#seekpreset").value = "kgp", document.querySelector("#seekpreset").dispatchEvent(new Event("change")), true)`)
	if info := eval[string](t, ann, `document.querySelector("#presetinfo").textContent`); !strings.Contains(info, "8 houses of 8 seeds") {
		t.Errorf("kgp reads %q", info)
	}
	eval[bool](t, ann, `(document.querySelector("#seekpreset").value = "kalah", document.querySelector("#seekpreset").dispatchEvent(new Event("change")), true)`)
	// Both click 3+2 rated, one right after the other.
	click := `(document.querySelector('#quick button[data-tc="3+2"]').click(), true)`
	eval[bool](t, ann, click)
	eval[bool](t, bob, click)
	for _, ctx := range ps {
		waitJS(t, ctx, `location.hash.startsWith("#/game/") && document.querySelectorAll("button.pit").length === 12`)
	}
	if a, b := gameID(t, ann), gameID(t, bob); a != b {
		t.Fatalf("ann is in game %s, bob in %s", a, b)
	}
	for name, ctx := range map[string]context.Context{"ann": ann, "bob": bob} {
		other := map[string]string{"ann": "bob", "bob": "ann"}[name]
		waitJS(t, ctx, `/^You \d+\? \((South|North)\)$/.test(document.querySelector("#bottomlabel").textContent) && document.querySelector("#toplabel").textContent.startsWith("`+other+` ")`)
	}
	// The one to move is told so in the tab's title too.
	mover := ann
	if eval[bool](t, bob, `document.querySelector("#status").textContent === "Your move"`) {
		mover = bob
	}
	waitJS(t, mover, `document.title.startsWith("Your turn")`)
	if open := evalAwait[float64](t, ann, `fetch("/api/seeks").then(r => r.json()).then(s => s.length)`); open != 0 {
		t.Errorf("%v seeks left open after the pairing", open)
	}
	shot(t, ann, "quick-pairing")
}

// TestBrowserSeekGoesWithItsPage: a seek shows in another person's lobby
// while its seeker's page is open, and is gone from it once that page
// closes, with no Cancel clicked.
func TestBrowserSeekGoesWithItsPage(t *testing.T) {
	srv := servedLikeServe(t)
	ps := people(t, srv.URL, "ann", "bob")
	bob := ps[1]
	annTab, closeTab := chromedp.NewContext(ps[0]) // a tab of ann's browser
	defer closeTab()
	open(t, annTab, srv.URL+"/#/lobby")
	click(t, annTab, `#quick button[data-tc="5+3"]`)
	waitJS(t, annTab, `document.querySelector("#seeking")`)
	open(t, bob, srv.URL+"/#/lobby")
	waitJS(t, bob, `[...document.querySelectorAll("#seeks li")].some(li => li.textContent.startsWith("ann "))`)
	time.Sleep(server.SeekGrace / 5) // well within the grace: the stream keeps it, not the grace
	closeTab()
	start := time.Now()
	waitJS(t, bob, `![...document.querySelectorAll("#seeks li")].some(li => li.textContent.startsWith("ann "))`)
	if d := time.Since(start); d > server.SeekGrace/2 {
		t.Errorf("the seek went %v after its page closed", d)
	}
	if n := evalAwait[float64](t, bob, `fetch("/api/seeks").then(r => r.json()).then(s => s.length)`); n != 0 {
		t.Errorf("%v seeks open after their page closed", n)
	}
}

// TestBrowserAbort: before both sides have moved, both players see Abort
// (and no Resign), after the first move too; the one who has not moved
// aborts; both pages say so, and neither shows Abort or Resign any more;
// the game reads unrated and "aborted" on the board, in its record and in
// the archive (of a rated seek); nobody's rating moves; the rematch asked
// by one changes the other's tab title in the background, notifies them,
// and is offered to them.
func TestBrowserAbort(t *testing.T) {
	srv := servedLikeServe(t)
	ps := people(t, srv.URL, "ann", "bob")
	ann, bob := ps[0], ps[1]
	for _, ctx := range ps {
		open(t, ctx, srv.URL+"/#/lobby")
		waitJS(t, ctx, `document.querySelector('#quick button[data-tc="1+0"]')`)
		eval[bool](t, ctx, `(document.querySelector('#quick button[data-tc="1+0"]').click(), true)`)
	}
	for _, ctx := range ps {
		waitJS(t, ctx, `location.hash.startsWith("#/game/") && document.querySelectorAll("button.pit").length === 12`)
		waitJS(t, ctx, `!document.querySelector("#abort").hidden && document.querySelector("#resign").hidden`)
	}
	id := gameID(t, ann)
	first, second, secondName := ann, bob, "bob"
	waitJS(t, ann, `/^(Your move|bob to move…)$/.test(document.querySelector("#status").textContent)`)
	if eval[string](t, ann, `document.querySelector("#status").textContent`) != "Your move" {
		first, second, secondName = bob, ann, "ann"
	}
	play(t, first, `button.pit[data-side]:not(:disabled)`, `document.querySelector("#moves").textContent.startsWith("1.")`)
	waitJS(t, second, `document.querySelector("#moves").textContent.startsWith("1.")`)
	for _, ctx := range ps {
		waitJS(t, ctx, `!document.querySelector("#abort").hidden && !document.querySelector("#abort").disabled`)
	}
	click(t, second, "#abort")
	waitJS(t, second, `document.querySelector("#status").textContent === "You aborted the game"`)
	waitJS(t, first, `document.querySelector("#status").textContent === "`+secondName+` aborted the game"`)
	for _, ctx := range ps {
		waitJS(t, ctx, `document.querySelector("#abort").hidden && document.querySelector("#resign").hidden && document.querySelector("#gameinfo").textContent === "Unrated"`)
	}
	// Unrated and "aborted" everywhere: the board, the record.
	if got := evalAwait[string](t, ann, `Promise.all([fetch("/api/games/`+id+`/board").then(r => r.json()), fetch("/api/games/`+id+`").then(r => r.json())]).then(([b, g]) => [b.rated, b.result, g.record.result, g.record.termination].join(" "))`); got != "false aborted aborted aborted" {
		t.Errorf("the aborted game's board and record say (rated, result, record's result and termination) %q", got)
	}
	for _, name := range []string{"ann", "bob"} {
		ratings := evalAwait[float64](t, ann, `fetch("/api/players/`+name+`").then(r => r.json()).then(p => p.ratings.length)`)
		if ratings != 0 {
			t.Errorf("%s has %v ratings after an aborted game", name, ratings)
		}
	}
	// The archive, from ann's side.
	open(t, ann, srv.URL+"/#/player/ann")
	waitJS(t, ann, `document.querySelector('#playergames tr[data-game="`+id+`"]')`)
	row := eval[string](t, ann, `[...document.querySelectorAll('#playergames tr[data-game="`+id+`"] td')].map(td => td.textContent).join(" | ")`)
	if !regexp.MustCompile(`^\S.* \| bob \| Aborted \| \d+–\d+ \| unrated \| 1\+0 \| kalah$`).MatchString(row) {
		t.Errorf("ann's archive row: %q", row)
	}
	// The rematch: bob asks; ann, on the game's page in a tab behind
	// another, sees her tab's title say so, is notified (she turned
	// notifications on), and is offered it there. A headless browser
	// keeps every tab in view and focused, so her page is told it is not:
	// its visibility and focus, and the browser's notifications (a spy
	// that keeps what it is given), stand in for a real desktop's.
	open(t, ann, srv.URL+"/#/game/"+id)
	open(t, bob, srv.URL+"/#/game/"+id)
	waitJS(t, ann, `document.querySelector("#summary") && !document.querySelector("#summary").hidden`)
	eval[bool](t, ann, `(window.Notification = Object.assign(function (title, o) { window.kalahSent = (window.kalahSent || []).concat(o.body); },
		{permission: "default", requestPermission: async () => (window.Notification.permission = "granted")}), true)`)
	click(t, ann, "#notifybtn")
	waitJS(t, ann, `document.querySelector("#notifybtn").textContent === "Notifications: on"`)
	before := eval[string](t, ann, `document.title`)
	background(t, ann)
	eval[bool](t, ann, `(Object.defineProperty(document, "visibilityState", {get: () => "hidden"}), document.hasFocus = () => false, document.dispatchEvent(new Event("visibilitychange")), true)`)
	waitJS(t, bob, `document.querySelector("#rematch")`)
	click(t, bob, "#rematch")
	waitJS(t, bob, `location.hash !== "#/game/`+id+`"`)
	waitJS(t, ann, `document.title.startsWith("Rematch offered · ")`)
	waitJS(t, ann, `(window.kalahSent || []).includes("bob offers a rematch")`)
	if after := eval[string](t, ann, `document.title`); after == before || !strings.HasSuffix(after, before) {
		t.Errorf("the background tab's title went from %q to %q", before, after)
	}
	if err := chromedp.Do(ann, bringToFront()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ann, `document.querySelector("#rematchoffer") && document.querySelector("#rematchoffer").textContent.startsWith("bob offers a rematch")`)
	click(t, ann, "#rematchaccept")
	waitJS(t, ann, `location.hash === "`+eval[string](t, bob, `location.hash`)+`"`)
}

// TestBrowserChat: in a rated game the players talk in their room, which
// the spectators do not see; a signed-in spectator talks in the
// spectators' room, which the players see only once the game is over; a
// guest reads it but may not write; the switch hides the chat.
func TestBrowserChat(t *testing.T) {
	srv := servedLikeServe(t)
	ps := people(t, srv.URL, "ann", "bob", "sue", "")
	ann, bob, sue, guest := ps[0], ps[1], ps[2], ps[3]
	for _, ctx := range ps[:2] {
		open(t, ctx, srv.URL+"/#/lobby")
		waitJS(t, ctx, `document.querySelector('#quick button[data-tc="10+0"]')`)
		eval[bool](t, ctx, `(document.querySelector('#quick button[data-tc="10+0"]').click(), true)`)
	}
	for _, ctx := range ps[:2] {
		waitJS(t, ctx, `location.hash.startsWith("#/game/") && document.querySelector("#chattitle").textContent === "Chat with your opponent"`)
	}
	id := gameID(t, ann)
	for _, ctx := range []context.Context{sue, guest} {
		open(t, ctx, srv.URL+"/#/game/"+id)
		waitJS(t, ctx, `document.querySelector("#chattitle").textContent === "Spectators' chat"`)
	}
	if !eval[bool](t, guest, `document.querySelector("#chatform").hidden && document.querySelector("#chatwhy").textContent.includes("sign in")`) {
		t.Errorf("a guest may write in a rated game's chat: %q", eval[string](t, guest, `document.querySelector("#chatwhy").textContent`))
	}
	say := func(ctx context.Context, text string) {
		t.Helper()
		eval[bool](t, ctx, fmt.Sprintf(`(document.querySelector("#chatinput").value = %q, true)`, text))
		click(t, ctx, "#chatsend")
		waitJS(t, ctx, fmt.Sprintf(`document.querySelector("#chatinput").value === "" && document.querySelector("#chatlines").textContent.includes(%q)`, text))
	}
	lines := func(ctx context.Context) string {
		return eval[string](t, ctx, `[...document.querySelectorAll("#chatlines li:not(.nochat)")].map(li => li.textContent).join(" / ")`)
	}
	say(ann, "good luck")
	waitJS(t, bob, `document.querySelector("#chatlines").textContent.includes("ann: good luck")`)
	say(sue, "go ann")
	waitJS(t, guest, `document.querySelector("#chatlines").textContent.includes("sue: go ann")`)
	time.Sleep(500 * time.Millisecond) // time for a line to go astray
	for name, want := range map[string]string{"ann": "ann: good luck", "bob": "ann: good luck", "sue": "sue: go ann", "guest": "sue: go ann"} {
		ctx := map[string]context.Context{"ann": ann, "bob": bob, "sue": sue, "guest": guest}[name]
		if got := lines(ctx); got != want {
			t.Errorf("%s's chat: %q, want %q", name, got, want)
		}
	}
	shot(t, bob, "chat-players")
	// The switch hides the chat, and the page remembers it.
	click(t, bob, "#chatshow")
	waitJS(t, bob, `document.querySelector("#chatbody").hidden`)
	open(t, bob, srv.URL+"/?again#/game/"+id)
	waitJS(t, bob, `document.querySelector("#chatbody") && document.querySelector("#chatbody").hidden && !document.querySelector("#chatshow").checked`)
	click(t, bob, "#chatshow")
	// The game ends (bob resigns; before both moved that aborts it): the
	// players read the spectators now, marked as such.
	eval[bool](t, bob, `(window.confirm = () => true, true)`)
	waitJS(t, bob, `!document.querySelector("#resign").hidden || !document.querySelector("#abort").hidden`)
	if eval[bool](t, bob, `!document.querySelector("#abort").hidden`) {
		click(t, bob, "#abort")
	} else {
		click(t, bob, "#resign")
	}
	waitJS(t, ann, `document.querySelector("#chatlines").textContent.includes("sue (spectator): go ann")`)
	if got := lines(sue); strings.Contains(got, "good luck") {
		t.Errorf("after the game the spectators read the players: %q", got)
	}
	shot(t, ann, "chat-after")
}

// TestBrowserFollow: ann follows bob from his page; bob's live game shows
// in her lobby, and takes her there.
func TestBrowserFollow(t *testing.T) {
	srv := servedLikeServe(t)
	ann := people(t, srv.URL, "ann")[0]
	startAs(t, srv.URL, "carl", NewGame{South: "human", North: "random"}) // someone ann does not follow
	open(t, ann, srv.URL+"/?x#/lobby")
	waitJS(t, ann, `document.querySelector("#followgames li")`)
	if txt := eval[string](t, ann, `document.querySelector("#followgames").textContent`); !strings.Contains(txt, "You follow no one yet") {
		t.Errorf("ann's following list: %q", txt)
	}
	bobGame := startAs(t, srv.URL, "bob", NewGame{South: "human", North: "random"})
	open(t, ann, srv.URL+"/#/player/bob")
	waitJS(t, ann, `document.querySelector("#followbtn") && document.querySelector("#followbtn").textContent === "Follow"`)
	click(t, ann, "#followbtn")
	waitJS(t, ann, `document.querySelector("#followbtn").textContent === "Unfollow" && document.querySelector("#followers").textContent === "1 follower"`)
	open(t, ann, srv.URL+"/#/lobby")
	link := `#followgames a[href="#/game/` + bobGame.ID + `"]`
	waitJS(t, ann, `document.querySelector('`+link+`')`)
	if n := eval[int](t, ann, `document.querySelectorAll("#followgames li").length`); n != 1 {
		t.Errorf("%d games in ann's followed list, want bob's", n)
	}
	shot(t, ann, "lobby-following")
	click(t, ann, link)
	waitJS(t, ann, `location.hash === "#/game/`+bobGame.ID+`" && document.querySelector("#gametitle").textContent.startsWith("bob vs random")`)
}

// TestBrowserLadders: a profile charts one ladder at a time, by tabs, never
// joining two ladders into one line; the ratings page shows one ladder
// at a time, each player once, the provisional ones apart.
func TestBrowserLadders(t *testing.T) {
	path := t.TempDir() + "/kalah.db"
	msrv, st := newMatchServerAt(t, path, server.Config{})
	srv, _ := browserServerWith(t, func(ctx context.Context) Options { return Options{Server: msrv} })
	ctx := context.Background()
	for _, name := range []string{"ann", "bob", "carl", "dave"} {
		if err := st.CreateUser(ctx, name, "a long password"); err != nil {
			t.Fatal(err)
		}
	}
	who := func(name string) identity.ID { return identity.Of(identity.Person, name) }
	// Ann and bob: twenty blitz games (established); dave one blitz game;
	// ann one bullet game against carl.
	game := int64(1000)
	for i := range 20 {
		game++
		if _, err := st.RateGame(ctx, game, "kalah/blitz", [2]identity.ID{who("ann"), who("bob")}, float64(i%2)); err != nil {
			t.Fatal(err)
		}
	}
	game++
	st.RateGame(ctx, game, "kalah/blitz", [2]identity.ID{who("dave"), who("bob")}, 1)
	game++
	st.RateGame(ctx, game, "kalah/bullet", [2]identity.ID{who("ann"), who("carl")}, 0)

	page := browser(t, 900, 900)
	open(t, page, srv.URL+"/#/player/ann")
	waitJS(t, page, `document.querySelectorAll("#charttabs [role=tab]").length === 2`)
	if sel := eval[string](t, page, `document.querySelector('#charttabs [aria-selected="true"]').dataset.pool`); sel != "kalah/blitz" {
		t.Errorf("the chart opens on %q, want the busiest ladder", sel)
	}
	if n := eval[int](t, page, `document.querySelector("#ratingchart polyline").getAttribute("points").split(" ").length`); n != 21 {
		t.Errorf("the blitz line has %d points, want the start and ann's 20 blitz games", n)
	}
	shot(t, page, "profile-ladders")
	click(t, page, `#charttabs [data-pool="kalah/bullet"]`)
	// The chart is drawn from the first rated game: a line from 1500.
	waitJS(t, page, `document.querySelector("#ratingchart").dataset.pool === "kalah/bullet" && document.querySelector("#ratingchart polyline").getAttribute("points").split(" ").length === 2 && document.querySelector("#ratingchart svg").getAttribute("aria-label").startsWith("Rating after each of 1 game: from 1500 to ")`)

	open(t, page, srv.URL+"/#/ratings")
	waitJS(t, page, `document.querySelector("#ladders a[aria-current=page]")`)
	names := func(table string) []string {
		return eval[[]string](t, page, `[...document.querySelectorAll("#`+table+` td a")].map(a => a.textContent)`)
	}
	if cur := eval[string](t, page, `document.querySelector("#ladders a[aria-current=page]").dataset.pool`); cur != "kalah/blitz" {
		t.Errorf("the ratings open on %q", cur)
	}
	if got := names("leaderboard"); len(got) != 2 || !(got[0] == "ann" || got[0] == "bob") || got[0] == got[1] {
		t.Errorf("the blitz leaderboard: %v", got)
	}
	if got := names("provisional"); len(got) != 1 || got[0] != "dave" {
		t.Errorf("blitz, provisional: %v", got)
	}
	shot(t, page, "ratings-ladder")
	click(t, page, `#ladders a[data-pool="kalah/bullet"]`)
	waitJS(t, page, `document.querySelector("#laddertitle").textContent === "kalah, bullet" && document.querySelector("#leaderboard-none")`)
	if got := names("provisional"); len(got) != 2 {
		t.Errorf("bullet, provisional: %v", got)
	}
	// An unknown player: a page that says so.
	open(t, page, srv.URL+"/#/player/nosuchperson")
	waitJS(t, page, `document.querySelector("#noplayer") && document.querySelector("#noplayer").textContent === "No such player"`)
}

// TestBrowserBackAfterSignUp: a visitor on the ratings page goes to sign
// up and comes back to the ratings, signed in.
func TestBrowserBackAfterSignUp(t *testing.T) {
	srv := servedLikeServe(t)
	ctx := browser(t, 900, 800)
	open(t, ctx, srv.URL+"/#/watch")
	click(t, ctx, "#acct")
	waitJS(t, ctx, `document.querySelector("#acctname")`)
	eval[bool](t, ctx, `(document.querySelector("#acctname").value = "newcomer", document.querySelector("#acctpass").value = "a long password", true)`)
	click(t, ctx, "#signup")
	waitJS(t, ctx, `document.querySelector("#acct").textContent === "newcomer" && location.hash === "#/watch" && document.querySelector("#gamelist")`)
}

// TestBrowserCasual: casual means one thing: takebacks (asked of a
// person, at once against the computer) and hints against the computer
// only; a game that is not casual has neither; each button shows only
// where it works.
func TestBrowserCasual(t *testing.T) {
	srv, h := browserServer(t)
	ctx := browser(t, 900, 800)
	open(t, ctx, srv.URL+"/#/play")
	cases := []struct {
		name       string
		req        NewGame
		hint, undo bool
	}{
		{"casual, the computer", NewGame{South: "human", North: "random", Casual: true}, true, true},
		{"not casual, the computer", NewGame{South: "human", North: "random"}, false, false},
		{"casual, a person", NewGame{South: "human", North: "human", Casual: true}, false, true},
	}
	for _, c := range cases {
		g, err := startGame(h, c.req)
		if err != nil {
			t.Fatal(err)
		}
		open(t, ctx, srv.URL+"/?"+g.ID+"#/play")
		takeSeat(t, ctx, g.ID, 0, g.Tokens[0])
		open(t, ctx, srv.URL+"/?"+g.ID+"#/game/"+g.ID)
		waitJS(t, ctx, `!document.querySelector("#controls").hidden && document.querySelector("button.pit:not(:disabled)")`)
		hint, undo := eval[bool](t, ctx, `!document.querySelector("#hint").hidden && !document.querySelector("#auto").hidden`), eval[bool](t, ctx, `!document.querySelector("#undo").hidden`)
		if hint != c.hint || undo != c.undo {
			t.Errorf("%s: hint shown %v, takeback shown %v; want %v, %v", c.name, hint, undo, c.hint, c.undo)
		}
	}
}

// TestBrowserThinking: while the computer thinks, the page says so, with
// the time it has taken, counting.
func TestBrowserThinking(t *testing.T) {
	srv, h := browserServer(t)
	ctx := browser(t, 900, 800)
	// A player that takes its time: a full second and a half a move.
	g, err := startGame(h, NewGame{Rules: kalah.Standard(), South: "human", North: "alphabeta:knowledge:time=2500ms", Casual: true})
	if err != nil {
		t.Fatal(err)
	}
	open(t, ctx, srv.URL+"/#/play")
	takeSeat(t, ctx, g.ID, 0, g.Tokens[0])
	open(t, ctx, srv.URL+"/?t#/game/"+g.ID)
	eval[bool](t, ctx, `(localStorage.setItem("kalah.animate", "off"), true)`)
	play(t, ctx, `button.pit[data-side="S"][data-house="1"]`, `document.querySelector("#moves").textContent.startsWith("1. 1")`)
	waitJS(t, ctx, `/ is thinking… 0 s$/.test(document.querySelector("#status").textContent)`)
	waitJS(t, ctx, `/ is thinking… [12] s$/.test(document.querySelector("#status").textContent)`)
	shot(t, ctx, "thinking")
	waitJS(t, ctx, `document.querySelector("#status").textContent === "Your move"`)
}

// TestNotFoundPage: a path the server has no page for is a page of its
// own, in HTML, 404, with the way back; the API's unknown paths stay JSON.
func TestNotFoundPage(t *testing.T) {
	srv, _ := browserServer(t)
	for path, want := range map[string]string{"/nope": "text/html", "/games/12/x": "text/html", "/web/static/nope.js": "text/html", "/api/nope": "application/json"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var body strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			body.WriteString(string(buf[:n]))
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), want) {
			t.Errorf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if want == "text/html" && (!strings.Contains(body.String(), "No such page") || !strings.Contains(body.String(), `href="/#/lobby"`)) {
			t.Errorf("%s: %s", path, body.String())
		}
		if want == "application/json" {
			var e map[string]string
			if json.Unmarshal([]byte(body.String()), &e) != nil || e["error"] == "" {
				t.Errorf("%s: %s", path, body.String())
			}
		}
	}
}

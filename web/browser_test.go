package web

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kalah"
	"kalah/internal/store"
	_ "kalah/search" // the difficulty levels
	"kalah/server"
)

// chromium returns the browser to drive, or skips the test when there is
// none (CI installs Debian's chromium package).
func chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("KALAH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium binary found (install Debian's chromium package or set KALAH_CHROMIUM); skipping the browser tests")
	return ""
}

// browserParallel lets a browser test run beside the others marked so
// (each has its own Chromium, server and data): the ones that spend most
// of their time waiting (an arena's minute, a clock running out) or long in
// the page. The package's tests are its longest run; go test runs these
// two at a time (-parallel, GOMAXPROCS), after the sequential ones.
func browserParallel(t *testing.T) {
	t.Parallel()
}

// browserServer serves the page on 127.0.0.1.
func browserServer(t testing.TB) (*httptest.Server, *Handler) {
	t.Helper()
	return browserServerWith(t, func(context.Context) Options { return Options{} })
}

// newMatchServerTB is newMatchServer for benchmarks too.
func newMatchServerTB(t testing.TB, cfg server.Config) *server.Server {
	t.Helper()
	srv, _ := newMatchServerAt(t, filepath.Join(t.TempDir(), "kalah.db"), cfg)
	return srv
}

// newMatchServerAt returns a match server on the database at path, with
// hints from a short search, stopped at the end of the test.
func newMatchServerAt(t testing.TB, path string, cfg server.Config) (*server.Server, *store.Store) {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = st
	if os.Getenv("KDEBUG") != "" {
		cfg.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if cfg.Hint == nil {
		an := &Engine{EgdbDir: "-"}
		cfg.Hint = func(ctx context.Context, g *kalah.Game) (kalah.Move, error) {
			return Hint(ctx, an, g, 100*time.Millisecond)
		}
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		st.Close()
	})
	return srv, st
}

// browserServerWith serves a handler with the options opts returns.
func browserServerWith(t testing.TB, opts func(ctx context.Context) Options) (*httptest.Server, *Handler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	o := opts(ctx)
	if o.Server == nil {
		o.Server = newMatchServerTB(t, server.Config{})
	}
	h, err := New(ctx, o)
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
	return srv, h
}

// browser starts a headless Chromium with a fresh profile.
func browser(t testing.TB, width, height int) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		acancel()
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// shot saves a screenshot of the page in $KALAH_SCREENSHOTS, or in
// kalah-screenshots under the system's temporary directory: never in the
// work tree.
func shot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	text := eval[string](t, ctx, `document.querySelector("main").innerText`)
	for _, bad := range []string{"undefined", "null", "NaN", "[object"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s: the page shows %q: %s", name, bad, text)
		}
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("KALAH_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "kalah-screenshots")
	}
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// waitJS polls a JavaScript condition until it is true.
func waitJS(t testing.TB, ctx context.Context, js string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+js+")"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			info, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(window.kalahErrors) + "\nstatus: " + (document.querySelector("#status") || {}).textContent + "\nmoves: " + (document.querySelector("#moves") || {}).textContent + "\n" + document.querySelector("main").innerText.slice(0, 600)`))
			t.Fatalf("waiting for %s: timed out\npage errors and text: %s", js, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func open(t testing.TB, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	waitJS(t, ctx, "document.body.dataset.ready")
}

// accessibleName is JavaScript for the name a screen reader gives the
// element css: its aria-label, or its text without what is aria-hidden.
func accessibleName(css string) string {
	return `(el => el.getAttribute("aria-label") || [...el.childNodes].filter(c => !(c.getAttribute && c.getAttribute("aria-hidden") === "true")).map(c => c.textContent).join(""))(document.querySelector(` + strconv.Quote(css) + `))`
}

// takeSeat gives the open page the seat of game id, as the page keeps it
// after starting or joining a game itself.
func takeSeat(t testing.TB, ctx context.Context, id string, seat int, token string) {
	t.Helper()
	js := fmt.Sprintf(`(localStorage.setItem("kalah.seat.%s", JSON.stringify({seat: %d, token: %s})), true)`, id, seat, strconv.Quote(token))
	eval[bool](t, ctx, js)
}

// play clicks a house (css) on a player's page until the move shows
// there (cond): under load a click by coordinates can land while the page
// still moves, and a house that was not played stays enabled to click
// again, while one that was is not the player's to press any more.
func play(t testing.TB, ctx context.Context, css, cond string) {
	t.Helper()
	for try := 0; ; try++ {
		waitJS(t, ctx, `document.querySelector('`+css+`:not(:disabled)')`)
		click(t, ctx, css)
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) {
			if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+cond+")")); err == nil && ok {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		if try == 3 {
			waitJS(t, ctx, cond)
			return
		}
		if ok, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('`+css+`:not(:disabled)')`)); !ok {
			waitJS(t, ctx, cond) // played, only slow to show
			return
		}
	}
}

// click presses the element with the mouse, at its centre. The page may
// still be laying out (a board arriving over the socket pushes the controls
// below it down), and a click by coordinates taken before such a shift lands
// on whatever moved there; so it first waits until the element has kept its
// place for a few polls.
func click(t testing.TB, ctx context.Context, css string) {
	t.Helper()
	rect := `(r => r && JSON.stringify(r.getBoundingClientRect()))(document.querySelector(` + strconv.Quote(css) + `))`
	for last, same, deadline := "", 0, time.Now().Add(10*time.Second); same < 3; time.Sleep(40 * time.Millisecond) {
		r, err := chromedp.Run(ctx, chromedp.Evaluate[string](rect))
		switch {
		case err == nil && r != "" && r == last:
			same++
		default:
			same = 0
		}
		last = r
		if time.Now().After(deadline) {
			t.Fatalf("click %s: the element does not keep still (%q, %v)", css, r, err)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(cctx, chromedp.Click(chromedp.CSS(css))); err != nil {
		t.Fatalf("click %s: %v", css, err)
	}
}

// TestBrowserPlayFullGame plays a whole game against a computer player by
// clicking pits, with sowing animated for the first moves.
func TestBrowserPlayFullGame(t *testing.T) {
	srv, _ := browserServer(t)
	ctx := browser(t, 900, 820)
	open(t, ctx, srv.URL+"/#/play")
	if n := eval[int](t, ctx, `document.querySelectorAll('#opponent optgroup[label="Difficulty"] option').length`); n == 0 {
		t.Error("no difficulty levels offered")
	}
	shot(t, ctx, "play-form")
	// Choose the opponent and start.
	eval[bool](t, ctx, `(document.querySelector("#opponent").value = "first", true)`)
	click(t, ctx, "#start")
	waitJS(t, ctx, `location.hash.startsWith("#/game/")`)
	waitJS(t, ctx, `document.querySelectorAll("button.pit").length === 12 && document.querySelector("button.pit:not(:disabled)")`)
	label := eval[string](t, ctx, accessibleName(`button.pit[data-side="S"][data-house="3"]`))
	if label != "Your house 3, 4 seeds" {
		t.Errorf("house 3's name %q", label)
	}
	// House 3 ends in the store: an extra turn, called out.
	click(t, ctx, `button.pit[data-side="S"][data-house="3"]`)
	waitJS(t, ctx, `document.querySelector("#callout").textContent === "Extra turn!"`)
	if got := eval[string](t, ctx, `document.querySelector("#moves").textContent`); !strings.HasPrefix(got, "1. 3+") {
		t.Errorf("move list %q", got)
	}
	// House 6 next; the computer answers, sown seed by seed.
	waitJS(t, ctx, `document.querySelector('button.pit[data-side="S"][data-house="6"]:not(:disabled)')`)
	click(t, ctx, `button.pit[data-side="S"][data-house="6"]`)
	waitJS(t, ctx, `/^1\. 3\+6 \d/.test(document.querySelector("#moves").textContent) && document.querySelector("button.pit:not(:disabled)")`)
	if got := eval[string](t, ctx, `document.querySelector("#status").textContent`); got != "Your move" {
		t.Errorf("status %q", got)
	}
	shot(t, ctx, "play-midgame")
	// h asks for a hint: a legal house is marked and announced.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("h")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector('button.pit.hinted[data-side="S"]:not(:disabled)') && document.querySelector("#callout").textContent.startsWith("Hint: house ")`)
	// Keyboard play: the digit of a legal house sows it.
	n := eval[int](t, ctx, `document.querySelector("#moves").textContent.length`)
	k := eval[int](t, ctx, `Math.min(...[...document.querySelectorAll('button.pit[data-side="S"]:not(:disabled)')].map(b => +b.dataset.house))`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent(fmt.Sprint(k))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector("#moves").textContent.length > %d && document.querySelector("button.pit:not(:disabled)")`, n))
	// u takes the turn back, the computer's answer with it.
	before := eval[string](t, ctx, `document.querySelector("#moves").textContent`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent("u")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector("#moves").textContent.length === %d && document.querySelector("button.pit:not(:disabled)")`, n))
	if after := eval[string](t, ctx, `document.querySelector("#moves").textContent`); !strings.HasPrefix(before, after) {
		t.Errorf("undo: %q, then %q", before, after)
	}
	if got := eval[string](t, ctx, `document.querySelector("#moves").textContent`); !strings.HasPrefix(got, "1. 3+6 ") {
		t.Errorf("move list %q", got)
	}
	// The rest without animation, always the rightmost legal house.
	click(t, ctx, "#animate")
	for i := 0; ; i++ {
		if i > 200 {
			t.Fatal("the game does not end")
		}
		waitJS(t, ctx, `!document.querySelector("#summary").hidden || document.querySelector("button.pit:not(:disabled)")`)
		if eval[bool](t, ctx, `!document.querySelector("#summary").hidden`) {
			break
		}
		h := eval[int](t, ctx, `Math.max(...[...document.querySelectorAll('button.pit[data-side="S"]:not(:disabled)')].map(b => +b.dataset.house), 0)`)
		if h == 0 {
			continue // the page changed between the two looks
		}
		click(t, ctx, fmt.Sprintf(`button.pit[data-side="S"][data-house="%d"]:not(:disabled)`, h))
	}
	summary := eval[string](t, ctx, `document.querySelector("#summary").textContent`)
	if !strings.Contains(summary, "Game over") || !strings.Contains(summary, "Captures") {
		t.Errorf("summary %q", summary)
	}
	stores := eval[[]int](t, ctx, `[...document.querySelectorAll(".store")].map(s => parseInt(s.textContent))`)
	if len(stores) != 2 || stores[0]+stores[1] != 48 {
		t.Errorf("stores %v", stores)
	}
	shot(t, ctx, "play-end")
	// A rematch: a new game, the person now North (the computer begins).
	oldHash := eval[string](t, ctx, `location.hash`)
	click(t, ctx, "#rematch")
	waitJS(t, ctx, fmt.Sprintf(`location.hash !== %q && location.hash.startsWith("#/game/") && document.querySelectorAll("button.pit").length === 12`, oldHash))
	waitJS(t, ctx, `document.querySelector("#moves").textContent.startsWith("1.") && document.querySelector('button.pit[data-side="N"]:not(:disabled)')`)
}

// TestBrowserWatchLive opens a computer game from the list of games and
// sees its moves arrive without reloading.
func TestBrowserWatchLive(t *testing.T) {
	srv, h := browserServer(t)
	ctx := browser(t, 900, 760)
	c, err := startGame(h, NewGame{Rules: kalah.Standard(), South: "greedy", North: "first", DelayMS: 500})
	if err != nil {
		t.Fatal(err)
	}
	open(t, ctx, srv.URL+"/#/watch")
	waitJS(t, ctx, `document.querySelector("#gamelist a")`)
	eval[bool](t, ctx, `(window.sameDocument = true)`)
	click(t, ctx, "#gamelist a")
	waitJS(t, ctx, `location.hash === "#/game/`+c.ID+`" && document.querySelector("#moves").textContent.startsWith("1.")`)
	before := eval[string](t, ctx, `document.querySelector("#moves").textContent`)
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector("#moves").textContent.length > %d`, len(before)+4))
	if !eval[bool](t, ctx, `window.sameDocument === true`) {
		t.Error("the page reloaded")
	}
	if eval[bool](t, ctx, `document.querySelector("#controls").offsetParent !== null`) {
		t.Error("a spectator sees the seat controls")
	}
	label := eval[string](t, ctx, accessibleName(`button.pit[data-side="S"][data-house="1"]`))
	if !strings.HasPrefix(label, "South house 1, ") {
		t.Errorf("spectator label %q", label)
	}
	shot(t, ctx, "watch-live")
}

// TestBrowserAnalysis reads the analysis of an endgame and checks every
// value against a brute-force solution.
func TestBrowserAnalysis(t *testing.T) {
	srv, _ := browserServer(t)
	ctx := browser(t, 900, 900)
	const pos = "1,0,2,0,1,1/0,2,0,1,1,0 19-20 S"
	open(t, ctx, srv.URL+"/#/analyze?position="+strings.ReplaceAll(pos, " ", "%20"))
	waitJS(t, ctx, `document.querySelector("#movetable")`)
	var rows []struct {
		Move  string `json:"move"`
		Value int    `json:"value"`
		Exact bool   `json:"exact"`
	}
	raw := eval[json.RawMessage](t, ctx, `[...document.querySelectorAll("#movetable tr[data-move]")].map(r => ({move: r.dataset.move, value: parseInt(r.children[1].textContent), exact: r.children[2].textContent === "exact"}))`)
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	r := kalah.Standard()
	p, _ := kalah.ParsePosition(pos)
	if len(rows) != len(p.Moves()) {
		t.Fatalf("rows %+v", rows)
	}
	for _, row := range rows {
		m, _ := kalah.ParseMove(row.Move)
		if want := moveValue(&r, p, m); row.Value != want || !row.Exact {
			t.Errorf("move %s: page says %d (exact %v), brute force %d", row.Move, row.Value, row.Exact, want)
		}
	}
	// The board editor shows the position.
	if got := eval[string](t, ctx, `document.querySelector("#position").value`); got != pos {
		t.Errorf("position box %q", got)
	}
	// A whole game: the graph of values, stepped through.
	eval[bool](t, ctx, `(document.querySelector("#gamemoves").value = "1. 3+6 1 2. 1 2", true)`)
	click(t, ctx, "#gamebtn")
	waitJS(t, ctx, `document.querySelector("svg.graph") && document.querySelectorAll("svg.graph circle").length === 6`)
	click(t, ctx, "#gnext")
	waitJS(t, ctx, `document.querySelector("#plyinfo").textContent.startsWith("Position 1 of 5: South to move")`)
	if info := eval[string](t, ctx, `document.querySelector("#plyinfo").textContent`); !strings.Contains(info, "played 6") {
		t.Errorf("ply info %q", info)
	}
	shot(t, ctx, "analyze")
	// A position that cannot be read is refused with the reason, never
	// replaced by another one (the start) and analysed.
	for _, bad := range []string{"hello", "4,4,4/4,4 0-0 S"} {
		eval[bool](t, ctx, fmt.Sprintf(`(() => { const p = document.querySelector("#position"); p.value = %q; p.dispatchEvent(new Event("change")); return true })()`, bad))
		waitJS(t, ctx, `document.querySelector("main .err").textContent.startsWith("Not a position")`)
		if got := eval[string](t, ctx, `document.querySelector("#position").value`); got != bad {
			t.Errorf("typed %q, the box now says %q", bad, got)
		}
		click(t, ctx, "#analyzebtn")
		waitJS(t, ctx, `document.querySelector("main .err").textContent !== "" && !document.querySelector("#verdict")`)
		if msg := eval[string](t, ctx, `document.querySelector("main .err").textContent`); msg == "" || strings.Contains(msg, "Thinking") {
			t.Errorf("%q analysed: %q", bad, msg)
		}
	}
}

// signUp makes an account in the browser of ctx, signed in there (its
// cookie only), and reloads the page.
func signUp(t testing.TB, ctx context.Context, base, name string) {
	t.Helper()
	open(t, ctx, base+"/#/account")
	js := fmt.Sprintf(`fetch("/api/account/signup", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({name: %q, password: "a long password"})}).then(r => r.status)`, name)
	if code := evalAwait[float64](t, ctx, js); code != 201 {
		t.Fatalf("sign-up of %s: %v", name, code)
	}
	open(t, ctx, base+"/?"+name+"#/lobby") // a new document: the page asks who it is
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector("#acct").textContent === %q`, name))
}

// signIn signs an account in in the browser of ctx (a second device).
func signIn(t testing.TB, ctx context.Context, base, name string) {
	t.Helper()
	open(t, ctx, base+"/#/account")
	js := fmt.Sprintf(`fetch("/api/account/login", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({name: %q, password: "a long password"})}).then(r => r.status)`, name)
	if code := evalAwait[float64](t, ctx, js); code != 200 {
		t.Fatalf("sign-in of %s: %v", name, code)
	}
}

// TestBrowserTwoPeopleByLink: alice starts a game against "another
// person"; bob opens the invitation's link in his own browser and takes
// the seat, which a stranger then cannot; alice, signed in on a second
// device (her session's cookie only, nothing in its storage), plays her
// game there; both see each other's moves; a casual takeback is asked and
// granted; the lists, the record and the profiles name them by their
// accounts; the rematch gives each their own seat.
func TestBrowserTwoPeopleByLink(t *testing.T) {
	browserParallel(t)
	srv := servedLikeServe(t)
	alice := browser(t, 900, 760)
	signUp(t, alice, srv.URL, "alice")
	// Bob, a stranger and alice's second device have browser profiles of
	// their own (no shared storage or cookies).
	bob, cancel := chromedp.NewContext(alice, chromedp.WithNewBrowserContext())
	defer cancel()
	stranger, cancel2 := chromedp.NewContext(alice, chromedp.WithNewBrowserContext())
	defer cancel2()
	phone, cancel3 := chromedp.NewContext(alice, chromedp.WithNewBrowserContext())
	defer cancel3()
	signUp(t, bob, srv.URL, "bob")

	open(t, alice, srv.URL+"/#/play")
	eval[bool](t, alice, `(document.querySelector("#opponent").value = "human", true)`)
	click(t, alice, "#start")
	waitJS(t, alice, `document.querySelector("#joinlink")`)
	link := eval[string](t, alice, `document.querySelector("#joinlink").href`)
	if !regexp.MustCompile(`#/game/\d+/join/[0-9a-f]{32}$`).MatchString(link) {
		t.Fatalf("link %q: want the game and a 128-bit invitation", link)
	}
	id := regexp.MustCompile(`#/game/(\d+)/`).FindStringSubmatch(link)[1]
	// The game's number alone takes no seat.
	open(t, stranger, srv.URL+"/#/game/"+id+"/join")
	waitJS(t, stranger, `document.querySelector("main .err") && document.querySelector("main .err").textContent.includes("Could not join")`)

	open(t, bob, link)
	waitJS(t, bob, `location.hash === "#/game/`+id+`" && document.querySelectorAll("button.pit").length === 12`)
	// Bob plays North, drawn at the bottom of his board; alice by name.
	waitJS(t, bob, `document.querySelector("#bottomlabel").textContent === "You (North)" && document.querySelector("#toplabel").textContent === "alice (South)"`)
	// The link is spent: the first who opened it owns the seat.
	open(t, stranger, link)
	waitJS(t, stranger, `document.querySelector("main .err") && document.querySelector("main .err").textContent.includes("Could not join")`)

	// alice's second device: signed in, nothing else; her game is hers.
	signIn(t, phone, srv.URL, "alice")
	open(t, phone, srv.URL+"/?phone#/game/"+id)
	waitJS(t, phone, `document.querySelector("#bottomlabel").textContent === "You (South)" && !document.querySelector("#controls").hidden`)
	if got := eval[string](t, phone, `localStorage.length + ""`); got != "0" {
		t.Errorf("the second device keeps %s items in its storage", got)
	}
	play(t, phone, `button.pit[data-side="S"][data-house="1"]`, `document.querySelector("#moves").textContent.startsWith("1. 1")`)
	waitJS(t, alice, `document.querySelector("#moves").textContent.startsWith("1. 1")`)
	waitJS(t, bob, `document.querySelector("#moves").textContent.startsWith("1. 1") && document.querySelector('button.pit[data-side="N"][data-house="1"]:not(:disabled)')`)
	if n := eval[int](t, bob, `document.querySelectorAll('button.pit[data-side="S"]:not(:disabled)').length`); n != 0 {
		t.Errorf("Bob may sow alice's houses: %d", n)
	}
	play(t, bob, `button.pit[data-side="N"][data-house="1"]`, `document.querySelector("#moves").textContent.startsWith("1. 1 1")`)
	waitJS(t, alice, `document.querySelector("#moves").textContent.startsWith("1. 1 1")`)
	waitJS(t, bob, `document.querySelector("#status").textContent === "alice to move…"`)
	shot(t, bob, "two-people-north")
	// A casual game: alice asks to take back her move; Bob accepts, and
	// the takeback (her move and his reply) shows on both pages.
	click(t, alice, "#undo")
	waitJS(t, alice, `document.querySelector("#takebackwait")`)
	waitJS(t, bob, `document.querySelector("#takebackask")`)
	click(t, bob, "#tbaccept")
	for _, ctx := range []context.Context{bob, alice} {
		waitJS(t, ctx, `document.querySelector("#moves").textContent === "(no moves yet)" && !document.querySelector("#takebackask") && !document.querySelector("#takebackwait")`)
	}
	// Both move again, and alice resigns from her phone.
	play(t, phone, `button.pit[data-side="S"][data-house="2"]`, `document.querySelector("#moves").textContent.startsWith("1. 2")`)
	play(t, bob, `button.pit[data-side="N"][data-house="2"]`, `document.querySelector("#moves").textContent.startsWith("1. 2 2")`)
	waitJS(t, phone, `document.querySelector("#moves").textContent.startsWith("1. 2 2") && !document.querySelector("#resign").hidden && !document.querySelector("#resign").disabled`)
	eval[bool](t, phone, `(window.confirm = () => true, true)`)
	click(t, phone, "#resign")
	waitJS(t, bob, `document.querySelector("#status").textContent.startsWith("You won") && document.querySelector("#status").textContent.includes("alice resigned")`)
	waitJS(t, alice, `document.querySelector("#status").textContent.startsWith("bob won") && document.querySelector("#status").textContent.includes("You resigned")`)

	// The lists, the record and the profiles: accounts, not words.
	open(t, stranger, srv.URL+"/#/watch")
	waitJS(t, stranger, `[...document.querySelectorAll("#gamelist li")].some(li => li.textContent.includes("alice vs bob"))`)
	rec := evalAwait[string](t, stranger, `fetch("/api/games/`+id+`/record").then(r => r.text())`)
	if !strings.Contains(rec, `[South "alice"]`) || !strings.Contains(rec, `[North "bob"]`) || !strings.Contains(rec, "alice resigned") {
		t.Errorf("the record:\n%s", rec)
	}
	for _, name := range []string{"alice", "bob"} {
		open(t, stranger, srv.URL+"/#/player/"+name)
		waitJS(t, stranger, `[...document.querySelectorAll("main a")].some(a => a.getAttribute("href") === "#/game/`+id+`")`)
	}

	// The rematch: bob asks; alice's page offers to join it; each has their
	// own seat, sides exchanged.
	click(t, bob, "#rematch")
	waitJS(t, bob, `location.hash !== "#/game/`+id+`" && document.querySelector("#bottomlabel").textContent === "You (South)"`)
	re := strings.TrimPrefix(eval[string](t, bob, `location.hash`), "#/game/")
	waitJS(t, alice, `document.querySelector("#rematch") && document.querySelector("#rematch").textContent === "Join the rematch"`)
	click(t, alice, "#rematch")
	waitJS(t, alice, `location.hash === "#/game/`+re+`" && document.querySelector("#bottomlabel").textContent === "You (North)" && document.querySelector("#toplabel").textContent.startsWith("bob")`)
	b := evalAwait[string](t, stranger, `fetch("/api/games/`+re+`/board").then(r => r.json()).then(b => b.seats.map(s => s.id).join(" "))`)
	if b != "user:bob user:alice" {
		t.Errorf("the rematch's seats: %q", b)
	}
}

// TestBrowserTournament starts a small tournament from the page and
// follows it to its final standings.
func TestBrowserTournament(t *testing.T) {
	msrv := newMatchServerTB(t, server.Config{})
	srv, _ := browserServerWith(t, func(ctx context.Context) Options {
		return Options{Server: msrv, Tournaments: serverTournaments(t, ctx, msrv)}
	})
	ctx := browser(t, 900, 1100)
	open(t, ctx, srv.URL+"/#/tournaments")
	eval[bool](t, ctx, `(() => {
		for (const b of document.querySelectorAll(".tplayer")) b.checked = ["first", "greedy", "beginner"].includes(b.value);
		document.querySelector("#preset").value = "dec1961";
		document.querySelector("#preset").dispatchEvent(new Event("change"));
		document.querySelector("#tname").value = "Three heuristics";
		return true })()`)
	click(t, ctx, "#tstart")
	waitJS(t, ctx, `location.hash.startsWith("#/tournament/") && document.querySelector("#standings")`)
	waitJS(t, ctx, `document.querySelector("#tournament").textContent.includes("6 of 6 games played")`)
	rows := eval[int](t, ctx, `document.querySelectorAll("#standings tr").length`)
	cross := eval[int](t, ctx, `document.querySelectorAll("#cross td").length`)
	if rows != 4 || cross != 9 {
		t.Errorf("standings rows %d, cross cells %d", rows, cross)
	}
	shot(t, ctx, "tournament")
}

// TestBrowserPhone plays a move on a phone-sized screen with the
// keyboard's space (the computer chooses) and checks the board fits.
func TestBrowserPhone(t *testing.T) {
	srv, _ := browserServer(t)
	ctx := browser(t, 390, 844)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	open(t, ctx, srv.URL+"/#/play")
	eval[bool](t, ctx, `(document.querySelector("#opponent").value = "greedy", true)`)
	click(t, ctx, "#start")
	waitJS(t, ctx, `document.querySelector("button.pit:not(:disabled)")`)
	if w := eval[int](t, ctx, `Math.ceil(document.querySelector(".board").getBoundingClientRect().right)`); w > 390 {
		t.Errorf("board is %dpx wide on a 390px screen", w)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(" ")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.querySelector("#moves").textContent.startsWith("1.")`)
	waitJS(t, ctx, `/^You sow house \d/.test(document.querySelector("#announce").textContent)`)
	// Once the computer has answered, a screen reader hears whose turn it is.
	waitJS(t, ctx, `/^(You sow|greedy sows) house \d.*[.!] Your move$/.test(document.querySelector("#announce").textContent)`)
	shot(t, ctx, "phone")
}

// TestBrowserReplay replays a finished game move by move from its link.
func TestBrowserReplay(t *testing.T) {
	srv, h := browserServer(t)
	c, err := startGame(h, NewGame{Rules: kalah.Rules{Houses: 2, Seeds: 2}, South: "first", North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	var final State
	for {
		if final, err = boardOf(h, c.ID); err != nil || final.Over {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	ctx := browser(t, 700, 700)
	open(t, ctx, srv.URL+"/#/game/"+c.ID)
	waitJS(t, ctx, `document.querySelector("#status").textContent.includes("won") || document.querySelector("#status").textContent.includes("draw")`)
	click(t, ctx, "#animate") // sowing shown elsewhere; keep this test short
	click(t, ctx, "#replay")
	// The board goes back to the start and plays the moves again.
	waitJS(t, ctx, `document.querySelector("#replay").disabled && document.querySelector("#announce").textContent.includes("sows house")`)
	waitJS(t, ctx, `!document.querySelector("#replay").disabled`)
	stores := eval[[]int](t, ctx, `[...document.querySelectorAll(".store")].map(s => parseInt(s.textContent))`)
	if len(stores) != 2 || stores[0] != final.Score[1] || stores[1] != final.Score[0] {
		t.Errorf("stores after the replay %v, final score %v", stores, final.Score)
	}
	// Stepping back shows earlier positions.
	click(t, ctx, "#prev")
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector("#status").textContent === "Move %d of %d"`, len(final.Moves)-1, len(final.Moves)))
}

// TestBrowserUnknownGame: a link to no game (a word, a number no game
// has) shows a page that says so, with the way on, and none of a game's
// shell: no board outline, no buttons, no loading line.
func TestBrowserUnknownGame(t *testing.T) {
	srv, _ := browserServer(t)
	ctx := browser(t, 600, 400)
	for _, id := range []string{"nope", "99999"} {
		open(t, ctx, srv.URL+"/?"+id+"#/game/"+id)
		waitJS(t, ctx, `document.querySelector("#missinggame") && document.querySelector("#gameerr").textContent.includes("no such game")`)
		if n := eval[int](t, ctx, `document.querySelectorAll("main .board, main button, #status, #chat").length`); n != 0 {
			t.Errorf("game %s: the missing game's page shows %d pieces of a game", id, n)
		}
		if !eval[bool](t, ctx, `!!document.querySelector('main a[href="#/lobby"]')`) {
			t.Errorf("game %s: no way on", id)
		}
	}
}

// TestBrowserWatchServerGame watches a game of the match server (not one
// of the page's own) live from the list of games.
func TestBrowserWatchServerGame(t *testing.T) {
	st, err := store.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msrv, err := server.New(server.Config{Store: st, Delay: 400 * time.Millisecond, NoClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		msrv.Shutdown(ctx)
	}()
	srv, _ := browserServerWith(t, func(context.Context) Options {
		return Options{Server: msrv}
	})
	started, err := msrv.StartGame(context.Background(), server.GameRequest{Rules: kalah.Standard(), South: "greedy", North: "first"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, 900, 760)
	open(t, ctx, srv.URL+"/#/watch")
	link := fmt.Sprintf(`#gamelist a[href="#/game/%d"]`, started.ID)
	waitJS(t, ctx, `document.querySelector('`+link+`')`)
	click(t, ctx, link)
	waitJS(t, ctx, `document.querySelector("#moves").textContent.startsWith("1.")`)
	before := eval[string](t, ctx, `document.querySelector("#moves").textContent`)
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector("#moves").textContent.length > %d`, len(before)+2))
	if title := eval[string](t, ctx, `document.querySelector("#gametitle").textContent`); !strings.HasPrefix(title, "greedy vs first") {
		t.Errorf("title %q", title)
	}
}

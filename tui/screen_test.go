package tui

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"kalah"
	"kalah/tui/tuitest"
)

// onScreen is a full-screen game running in a real Bubble Tea program
// whose output is an emulated terminal of a given size.
type onScreen struct {
	t    *testing.T
	scr  *tuitest.Screen
	p    *tea.Program
	keys io.WriteCloser
	done chan error
	tui  *TUI
}

// startOnScreen runs t's game on a w×h emulated terminal.
func startOnScreen(t *testing.T, ui *TUI, w, h int) *onScreen {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	in, keys := io.Pipe()
	scr := tuitest.New(w, h)
	scr.ONLCR = true // Bubble Tea counts on it when its output is not a terminal
	o := &onScreen{t: t, scr: scr, keys: keys, done: make(chan error, 1), tui: ui}
	m, err := ui.model(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	o.p = tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(scr), tea.WithWindowSize(w, h), tea.WithoutSignals())
	go func() {
		_, err := o.p.Run()
		ui.finish(m)
		o.done <- err
	}()
	t.Cleanup(func() {
		keys.Close()
		cancel()
		<-o.done
	})
	return o
}

// flat is the screen's text with every run of blanks and line ends made
// one space, so a sentence wrapped on a narrow screen is found whole.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// waitFor waits until the screen shows want (compared flat) and returns
// the screen.
func (o *onScreen) waitFor(want string) string {
	o.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := o.scr.String()
		if strings.Contains(flat(s), flat(want)) {
			return s
		}
		if time.Now().After(deadline) {
			o.t.Fatalf("no %q on screen:\n%s", want, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitMatch waits until the flat screen matches re and returns the match.
func (o *onScreen) waitMatch(re string) []string {
	o.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := rx.FindStringSubmatch(flat(o.scr.String())); m != nil {
			return m
		}
		if time.Now().After(deadline) {
			o.t.Fatalf("nothing matches %s on screen:\n%s", re, o.scr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (o *onScreen) press(keys string) {
	o.t.Helper()
	if _, err := io.WriteString(o.keys, keys); err != nil {
		o.t.Fatal(err)
	}
}

// ended waits for the program to end by itself.
func (o *onScreen) ended() {
	o.t.Helper()
	select {
	case err := <-o.done:
		o.done <- err
		if err != nil {
			o.t.Fatalf("program: %v", err)
		}
	case <-time.After(10 * time.Second):
		o.t.Fatalf("the program did not end:\n%s", o.scr.String())
	}
}

// noLineWider checks that nothing was drawn past the screen's width: the
// emulator wraps such text onto the next row, where it would show as a
// row beginning mid-word; instead every row must fit (the emulator has no
// columns beyond w, so a cut row ends at w exactly only if fitted).
func rowsFit(t *testing.T, screen string, w int) {
	t.Helper()
	for i, l := range strings.Split(screen, "\n") {
		if n := len([]rune(l)); n > w {
			t.Errorf("row %d is %d columns wide on a %d-column screen: %q", i, n, w, l)
		}
	}
}

// saveEndgame leaves an unfinished game in dir, as quitting would: the
// person (South) to move in an endgame the perfect player proves at once.
func saveEndgame(t *testing.T, dir string) (*kalah.Game, int) {
	t.Helper()
	g, final := endgame(t)
	s := newTestSession(t, Config{Rules: g.Rules(), Opponent: "greedy", Helper: "perfect", Time: 3 * time.Second})
	if err := s.Resume(g); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveUnfinished(dir); err != nil {
		t.Fatal(err)
	}
	return g, final
}

// storesLine matches the board's middle line: the stores and their owners.
var storesLine = regexp.MustCompile(`(?m)^ +(\d+) ◂ North +stores +South ▸ (\d+)$`)

// TestScreenSizes plays the full-screen game on a 120×40 and a 40×12
// terminal: the stores are labelled, the key bar explains the turn marker,
// a hint is told in words and seeds, quitting asks first and saves the game,
// the saved game resumes where it was, and a terminal made too small says so.
func TestScreenSizes(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {40, 12}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			dir := t.TempDir()
			_, final := saveEndgame(t, dir)
			cfg, g, err := LoadUnfinished(dir, Config{DataDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			o := startOnScreen(t, &TUI{Config: cfg, Resume: g}, size.w, size.h)
			screen := o.waitFor("South (you) to move")
			rowsFit(t, screen, size.w)
			if m := storesLine.FindStringSubmatch(screen); m == nil || m[1] != "19" || m[2] != "20" {
				t.Errorf("no labelled stores with North 19, South 20:\n%s", screen)
			}
			marker := "+ marks the side to move"
			if size.w < 80 {
				marker = "? keys · q quit · + = side to move"
			}
			if !strings.Contains(flat(screen), marker) {
				t.Errorf("the key bar does not explain the marker (%q):\n%s", marker, screen)
			}

			// The hint, proven, in words and seeds; no engine details.
			o.press("h")
			var want string
			switch {
			case final > 0:
				want = "you win by " + strconv.Itoa(final) + " with best play"
			case final < 0:
				want = "you lose by " + strconv.Itoa(-final) + " with best play"
			default:
				want = "a draw with best play"
			}
			m := o.waitMatch(`hint from perfect: house ([1-6]): ` + want)
			if s := o.scr.String(); strings.Contains(s, "depth") {
				t.Errorf("engine details shown unasked:\n%s", s)
			}
			// d shows them.
			o.press("d")
			o.waitFor("perfect: proven")
			o.press("d")

			// Play the hinted move; the game goes on (greedy answers).
			o.press(m[1])
			o.waitMatch(`South \(you\) sows house ` + m[1])
			screen = o.waitFor("to move")
			if strings.Contains(screen, "Game over") {
				t.Skipf("the endgame ended at once:\n%s", screen)
			}
			before := storesLine.FindStringSubmatch(o.waitFor("South (you) to move"))
			if before == nil {
				t.Fatalf("no stores line:\n%s", o.scr.String())
			}

			// q asks; n keeps playing; q then y quits and saves.
			o.press("q")
			o.waitFor("Quit? The game is saved, and kalah play --resume continues it. y: quit · n or Esc: keep playing")
			o.press("n")
			o.waitFor("Quit cancelled.")

			// Too small: the notice, and the game back when it grows.
			o.p.Send(tea.WindowSizeMsg{Width: 30, Height: 9})
			o.waitFor("Terminal too small: 30×9.")
			o.waitFor("q quits (the game is saved)")
			o.p.Send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			o.waitFor("South (you) to move")

			o.press("q")
			o.waitFor("Quit?")
			o.press("y")
			o.ended()
			if o.tui.Saved != filepath.Join(dir, UnfinishedFile) {
				t.Errorf("saved in %q", o.tui.Saved)
			}
			cfg2, g2, err := LoadUnfinished(dir, Config{DataDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if g2.Len() < 1 || g2.Over() || cfg2.Opponent != "greedy" || cfg2.Helper != "perfect" {
				t.Fatalf("saved %d moves, over %v, opponent %q, helper %q", g2.Len(), g2.Over(), cfg2.Opponent, cfg2.Helper)
			}

			// Resume: the same position, the person to move.
			o2 := startOnScreen(t, &TUI{Config: cfg2, Resume: g2}, size.w, size.h)
			screen = o2.waitFor(fmt.Sprintf("Resumed the unfinished game after %d", g2.Len()))
			after := storesLine.FindStringSubmatch(screen)
			if after == nil || after[1] != before[1] || after[2] != before[2] {
				t.Errorf("resumed with stores %v, quit with %v:\n%s", after, before, screen)
			}
			o2.press("q")
			o2.waitFor("Quit?")
			o2.press("y")
			o2.ended()
		})
	}
}

// TestScreenTooSmallFromTheStart checks the notice on a terminal too small
// from the first frame, and that q still quits.
func TestScreenTooSmallFromTheStart(t *testing.T) {
	o := startOnScreen(t, &TUI{Config: Config{Rules: kalah.Standard(), Opponent: "greedy", Helper: "greedy"}}, 30, 8)
	screen := o.waitFor("Terminal too small: 30×8. Kalah needs at least")
	rowsFit(t, screen, 30)
	if strings.Contains(screen, "(the game is saved)") {
		t.Errorf("no game in progress, yet the notice speaks of saving:\n%s", screen)
	}
	o.press("q")
	o.ended()
}

// TestScreenMoveListScrolls checks that the move list opens on the last
// moves, scrolls back to the first, and closes.
func TestScreenMoveListScrolls(t *testing.T) {
	o := startOnScreen(t, &TUI{Config: Config{Rules: kalah.Standard(), Opponent: "greedy", Helper: "greedy"}}, 40, 12)
	o.waitFor("South (you) to move")
	// Enough spaces for a dozen moves even if some come while greedy is
	// still thinking (and are refused), and the game may end meanwhile.
	for range 30 {
		o.press(" ")
		time.Sleep(20 * time.Millisecond)
	}
	o.press("l")
	m := o.waitMatch(`lines (\d+)-(\d+) of (\d+)`)
	from, to, n := atoi(m[1]), atoi(m[2]), atoi(m[3])
	if to != n || from == 1 || n < 12 {
		t.Fatalf("the list opens at lines %d-%d of %d, want the last ones of at least 12", from, to, n)
	}
	if strings.Contains(o.scr.String(), "  1. South") {
		t.Errorf("the first move is shown on a list opened at its end:\n%s", o.scr.String())
	}
	o.press("g") // Home
	o.waitFor("lines 1-")
	o.waitFor("1. South (you): house")
	o.press("j")
	o.waitFor("lines 2-")
	o.press("l")
	o.waitFor("◂ North stores South ▸") // the board is back
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// TestScreenMenuFits checks the menu on a 40×12 terminal: the list
// scrolls, and the keys stay in sight.
func TestScreenMenuFits(t *testing.T) {
	o := startOnScreen(t, &TUI{Menu: true, Config: Config{Rules: kalah.Standard(), Opponent: "medium", Helper: "greedy"}}, 40, 12)
	screen := o.waitFor("Enter: play · Esc: back · q: quit")
	rowsFit(t, screen, 40)
	for _, want := range []string{"▸ medium", "↓ more", "Who starts (←/→): you"} {
		if !strings.Contains(screen, want) {
			t.Errorf("menu lacks %q:\n%s", want, screen)
		}
	}
	o.press("q")
	o.ended()
}

// TestScreenGameOverFits plays a whole game by space on a 40×12 terminal:
// the result and the keys that follow fit on the screen.
func TestScreenGameOverFits(t *testing.T) {
	o := startOnScreen(t, &TUI{Config: Config{Rules: kalah.Standard(), Opponent: "greedy", Helper: "greedy"}}, 40, 12)
	o.waitFor("South (you) to move")
	for i := 0; !strings.Contains(o.scr.String(), "Game over"); i++ {
		if i > 300 {
			t.Fatalf("no end after %d spaces:\n%s", i, o.scr.String())
		}
		o.press(" ")
		time.Sleep(5 * time.Millisecond)
	}
	screen := o.waitFor("Enter: new game · u: undo · q: quit")
	rowsFit(t, screen, 40)
	o.waitMatch(`Game over: .* Final stores: South \(you\) \d+, North \(greedy\) \d+\.`)
	if !storesLine.MatchString(screen) {
		t.Errorf("no labelled stores after the end:\n%s", screen)
	}
	o.press("q")
	o.ended()
}

// TestScreenPlayingNorth checks the stores' labels when the person plays
// North, drawn at the bottom: North's store is then on the right.
func TestScreenPlayingNorth(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {40, 12}} {
		o := startOnScreen(t, &TUI{Config: Config{Rules: kalah.Standard(), Opponent: "greedy", Helper: "greedy", You: kalah.North}}, size.w, size.h)
		screen := o.waitFor("North (you) to move")
		if !regexp.MustCompile(`(?m)^ +\d+ ◂ South +stores +North ▸ \d+$`).MatchString(screen) {
			t.Errorf("%dx%d: stores not labelled South (left) and North (right):\n%s", size.w, size.h, screen)
		}
		o.press("q")
		o.waitFor("Quit?") // greedy (South) has moved: a game in progress
		o.press("n")
		o.waitFor("Quit cancelled.")
	}
}

package tui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"kalah"
)

// press sends a key to the model and runs every command it starts, as the
// Bubble Tea runtime would, until none is left; it reports whether the
// model asked to quit.
func press(t *testing.T, m *model, k tea.KeyPressMsg) bool {
	t.Helper()
	_, cmd := m.Update(k)
	return run(t, m, cmd)
}

func run(t *testing.T, m *model, cmd tea.Cmd) bool {
	t.Helper()
	for i := 0; cmd != nil; i++ {
		if i > 500 {
			t.Fatal("commands never end")
		}
		msg := cmd()
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
		_, cmd = m.Update(msg)
	}
	return false
}

func keyText(s string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: rune(s[0]), Text: s} }

var (
	keySpace = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	keyEnter = tea.KeyPressMsg{Code: tea.KeyEnter}
)

func newTestModel(t *testing.T, cfg Config) *model {
	t.Helper()
	if cfg.Rules.Houses == 0 {
		cfg.Rules = kalah.Standard()
	}
	cfg.Helper = "greedy"
	m, err := newModel(context.Background(), cfg, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	run(t, m, m.Init())
	return m
}

func TestModelKeys(t *testing.T) {
	m := newTestModel(t, Config{Opponent: "greedy"})
	press(t, m, keyText("3"))
	if got := m.s.Game().Position().String(); got != "4,4,0,5,5,5/4,4,4,4,4,4 1-0 S" {
		t.Fatalf("after 3: %s", got)
	}
	before := m.s.Game().String()
	press(t, m, keyText("7"))
	if m.s.Game().String() != before || m.struck != "7" || !strings.Contains(m.status, "rejected: there is no house 7") {
		t.Errorf("7: status %q", m.status)
	}
	press(t, m, keyText("x"))
	if m.s.Game().String() != before || !strings.Contains(ansi.Strip(m.gameView()), "not a key") {
		t.Errorf("x: status %q", m.status)
	}
	press(t, m, keyText("1")) // then greedy answers at once
	if m.s.Game().ToMove() != kalah.South || m.s.Game().Len() < 3 {
		t.Fatalf("after 1 and the computer's turn: %s", m.s.Game().Position())
	}
	view := ansi.Strip(m.gameView())
	if !strings.Contains(view, "North (greedy) sows house") || !strings.Contains(view, "South (you) to move") {
		t.Errorf("view lacks the computer's move or the prompt:\n%s", view)
	}
	n := m.s.Game().Len()
	press(t, m, keyText("u"))
	if m.s.Game().Len() != 1 {
		t.Errorf("undo: %d moves, want 1 (was %d)", m.s.Game().Len(), n)
	}
	press(t, m, keyText("h"))
	if !strings.Contains(m.hint, "hint from greedy: house") {
		t.Errorf("hint %q", m.hint)
	}
	press(t, m, keyEnter)
	if m.s.Game().Len() != 0 {
		t.Errorf("Enter did not restart")
	}
	if !press(t, m, keyText("q")) {
		t.Error("q did not quit")
	}
}

func TestModelWholeGameWithSpace(t *testing.T) {
	m := newTestModel(t, Config{Opponent: "greedy"})
	for i := 0; !m.s.Game().Over(); i++ {
		if i > 200 {
			t.Fatal("the game did not end")
		}
		press(t, m, keySpace)
	}
	view := ansi.Strip(m.gameView())
	south, north := m.s.Game().Score()
	if !strings.Contains(view, "Game over") || !strings.Contains(view, "Final stores") {
		t.Errorf("no summary on screen:\n%s", view)
	}
	if south+north != 48 {
		t.Errorf("stores %d+%d", south, north)
	}
	before := m.s.Game().String()
	press(t, m, keySpace)
	if m.s.Game().String() != before || !strings.Contains(m.status, "rejected") {
		t.Errorf("space after the end: %q", m.status)
	}
}

func TestModelMenu(t *testing.T) {
	cfg := Config{Rules: kalah.Standard(), Opponent: "greedy", Helper: "greedy"}
	m, err := newModel(context.Background(), cfg, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	view := m.menu.view(0)
	for _, c := range Opponents() {
		if !strings.Contains(view, c.Spec) {
			t.Errorf("menu lacks %s", c.Spec)
		}
	}
	if m.menu.items[m.menu.cursor].Spec != "greedy" {
		t.Errorf("menu starts on %s", m.menu.items[m.menu.cursor].Spec)
	}
	// On a short screen the list scrolls and keeps the cursor in sight.
	short := ansi.Strip(m.menu.view(16))
	if !strings.Contains(short, "▸ greedy") || !strings.Contains(short, "more") || strings.Count(short, "\n") > 17 {
		t.Errorf("menu on 16 rows:\n%s", short)
	}
	press(t, m, tea.KeyPressMsg{Code: tea.KeyRight}) // the opponent starts
	press(t, m, keyEnter)
	if m.scr != screenGame || m.s == nil {
		t.Fatal("Enter did not start the game")
	}
	g := m.s.Game()
	if g.Rules().First != kalah.North || g.Len() == 0 {
		t.Errorf("the opponent should have started and moved: first %s, %d moves", g.Rules().First, g.Len())
	}
	press(t, m, keyText("o"))
	if m.scr != screenMenu {
		t.Error("o did not open the menu")
	}
	press(t, m, tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.scr != screenGame {
		t.Error("Esc did not go back to the game")
	}
}

func TestMenuKeepsASpecWithArguments(t *testing.T) {
	mn := newMenu(Config{Rules: kalah.Standard(), Opponent: "pekar-tree:2"})
	if c := mn.config(); c.Opponent != "pekar-tree:2" {
		t.Errorf("the menu offers %q first, want the spec given", c.Opponent)
	}
}

func TestModelTenHouses(t *testing.T) {
	r := kalah.Standard()
	r.Houses = 12
	m := newTestModel(t, Config{Rules: r, Opponent: Human})
	press(t, m, keyText("1"))
	if m.s.Game().Len() != 0 || m.digits != "1" {
		t.Fatalf("1 on twelve houses should wait for a second digit")
	}
	press(t, m, keyText("2"))
	if last, ok := m.s.Game().Last(); !ok || last.Move != 12 {
		t.Errorf("1 then 2: %+v", last)
	}
	press(t, m, keyText("1"))
	press(t, m, keyEnter)
	if last, _ := m.s.Game().Last(); last.Move != 1 || m.s.Game().Len() != 2 {
		t.Errorf("1 then Enter: %+v", last)
	}
}

// TestOpponentsPlayAtATerminal checks that every opponent the menu offers
// can be built and answers a move at once, and that none of them is a
// player that needs a server or a program (bot:NAME, exec:CMD, mk:CMD).
func TestOpponentsPlayAtATerminal(t *testing.T) {
	for _, c := range Opponents() {
		if c.Spec == "bot" || c.Spec == "exec" || c.Spec == "mk" {
			t.Errorf("the menu offers %q, which cannot play at a terminal", c.Spec)
		}
		if IsHuman(c.Spec) {
			continue
		}
		s, err := NewSession(Config{Rules: kalah.Standard(), Opponent: c.Spec, You: kalah.North, Helper: "greedy", Time: 50 * time.Millisecond})
		if err != nil {
			t.Errorf("opponent %q offered but cannot be built: %v", c.Spec, err)
			continue
		}
		req, err := s.Ask()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Finish(req.Run(context.Background())); err != nil {
			t.Errorf("opponent %q offered but does not move: %v", c.Spec, err)
		}
		s.Close()
	}
}

// helpKeys returns the keys the help's table names: the first column of
// its rows ("  u          undo ..."), split at commas.
func helpKeys(t *testing.T) []string {
	t.Helper()
	var keys []string
	for _, l := range strings.Split(KeysHelp, "\n") {
		if !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "   ") {
			continue
		}
		col, _, ok := strings.Cut(strings.TrimSpace(l), "   ")
		if !ok {
			t.Fatalf("help row without a key column: %q", l)
		}
		for _, k := range strings.Split(col, ",") {
			keys = append(keys, strings.TrimSpace(k))
		}
	}
	return keys
}

// TestHelpNamesEveryKey checks the help against the game: every key the
// game answers is in the help, and every key in the help is answered.
func TestHelpNamesEveryKey(t *testing.T) {
	keys := helpKeys(t)
	for _, k := range []string{"1..n", "space", "m", "Enter", "r", "u", "h", "a", "d", "s", "l", "w", "o", "Esc", "?", "q", "Ctrl+C"} {
		if !slices.Contains(keys, k) {
			t.Errorf("the help does not name the key %q (it names %q)", k, keys)
		}
	}
	msg := map[string]tea.KeyPressMsg{
		"space":  keySpace,
		"Enter":  keyEnter,
		"Esc":    {Code: tea.KeyEscape},
		"Ctrl+C": {Code: 'c', Mod: tea.ModCtrl},
		"1..n":   keyText("1"),
	}
	for _, k := range keys {
		if strings.Contains(k, " ") { // the scrolling keys' row
			continue
		}
		km, ok := msg[k]
		if !ok {
			if len(k) != 1 {
				t.Errorf("help key %q: no way to press it in this test", k)
				continue
			}
			km = keyText(k)
		}
		m := newTestModel(t, Config{Opponent: "greedy", Rules: pieRules()})
		m.width, m.height = 100, 40
		press(t, m, keyText("3"))
		quit := press(t, m, km)
		if strings.Contains(m.status, "not a key") {
			t.Errorf("help key %q: the game says %q", k, m.status)
		}
		if !quit && m.scr == screenGame && m.page == nil && !m.confirm && m.status == "" && m.hint == "" && m.s.Game().Len() == 1 && !m.details {
			t.Errorf("help key %q did nothing visible", k)
		}
	}
}

// TestHelpTellsHowToPlay checks that the help page explains the rules in
// play, as kalah rules --explain does: here with the pie rule.
func TestHelpTellsHowToPlay(t *testing.T) {
	m := newTestModel(t, Config{Opponent: "greedy", Rules: pieRules()})
	for _, w := range []int{100, 40} {
		m.width, m.height = w, 12
		help := strings.Join(m.helpLines(), "\n")
		for _, want := range []string{"How to play Kalah(6,4)", "Extra turn.", "Capture.", "The end.", "Pie rule.", "Esc", "The + beside a store marks its owner's turn"} {
			if !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
				t.Errorf("%d columns: the help lacks %q", w, want)
			}
		}
		for _, l := range m.helpLines() {
			if len([]rune(l)) >= w {
				t.Errorf("%d columns: help line too wide: %q", w, l)
			}
		}
	}
}

func pieRules() kalah.Rules {
	r := kalah.Standard()
	r.Pie = true
	return r
}

// TestModelSaving checks the keys that write files: w saves the game as a
// record, Ctrl+C saves a game in progress without asking, and a resumed
// game that has ended is removed from the unfinished file on quitting.
func TestModelSaving(t *testing.T) {
	dir := t.TempDir()
	m := newTestModel(t, Config{Opponent: "greedy", DataDir: dir})
	press(t, m, keyText("3"))
	press(t, m, keyText("1"))
	press(t, m, keyText("w"))
	path := strings.TrimPrefix(m.status, "Saved the game to ")
	if path == m.status || filepath.Dir(path) != filepath.Join(dir, GamesDir) {
		t.Fatalf("w: status %q", m.status)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec kalah.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	g, err := rec.Game()
	if err != nil || g.MoveText() != m.s.Game().MoveText() || g.Position() != m.s.Game().Position() || rec.Tags["Event"] != "kalah play" {
		t.Errorf("saved game %v (%v), playing %v", g, err, m.s.Game())
	}

	if !press(t, m, tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}) {
		t.Fatal("Ctrl+C did not quit")
	}
	cfg, saved, err := LoadUnfinished(dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if saved.String() != m.s.Game().String() || cfg.Opponent != "greedy" || m.saved != filepath.Join(dir, UnfinishedFile) {
		t.Errorf("Ctrl+C saved %v against %q in %q", saved, cfg.Opponent, m.saved)
	}

	// Resume it, play it out, quit: the unfinished file goes.
	cfg.DataDir, cfg.Helper = dir, "greedy"
	ui := &TUI{Config: cfg, Resume: saved}
	r, err := ui.model(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run(t, r, r.Init())
	if !strings.HasPrefix(r.status, "Resumed the unfinished game after") {
		t.Errorf("status %q", r.status)
	}
	for i := 0; !r.s.Game().Over(); i++ {
		if i > 200 {
			t.Fatal("no end")
		}
		press(t, r, keySpace)
	}
	if !press(t, r, keyText("q")) {
		t.Fatal("q after the end did not quit at once")
	}
	if _, _, err := LoadUnfinished(dir, Config{}); !errors.Is(err, ErrNoUnfinished) {
		t.Errorf("the finished game is still waiting to be resumed: %v", err)
	}
}

// TestModelShowsBackgroundNotes: a note of Config.Background (the perfect
// player's database being built) shows under the board, the next replaces
// it, an empty one clears it, and a closed channel ends the wait.
func TestModelShowsBackgroundNotes(t *testing.T) {
	notes := make(chan string, 1)
	m := newTestModel(t, Config{Opponent: "greedy"}) // its Init runs every command until none is left
	m.bgCh = notes                                   // as newModel takes Config.Background
	wait := m.background()
	for _, note := range []string{"Building the perfect player's endgame database (24 seeds, once): 40%.", "… 50%.", ""} {
		notes <- note
		_, next := m.Update(wait())
		view := ansi.Strip(m.gameView())
		if note != "" && !strings.Contains(view, note) || note == "" && strings.Contains(view, "endgame database") {
			t.Fatalf("after the note %q the view is:\n%s", note, view)
		}
		wait = next
	}
	close(notes)
	if msg := wait(); msg != nil {
		t.Errorf("after the channel closed: %v", msg)
	}
	if m := newTestModel(t, Config{Opponent: "greedy"}); m.background() != nil {
		t.Error("a wait without a channel")
	}
}

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"kalah/player"
	"kalah/tui"
	"kalah/tui/tuitest"
)

// updateGolden rewrites golden files; it shares -update with any other
// test file of the package that defines it first.
var updateGolden = func() func() bool {
	if f := flag.Lookup("update"); f != nil {
		return func() bool { return f.Value.String() == "true" }
	}
	b := flag.Bool("update", false, "rewrite golden files")
	return func() bool { return *b }
}()

// TestPlay builds the real binary once and drives "kalah play" through
// pipes and a pseudo-terminal.
func TestPlay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildKalah(t)
	// Unfinished games are saved in the data directory: never the user's.
	t.Setenv("KALAH_DATA", t.TempDir())
	t.Run("PipeGolden", func(t *testing.T) { testPlayPipeGolden(t, bin) })
	t.Run("PipeWholeGame", func(t *testing.T) { testPlayPipeWholeGame(t, bin) })
	t.Run("PTY", func(t *testing.T) { testPlayPTY(t, bin) })
	t.Run("QuitAndResume", func(t *testing.T) { testPlayQuitAndResume(t, bin) })
}

// buildKalah builds the real binary into a temporary directory.
func buildKalah(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kalah")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// testPlayPipeGolden drives a short deterministic session through a pipe
// and compares the transcript with a golden file: moves, a rejected key,
// a hint, space, undo, restart (asked first) and the undo that brings the
// old game back.
func testPlayPipeGolden(t *testing.T, bin string) {
	input := strings.Join([]string{
		"3",  // extra turn
		"7",  // no such house: crossed out
		"3",  // empty house: crossed out
		"1",  // then the computer ("first") answers
		"h",  // a hint from greedy
		" ",  // space: the computer moves for South
		"xy", // not a key
		"u",  // back to South's last move
		"",   // Enter: asks first, a game being in progress
		"",   // Enter again: restart
		"u",  // brings the old game back
		"q",
	}, "\n") + "\n"
	cmd := exec.Command(bin, "play", "--opponent", "first", "--hint-player", "greedy", "--time", "0")
	cmd.Stdin = strings.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kalah play: %v\n%s", err, stderr.Bytes())
	}
	got := strings.ReplaceAll(string(out), os.Getenv("KALAH_DATA"), "$KALAH_DATA")
	golden(t, filepath.Join("testdata", "play", "session.golden"), got)
	for _, want := range []string{"7\u0336 rejected: there is no house 7", "3\u0336 rejected: house 3 is empty", "x\u0336y\u0336 rejected", "hint from greedy: house"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if updateGolden() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run Play -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -run Play -update rewrites it); got:\n%s", path, got)
	}
}

// transcript collects a process's output and lets a test wait for text.
type transcript struct {
	tee  io.Writer // also gets the output, if set
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{}
	done chan struct{}
}

func newTranscript(r io.Reader, tee io.Writer) *transcript {
	tr := &transcript{tee: tee, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(tr.done)
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			tr.mu.Lock()
			tr.buf.Write(b[:n])
			tr.mu.Unlock()
			if tr.tee != nil {
				tr.tee.Write(b[:n])
			}
			select {
			case tr.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return tr
}

func (tr *transcript) String() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.buf.String()
}

// waitFor waits until the output from offset from on contains s, and
// returns the offset just past it.
func (tr *transcript) waitFor(t *testing.T, from int, s string, d time.Duration) int {
	t.Helper()
	deadline := time.After(d)
	for {
		out := tr.String()
		if i := strings.Index(out[min(from, len(out)):], s); i >= 0 {
			return from + i + len(s)
		}
		select {
		case <-tr.more:
		case <-tr.done:
			if strings.Contains(tr.String()[from:], s) {
				continue
			}
			t.Fatalf("output ended without %q; last output:\n%s", s, tail(tr.String(), 2000))
		case <-deadline:
			t.Fatalf("no %q within %v; last output:\n%s", s, d, tail(tr.String(), 2000))
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

var countsLine = regexp.MustCompile(`^\s+\d+(\s+\d+)+$`)

// southHouses reads South's houses from the last board in a transcript:
// the counts just above the last row of house numbers.
func southHouses(out string) ([]int, error) {
	lines := strings.Split(out, "\n")
	for i := len(lines) - 1; i > 0; i-- {
		if strings.Contains(lines[i], "(1)") && strings.Contains(lines[i], "South") && countsLine.MatchString(lines[i-1]) {
			var hs []int
			for _, f := range strings.Fields(lines[i-1]) {
				n, err := strconv.Atoi(f)
				if err != nil {
					return nil, err
				}
				hs = append(hs, n)
			}
			return hs, nil
		}
	}
	return nil, errors.New("no board with South at the bottom")
}

// testPlayPipeWholeGame plays a whole game against greedy through pipes,
// choosing each move from the board the program printed, and checks the
// end-of-game summary.
func testPlayPipeWholeGame(t *testing.T, bin string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	record := filepath.Join(t.TempDir(), "games.jsonl")
	cmd := exec.CommandContext(ctx, bin, "play", "--opponent", "greedy", "--time", "0", "--record", record)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tr := newTranscript(stdout, nil)
	at := 0
	for moves := 0; ; moves++ {
		if moves > 100 {
			t.Fatal("no end after 100 moves")
		}
		at = tr.waitFor(t, at, "> ", 10*time.Second)
		out := tr.String()[:at]
		if strings.Contains(out, "Game over") {
			break
		}
		hs, err := southHouses(out)
		if err != nil {
			t.Fatalf("%v in:\n%s", err, tail(out, 1500))
		}
		// The fullest house, the last among equals: a move read from the board.
		best := 0
		for h := range hs {
			if hs[h] >= hs[best] {
				best = h
			}
		}
		if hs[best] == 0 {
			t.Fatalf("prompted with no seed on South's side:\n%s", tail(out, 1500))
		}
		fmt.Fprintf(stdin, "%d\n", best+1)
	}
	fmt.Fprintln(stdin, "q")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kalah play: %v\n%s", err, stderr.Bytes())
	}
	<-tr.done
	out := tr.String()
	m := regexp.MustCompile(`Game over: .* Final stores: South \(you\) (\d+), North \(greedy\) (\d+)\.`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary:\n%s", tail(out, 1500))
	}
	s, _ := strconv.Atoi(m[1])
	n, _ := strconv.Atoi(m[2])
	if s+n != 48 {
		t.Errorf("final stores %d + %d, want 48 seeds in all", s, n)
	}
	if strings.Contains(out, "rejected") {
		t.Errorf("a move read from the board was rejected:\n%s", out)
	}
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`"final":{"south":%d,"north":%d}`, s, n)
	if strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), want) || !strings.Contains(string(b), `"Event":"kalah play"`) {
		t.Errorf("--record wrote %s, want one game with %s", b, want)
	}
}

// testPlayPTY drives the full-screen game through a pseudo-terminal and
// reads the screen through an emulated terminal: the board drawn as in
// 1961, a rejected key, a whole game played by pressing space, the
// summary, and q quitting cleanly back to the shell's screen.
func testPlayPTY(t *testing.T, bin string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "play", "--opponent", "greedy", "--time", "0", "--delay", "0")
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	const cols, rows = 110, 40
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		t.Skipf("no pseudo-terminal could be opened: %v", err)
	}
	defer f.Close()
	scr := tuitest.New(cols, rows)
	tr := newTranscript(f, scr)
	send := func(s string) {
		t.Helper()
		if _, err := f.WriteString(s); err != nil {
			t.Fatalf("writing to the terminal: %v", err)
		}
	}
	waitScreen := func(want string, d time.Duration) string {
		t.Helper()
		deadline := time.Now().Add(d)
		for {
			s := scr.String()
			if strings.Contains(s, want) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %q on screen within %v; screen:\n%s", want, d, s)
			}
			select {
			case <-tr.more:
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	screen := waitScreen("South (you) to move", 10*time.Second)
	for _, want := range []string{"(6) (5) (4) (3) (2) (1)   North (greedy)", "   0 ◂ North  stores  South ▸ 0\n                              +\n", "(1) (2) (3) (4) (5) (6)   South (you)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("board lacks %q:\n%s", want, screen)
		}
	}
	send("7")
	waitScreen("rejected: there is no house 7", 5*time.Second)
	for i := 0; !strings.Contains(scr.String(), "Game over"); i++ {
		if i > 400 {
			t.Fatalf("no end after %d presses of space; screen:\n%s", i, scr.String())
		}
		send(" ")
		select {
		case <-tr.more:
		case <-time.After(100 * time.Millisecond):
		}
	}
	screen = waitScreen("Final stores", 5*time.Second)
	m := regexp.MustCompile(`(wins|a draw,) (\d+)-(\d+)\.`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no result in the summary:\n%s", screen)
	}
	if a, _ := strconv.Atoi(m[2]); a < 24 {
		t.Errorf("the winner has %d seeds of 48", a)
	}
	if a, _ := strconv.Atoi(m[2]); func() int { b, _ := strconv.Atoi(m[3]); return a + b }() != 48 {
		t.Errorf("final stores %s-%s do not hold the 48 seeds", m[2], m[3])
	}
	send("q")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("kalah play exited with %v; screen:\n%s", err, scr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("q did not quit; screen:\n%s", scr.String())
	}
	<-tr.done
	if s := scr.String(); strings.Contains(s, "Game over") {
		t.Errorf("the full-screen game was left on the screen after quitting:\n%s", s)
	}
	// Nothing in the log package's form ("2026/11/28 02:21:22 WARN ...")
	// is left on the terminal: logs are in words there.
	if s := scr.String(); goLogLine.MatchString(s) {
		t.Errorf("a log line in the log package's form is on the terminal after quitting:\n%s", s)
	}
}

// ptyGame is "kalah play" on a pseudo-terminal of a given size, read
// through the emulated screen.
type ptyGame struct {
	t   *testing.T
	cmd *exec.Cmd
	f   *os.File
	scr *tuitest.Screen
	tr  *transcript
}

func startPTY(t *testing.T, ctx context.Context, bin string, cols, rows int, args ...string) *ptyGame {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, append([]string{"play"}, args...)...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Skipf("no pseudo-terminal could be opened: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	scr := tuitest.New(cols, rows)
	return &ptyGame{t: t, cmd: cmd, f: f, scr: scr, tr: newTranscript(f, scr)}
}

func (g *ptyGame) send(s string) {
	g.t.Helper()
	if _, err := g.f.WriteString(s); err != nil {
		g.t.Fatalf("writing to the terminal: %v", err)
	}
}

// wait waits for want on the screen, compared without blanks and line
// ends, so text wrapped on a narrow screen (by words, or by the terminal
// at its edge) is found.
func (g *ptyGame) wait(want string) string {
	g.t.Helper()
	flat := func(s string) string { return strings.Join(strings.Fields(s), "") }
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := g.scr.String()
		if strings.Contains(flat(s), flat(want)) {
			return s
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("no %q on screen; screen:\n%s", want, s)
		}
		select {
		case <-g.tr.more:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (g *ptyGame) exited() {
	g.t.Helper()
	done := make(chan error, 1)
	go func() { done <- g.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			g.t.Fatalf("kalah play exited with %v; screen:\n%s", err, g.scr.String())
		}
	case <-time.After(10 * time.Second):
		g.t.Fatalf("kalah play did not exit; screen:\n%s", g.scr.String())
	}
	<-g.tr.done
}

var storesRow = regexp.MustCompile(`(?m)^ +\d+ ◂ North +stores +South ▸ \d+$`)

// testPlayQuitAndResume plays a few moves on a 40×12 terminal, quits (q
// asks, n stays, q and y quit and save), and continues the game with
// --resume on a 120×40 terminal, where the board is as it was left.
func testPlayQuitAndResume(t *testing.T, bin string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	data := t.TempDir()
	g := startPTY(t, ctx, bin, 40, 12, "--opponent", "greedy", "--time", "0", "--delay", "0", "--data", data)
	screen := g.wait("South (you) to move")
	if !storesRow.MatchString(screen) {
		t.Errorf("no labelled stores at 40x12:\n%s", screen)
	}
	g.send("3")
	g.wait("South (you) sows house 3")
	g.send("1")
	screen = g.wait("North (greedy) sows house")
	screen = g.wait("South (you) to move")
	left := storesRow.FindString(screen)
	houses := regexp.MustCompile(`(?m)^( +\d+)+$`).FindAllString(screen, -1)
	g.send("q")
	g.wait("Quit? The game is saved, and kalah play --resume continues it. y: quit · n or Esc: keep playing")
	g.send("n")
	g.wait("Quit cancelled.")
	g.send("q")
	g.wait("Quit?")
	g.send("y")
	path := filepath.Join(data, "play", "unfinished.json")
	g.wait("The unfinished game is saved in " + path + "; kalah play --resume continues it.")
	g.exited()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}

	r := startPTY(t, ctx, bin, 120, 40, "--resume", "--data", data, "--delay", "0")
	screen = r.wait("Resumed the unfinished game after")
	if got := storesRow.FindString(screen); got != left || left == "" {
		t.Errorf("resumed with stores %q, left with %q:\n%s", got, left, screen)
	}
	if got := regexp.MustCompile(`(?m)^( +\d+)+$`).FindAllString(screen, -1); strings.Join(got, "|") != strings.Join(houses, "|") {
		t.Errorf("resumed with houses %q, left with %q", got, houses)
	}
	if !strings.Contains(screen, "against greedy") {
		t.Errorf("the resumed game is not against greedy:\n%s", screen)
	}
	// The terminal shrinks below the smallest size, then grows back.
	if err := pty.Setsize(r.f, &pty.Winsize{Rows: 9, Cols: 30}); err != nil {
		t.Fatal(err)
	}
	r.wait("Terminal too small: 30×9.")
	if err := pty.Setsize(r.f, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	r.wait("South (you) to move: type a house 1-6")
	r.send("q")
	r.wait("Quit?")
	r.send("y")
	r.wait("The unfinished game is saved in")
	r.exited()
}

// TestPlayFlags checks the command line in-process: bad flags are usage
// errors (status 2), and the help lists the keys and every opponent.
func TestPlayFlags(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"play", "--opponent", "nosuch"}, 2, "unknown player"},
		{[]string{"play", "--you", "east"}, 2, "--you"},
		{[]string{"play", "--plain", "--tui"}, 2, "exclude each other"},
		{[]string{"play", "--time", "-1s"}, 2, "negative"},
		{[]string{"play", "extra"}, 2, "unexpected argument"},
		{[]string{"play", "--houses", "0"}, 2, "houses"},
		{[]string{"play", "-h"}, 0, "An illegal key is crossed out"},
		{[]string{"play", "-h"}, 0, "How to play Kalah"},
		{[]string{"play", "--resume", "--data", t.TempDir()}, 1, "no unfinished game in"},
		{[]string{"play", "--resume", "--opponent", "hard"}, 2, "--opponent cannot change them"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(context.Background(), tt.args, strings.NewReader(""), &out, &errb)
		if code != tt.code || !strings.Contains(errb.String()+out.String(), tt.want) {
			t.Errorf("kalah %s: status %d, want %d with %q; stderr:\n%s", strings.Join(tt.args, " "), code, tt.code, tt.want, errb.String())
		}
	}
	var out, errb bytes.Buffer
	run(context.Background(), []string{"play", "-h"}, strings.NewReader(""), &out, &errb)
	for _, c := range tui.Opponents() {
		if !strings.Contains(errb.String(), "  "+c.Spec+" ") {
			t.Errorf("kalah play -h does not offer %s", c.Spec)
		}
	}
	// The bot:NAME player is registered in this binary (package server) but
	// plays only in games a server arranges: the game must not offer it.
	if _, _, err := player.Lookup("bot:someone"); err != nil {
		t.Fatalf("bot:NAME is not registered in kalah: %v", err)
	}
	for _, c := range tui.Opponents() {
		if c.Spec == "bot" {
			t.Error("kalah play offers bot, which cannot play at a terminal")
		}
	}
	// Piped input plays in line mode, here two people at one keyboard.
	out.Reset()
	if code := run(context.Background(), []string{"play", "--opponent", "human", "--rules", "dec1961", "--data", t.TempDir()}, strings.NewReader("1\nq\n"), &out, &errb); code != 0 {
		t.Fatalf("status %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "dec1961 rules: 6 houses a side, 3 seeds each") || !strings.Contains(out.String(), "South sows house 1") {
		t.Errorf("line mode:\n%s", out.String())
	}

	// Line mode: q saves a game in progress, --resume continues it, with
	// its rules and opponent, and the saved file goes once it has ended.
	data := t.TempDir()
	out.Reset()
	if code := run(context.Background(), []string{"play", "--opponent", "greedy", "--rules", "dec1961", "--time", "0", "--data", data}, strings.NewReader("2\nq\n"), &out, &errb); code != 0 {
		t.Fatalf("status %d: %s", code, errb.String())
	}
	quit := regexp.MustCompile(`Quit after (\d+) moves: the game is saved in ` + regexp.QuoteMeta(filepath.Join(data, "play", "unfinished.json"))).FindStringSubmatch(out.String())
	if quit == nil {
		t.Errorf("line-mode quit:\n%s", tail(out.String(), 500))
	}
	out.Reset()
	if code := run(context.Background(), []string{"play", "--resume", "--data", data}, strings.NewReader(strings.Repeat("m\n", 60)+"q\n"), &out, &errb); code != 0 {
		t.Fatalf("status %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "dec1961 rules") || !strings.Contains(out.String(), "Resumed the unfinished game after "+quit[1]+" moves.") ||
		!strings.Contains(out.String(), "North (greedy)") || !strings.Contains(out.String(), "Game over") {
		t.Errorf("line-mode resume:\n%s", tail(out.String(), 1500))
	}
	if _, err := os.Stat(filepath.Join(data, "play", "unfinished.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the resumed game ended, yet its file is left: %v", err)
	}
}

package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"kalah"
)

func runPlain(t *testing.T, cfg Config, input string) string {
	t.Helper()
	s := newTestSession(t, cfg)
	var out strings.Builder
	pl := &Plain{In: strings.NewReader(input), Out: &out, Echo: true}
	if err := pl.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestPlainQuitEndsCleanly(t *testing.T) {
	defer goleak.VerifyNone(t)
	out := runPlain(t, Config{Opponent: "greedy"}, "3\nq\n4\n5\n")
	if !strings.Contains(out, "Quit: the game is left unfinished after 1 move.") {
		t.Errorf("quit:\n%s", out)
	}
	if strings.Contains(out, "> 4") {
		t.Errorf("read on after q:\n%s", out)
	}
}

func TestPlainEndOfInput(t *testing.T) {
	out := runPlain(t, Config{Opponent: "greedy"}, "3")
	if !strings.HasSuffix(out, "End of input: the game is left unfinished after 1 move.\n") {
		t.Errorf("end of input:\n%s", out)
	}
	// With a data directory the game is kept for kalah play --resume, as
	// quitting keeps it, and the last line says so.
	dir := t.TempDir()
	out = runPlain(t, Config{Opponent: "greedy", DataDir: dir}, "3")
	path := filepath.Join(dir, UnfinishedFile)
	if !strings.HasSuffix(out, "End of input after 1 move: the game is saved in "+path+"; kalah play --resume continues it.\n") {
		t.Errorf("end of input with a data directory:\n%s", out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("nothing saved to resume: %v", err)
	}
}

func TestPlainWholeGameBySpaces(t *testing.T) {
	out := runPlain(t, Config{Opponent: "greedy"}, strings.Repeat(" \n", 60)+"u\nq\n")
	if strings.Count(out, "Game over:") != 1 {
		t.Errorf("want one summary:\n%s", out)
	}
	if !strings.Contains(out, "␣\u0336 rejected: the game is over") {
		t.Error("space after the end was not crossed out")
	}
	// The undo after the end takes the game back, and q then quits it.
	if !strings.Contains(out, "Took back") || !strings.Contains(out, "Quit: the game is left unfinished") {
		t.Errorf("undo after the end:\n%s", out[len(out)-600:])
	}
}

func TestPlainTwoPeople(t *testing.T) {
	// South's 3 earns an extra turn; South's 1; North's 3, North's 1.
	out := runPlain(t, Config{Opponent: Human}, "3 1\n3,1\nq\n")
	for _, want := range []string{"South sows house 3: the last seed lands in the store", "North sows house 1", "South to move> "} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}

func TestPlainInterrupted(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newTestSession(t, Config{Opponent: "greedy", Rules: kalah.Standard()})
	in, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Plain{In: in, Out: io.Discard}).Run(ctx, s) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return when its context ended")
	}
	w.Close() // lets the reader goroutine see the end of input
}

// An empty line in the middle of a game asks first: the game is dropped
// only on a second empty line in a row, and anything else plays on.
func TestEmptyLineAsksBeforeDroppingTheGame(t *testing.T) {
	s := newTestSession(t, Config{Rules: kalah.Standard(), Opponent: Human})
	var out strings.Builder
	pl := &Plain{In: strings.NewReader("3\n\n4\n\n\n"), Out: &out}
	if err := pl.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if n := strings.Count(text, "An empty line starts a new game"); n != 2 {
		t.Errorf("asked %d times, want 2 (after 3, and after 4):\n%s", n, text)
	}
	if strings.Count(text, "New game.") != 1 || s.Game().Len() != 0 {
		t.Errorf("the game was dropped %d times, %d moves left:\n%s", strings.Count(text, "New game."), s.Game().Len(), text)
	}
	// The 4 after the first empty line was played: two moves when asked
	// the second time.
	if !strings.Contains(text, "drops this game after 2 moves") {
		t.Errorf("the move after the first empty line was not played:\n%s", text)
	}
}

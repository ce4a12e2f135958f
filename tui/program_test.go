package tui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"kalah"
	"kalah/tui/tuitest"
)

// TestProgramOnScreen runs the full-screen game in a real Bubble Tea
// program whose output is an emulated terminal, types keys into it, and
// reads the screen as a person would see it.
func TestProgramOnScreen(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m, err := newModel(ctx, Config{Rules: kalah.Standard(), Opponent: "greedy", Helper: "greedy"}, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	in, keys := io.Pipe()
	scr := tuitest.New(100, 40)
	scr.ONLCR = true // Bubble Tea counts on it when its output is not a terminal
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(scr), tea.WithWindowSize(100, 40), tea.WithoutSignals())
	done := make(chan error, 1)
	go func() {
		_, err := p.Run()
		done <- err
	}()
	defer func() {
		keys.Close()
		cancel()
		<-done
	}()
	waitFor := func(want string) string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			s := scr.String()
			if strings.Contains(s, want) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %q on screen:\n%s", want, s)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	screen := waitFor("South (you) to move")
	// The 1961 layout: North's houses on top, the stores on the middle line,
	// the "+" below the right-hand store, the lower player's, since the
	// lower player is to move.
	wantBoard := strings.Join([]string{
		"      (6) (5) (4) (3) (2) (1)   North (greedy)",
		"       4   4   4   4   4   4",
		"",
		"   0 ◂ North  stores  South ▸ 0",
		"                              +",
		"       4   4   4   4   4   4",
		"      (1) (2) (3) (4) (5) (6)   South (you)",
	}, "\n")
	if !strings.Contains(screen, wantBoard) {
		t.Errorf("board not drawn as in 1961:\n%s", screen)
	}
	io.WriteString(keys, "3")
	waitFor("South (you) sows house 3: the last seed lands in the store")
	io.WriteString(keys, "9")
	screen = waitFor("rejected: there is no house 9")
	if !strings.Contains(screen, "   0 ◂ North  stores  South ▸ 1") {
		t.Errorf("a rejected key changed the board:\n%s", screen)
	}
	for i := 0; !strings.Contains(scr.String(), "Game over"); i++ {
		if i > 300 {
			t.Fatalf("no end after %d spaces:\n%s", i, scr.String())
		}
		io.WriteString(keys, " ")
		time.Sleep(5 * time.Millisecond)
	}
	screen = waitFor("Final stores")
	if strings.Contains(screen, "+\n") {
		t.Errorf("a turn marker after the end:\n%s", screen)
	}
	io.WriteString(keys, "q")
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Fatalf("program: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("q did not quit")
	}
}

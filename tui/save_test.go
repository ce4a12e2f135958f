package tui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kalah"
)

// A data directory that cannot hold files (here a path through a plain
// file, which stops root too) makes both saves fail at once with the
// reason, never spin looking for a free name.
func TestSaveToAnUnwritablePlace(t *testing.T) {
	s := newTestSession(t, Config{Rules: kalah.Standard(), Opponent: Human})
	if _, err := s.Play(3); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(file, "data")
	done := make(chan error, 2)
	go func() {
		_, err := s.SaveGame(dir, time.Now())
		done <- err
		_, err = s.SaveUnfinished(dir)
		done <- err
	}()
	for _, what := range []string{"SaveGame", "SaveUnfinished"} {
		select {
		case err := <-done:
			if !errors.Is(err, ErrSave) || !strings.Contains(SaveCause(err), "not a directory") {
				t.Errorf("%s: %v, want ErrSave saying why", what, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s still runs after 5s", what)
		}
	}
}

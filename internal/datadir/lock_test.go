package datadir

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestLock: a data directory is one process's: a second Lock is refused
// at once, naming the holder; once given back it can be taken again.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(dir, "kalah serve")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir, "kalah serve")
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("a second lock: %v", err)
	}
	unlock()
	again, err := Lock(dir, "kalah serve")
	if err != nil {
		t.Fatalf("the lock given back: %v", err)
	}
	again()
}

package remote

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"kalah/player"
)

// TestCrashedWording: a write that fails because the program is gone reads
// as the program exiting, with its status, not as the pipe's error.
func TestCrashedWording(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 3")
	if err := cmd.Run(); err == nil {
		t.Fatal("exit 3 did not fail")
	}
	exited := make(chan struct{})
	close(exited)
	p := &Process{cmd: cmd, exited: exited}
	p.tail.Write([]byte("one\ntwo\n"))
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}, "player crashed: the program exited (exit status 3); stderr: one | two"},
		{&os.PathError{Op: "write", Path: "|1", Err: os.ErrClosed}, "player crashed: the program exited (exit status 3); stderr: one | two"},
		{errors.New("the program's output ended"), "player crashed: the program's output ended (exit status 3); stderr: one | two"},
	} {
		err := p.crashed(tt.err)
		if !errors.Is(err, player.ErrCrashed) || err.Error() != tt.want {
			t.Errorf("crashed(%v) = %q, want %q", tt.err, err, tt.want)
		}
	}
}

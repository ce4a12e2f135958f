package remote

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"kalah/player"
	"kalah/protocol/line"
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

// TestSendStopsAtFirstFailure: messages to a program that no longer reads
// give one error, the first write's, not one a message.
func TestSendStopsAtFirstFailure(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	p := &Process{stdin: w}
	err = p.send(line.Greeting(), line.Greeting(), line.Greeting())
	if !errors.Is(err, player.ErrCrashed) || err.Error() != "player crashed: the program closed its input" {
		t.Errorf("send to a closed pipe: %q", err)
	}
}

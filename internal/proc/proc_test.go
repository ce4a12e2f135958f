package proc_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kalah/internal/proc"
)

// TestMain lets the test binary play kalah starting a program: with
// PROC_TEST_PARENT set it starts that shell command through proc.Group and
// waits for ever, to be killed by the test.
func TestMain(m *testing.M) {
	if c := os.Getenv("PROC_TEST_PARENT"); c != "" {
		cmd := exec.Command("sh", "-c", c)
		proc.Group(cmd)
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		time.Sleep(time.Hour) // until the test kills it
	}
	os.Exit(m.Run())
}

// Alive reports whether pid is a process that has not died (a zombie
// waiting for its parent to reap it has died).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitPID reads a pid the program wrote to path.
func waitPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err == nil {
				return pid
			}
		}
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

// A program's child, which the shell forked and did not exec, dies with
// kalah even when kalah is killed with SIGKILL: nothing is left to kill the
// process group, so the supervisor must.
func TestChildDiesWithAKilledParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a parent-death signal is Linux's")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The shell forks sleep and waits: sleep is the program's child.
	parent := exec.Command(os.Args[0])
	parent.Env = append(os.Environ(), "PROC_TEST_PARENT=sleep 300 & echo $! > "+pidFile+"; wait")
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Process.Kill()
	pid := waitPID(t, pidFile)
	if !alive(pid) {
		t.Fatalf("the program's child %d is not running", pid)
	}
	parent.Process.Signal(syscall.SIGKILL)
	parent.Wait()
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the program's child %d outlived its killed parent by 5s", pid)
		}
	}
}

// The supervisor passes on the program's exit status and its death by a
// signal, so error messages read as without it.
func TestExitStatusPassesThrough(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"exit 3", "exit status 3"},
		{"kill -9 $$", "signal: killed"},
		{"true", ""},
	} {
		cmd := exec.Command("sh", "-c", tc.cmd)
		proc.Group(cmd)
		err := cmd.Run()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.cmd, got, tc.want)
		}
	}
	// Standard input and output are the program's own.
	cmd := exec.Command("sh", "-c", "read x; echo got $x")
	proc.Group(cmd)
	cmd.Stdin = strings.NewReader("seeds\n")
	out, err := cmd.Output()
	if err != nil || string(out) != "got seeds\n" {
		t.Errorf("output %q, %v", out, err)
	}
}

// Package proc starts bot programs so that they can always be stopped: each
// runs in a process group of its own, which is killed as a whole (the
// program and whatever it started). On Linux each runs under a supervisor
// (kalah itself, re-executed) that the kernel signals when kalah dies, even
// by kill -9, and that then kills the group: no program outlives kalah.
package proc

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// Group prepares cmd, before Start, to run in a process group of its own
// and, where the system allows, to die with its parent. On Linux cmd then
// runs its program through the supervisor: cmd.Path becomes
// /proc/self/exe, and the program's exit status comes back unchanged.
func Group(cmd *exec.Cmd) { group(cmd) }

// Kill kills cmd's process group, or cmd's process where there are no
// groups. It is safe to call on a command that has exited or never started.
func Kill(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	killGroup(cmd)
	cmd.Process.Kill()
}

// LogFile returns a writer for a program's standard error that creates
// path (and its directory) at the first write, so a program that writes
// nothing leaves no file. Write never fails: a log that cannot be written
// must not make the program's player fail. Close closes the file.
func LogFile(path string) io.WriteCloser { return &lazyFile{path: path} }

type lazyFile struct {
	path string
	mu   sync.Mutex
	f    *os.File
	err  error
}

func (l *lazyFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil {
		if l.err = os.MkdirAll(filepath.Dir(l.path), 0o755); l.err == nil {
			l.f, l.err = os.Create(l.path)
		}
	}
	if l.err != nil {
		return len(p), nil
	}
	l.f.Write(p)
	return len(p), nil
}

func (l *lazyFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		return l.f.Close()
	}
	return nil
}

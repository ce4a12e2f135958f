package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockFile is the file in a data directory whose lock says a server has
// the directory.
const LockFile = "kalah.lock"

// ErrLocked is returned by Lock when another process has the directory.
var ErrLocked = errors.New("data directory in use")

// Lock takes the data directory dir for this process alone (a server:
// two servers on one directory would both resume its live games and fight
// over them), and returns the function that gives it back. The lock is
// the kernel's (flock on LockFile), so it goes with the process however
// it ends, kill -9 included. A second Lock while it is held, from this
// process or another, fails at once with ErrLocked, naming the process
// that holds it.
func Lock(dir, what string) (unlock func(), err error) {
	unlock, err = TryLock(filepath.Join(dir, LockFile), what)
	if errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("%w: %s is held by %s; stop it first, or give this one another --data", ErrLocked, dir, strings.TrimPrefix(err.Error(), ErrLocked.Error()+": "))
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return unlock, nil
}

// TryLock takes the lock file at path (made if missing) for this process
// alone, as Lock does, writing what and the process's id in it, and
// returns the function that gives it back. While another open of it holds
// it, it fails at once with an error wrapping ErrLocked that says who
// ("ErrLocked: WHAT (pid N)").
func TryLock(path, what string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, ErrLocked) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("%w: %s", ErrLocked, who)
		}
		return nil, err
	}
	f.Truncate(0)
	f.WriteAt([]byte(what+" (pid "+strconv.Itoa(os.Getpid())+")\n"), 0)
	return func() {
		f.Truncate(0)
		unlockFile(f)
		f.Close()
	}, nil
}

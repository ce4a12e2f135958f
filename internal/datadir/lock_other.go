//go:build !unix

package datadir

import "os"

// Without flock the lock is advisory only: the directory is not guarded.
func lockFile(f *os.File) error { return nil }

func unlockFile(f *os.File) {}

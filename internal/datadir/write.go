package datadir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// WriteFile writes a file whole or not at all: write fills a temporary
// file beside path (buffered), which gets mode perm and is renamed to path
// once closed, so a reader, a crash or a full disk never leaves half a file
// under the final name. The directories on the way are created (0755).
// An error names path, never the temporary file a person never asked for
// ("write play/games/x.json: no space left on device: free some space
// there, or write elsewhere").
func WriteFile(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return writeError(path, "", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = writeError(path, f.Name(), err)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// writeError names path in an error about writing it: a file system error
// about the temporary file (or its pattern) becomes one about path, with
// what to do where the cause says it.
func writeError(path, tmp string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	var cause error
	switch {
	case errors.As(err, &pe) && (pe.Path == tmp || strings.HasPrefix(filepath.Base(pe.Path), "."+filepath.Base(path)+"-")):
		cause = pe.Err
	case errors.As(err, &le) && le.Old == tmp:
		cause = le.Err
	default:
		return err // the caller's own error: it says what it is about
	}
	switch {
	case errors.Is(cause, syscall.ENOSPC), errors.Is(cause, syscall.EDQUOT):
		cause = fmt.Errorf("%w: free some space there, or write elsewhere", cause)
	case errors.Is(cause, syscall.EACCES), errors.Is(cause, syscall.EPERM), errors.Is(cause, syscall.EROFS):
		cause = fmt.Errorf("%w: write somewhere this user may write", cause)
	case errors.Is(cause, syscall.EISDIR), errors.Is(cause, syscall.EEXIST), errors.Is(cause, syscall.ENOTEMPTY):
		// A directory where the file should go.
		cause = fmt.Errorf("%w: remove it or write elsewhere", cause)
	}
	return &fs.PathError{Op: "write", Path: path, Err: cause}
}

// WriteBytes is WriteFile of b.
func WriteBytes(path string, perm os.FileMode, b []byte) error {
	return WriteFile(path, perm, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

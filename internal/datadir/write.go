package datadir

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes a file whole or not at all: write fills a temporary
// file beside path (buffered), which gets mode perm and is renamed to path
// once closed, so a reader, a crash or a full disk never leaves half a file
// under the final name. The directories on the way are created (0755).
func WriteFile(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
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

// WriteBytes is WriteFile of b.
func WriteBytes(path string, perm os.FileMode, b []byte) error {
	return WriteFile(path, perm, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

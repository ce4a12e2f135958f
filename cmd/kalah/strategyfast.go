package main

import (
	"kalah/internal/datadir"

	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
)

// fastSet remembers the positions a strategy build found fast (the
// player's own search answers them within the node limit), saved beside the
// checkpoint as FILE.partial.fast, so that a resumed build does not search
// them again: the checkpoint (a book) holds only the positions solved, and a
// build of Kalah(6,4) stopped after half an hour had three fast positions to
// each one solved, which its resumption spent over half an hour of one core
// searching again. A position's key names its board from the mover's view,
// as the book's do; the header says what "fast" meant (the variant, the
// node limit, the database), and a file made under other terms is ignored.
type fastSet struct {
	header string
	keys   map[uint64]struct{}
}

// errFastFile marks a fast file that is not one this build can use.
var errFastFile = errors.New("not a strategy build's fast positions")

func newFastSet(variant string, nodes uint64, dbSeeds int) *fastSet {
	return &fastSet{header: fmt.Sprintf("kalah strategy fast positions v1; %s; nodes %d; egdb %d\n", variant, nodes, dbSeeds),
		keys: map[uint64]struct{}{}}
}

func (s *fastSet) has(k uint64) bool { _, ok := s.keys[k]; return ok }
func (s *fastSet) add(k uint64)      { s.keys[k] = struct{}{} }
func (s *fastSet) len() int          { return len(s.keys) }

// read adds the keys of the file at path, which must have been written
// under the same terms; a missing file adds nothing.
func (s *fastSet) read(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	rest, ok := bytes.CutPrefix(data, []byte(s.header))
	if !ok || len(rest)%8 != 0 {
		line, _, _ := bytes.Cut(data, []byte("\n"))
		return fmt.Errorf("%s: %w (its header %q, this build's %q)", path, errFastFile, line, bytes.TrimSpace([]byte(s.header)))
	}
	for ; len(rest) > 0; rest = rest[8:] {
		s.add(binary.LittleEndian.Uint64(rest))
	}
	return nil
}

// write saves the keys, sorted, through a temporary file renamed into place.
func (s *fastSet) write(path string) error {
	keys := make([]uint64, 0, len(s.keys))
	for k := range s.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf := make([]byte, 0, len(s.header)+8*len(keys))
	buf = append(buf, s.header...)
	for _, k := range keys {
		buf = binary.LittleEndian.AppendUint64(buf, k)
	}
	return datadir.WriteBytes(path, 0o644, buf)
}

package egdb

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"kalah"
	"kalah/internal/datadir"
)

// A build with BuildOptions.Checkpoints keeps its work in part files, one
// for each seed count, beside where the database will be written: a part
// holds the values of every configuration of its seed count, and how many
// levels of potential of them are done (all of them once the count is
// finished). The values of j seeds depend only on the rules, never on the
// seeds of the database they are built for, and Build computes the levels
// in one order: so a build that finds the parts of the counts before it,
// checksums right, loads them and goes on from the first level no part
// holds, and its database is byte for byte the one an uninterrupted build
// makes.

const (
	partMagic   = "KALAHEGP"
	partVersion = 1
	// partHeader: magic, version, the rules' four bytes, seeds, levels
	// done, entries, entries done, the payload's checksum, the header's.
	partHeader = 8 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 4
)

// PartPath returns the checkpoint file of seeds j of a build whose
// checkpoints are named by prefix (BuildOptions.Checkpoints).
func PartPath(prefix string, j int) string {
	return fmt.Sprintf("%s.s%02d.part", prefix, j)
}

// RemoveCheckpoints removes the part files of a build whose checkpoints
// are named by prefix (and the temporary files of a write of one that
// was cut short): its caller wrote the database, or wants a build from
// scratch.
func RemoveCheckpoints(prefix string) error {
	var first error
	for _, pat := range []string{prefix + ".s[0-9][0-9].part", filepath.Join(filepath.Dir(prefix), "."+filepath.Base(prefix)+".s[0-9][0-9].part-*")} {
		names, err := filepath.Glob(pat)
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := os.Remove(n); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// checkpointer writes and reads the parts of one build.
type checkpointer struct {
	db     *DB
	prefix string
	every  time.Duration
	last   time.Time
	saved  func(seeds int, done uint64, err error)
}

// partHead encodes a part's header for seeds j with levels done and
// done of its entries valued, and its payload's checksum.
func (c *checkpointer) partHead(j, levels int, done uint64, crc uint32) []byte {
	v := c.db.v
	b := make([]byte, 0, partHeader)
	b = append(b, partMagic...)
	b = binary.LittleEndian.AppendUint32(b, partVersion)
	b = append(b, uint8(v.n), boolByte(v.emptyCapture), uint8(v.end), boolByte(v.sowOpp))
	b = binary.LittleEndian.AppendUint32(b, uint32(j))
	b = binary.LittleEndian.AppendUint32(b, uint32(levels))
	b = binary.LittleEndian.AppendUint64(b, c.db.off[j+1]-c.db.off[j])
	b = binary.LittleEndian.AppendUint64(b, done)
	b = binary.LittleEndian.AppendUint32(b, crc)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// save writes the part of seeds j, levels of it done (done entries).
func (c *checkpointer) save(j, levels int, done uint64) {
	vals := payload(c.db.vals[c.db.off[j]:c.db.off[j+1]])
	h := c.partHead(j, levels, done, checksum(vals))
	err := datadir.WriteFile(PartPath(c.prefix, j), 0o644, func(w io.Writer) error {
		if _, err := w.Write(h); err != nil {
			return err
		}
		_, err := w.Write(vals)
		return err
	})
	c.last = time.Now()
	if c.saved != nil {
		c.saved(j, done, err)
	}
}

// due reports whether a checkpoint within a seed count is due.
func (c *checkpointer) due() bool {
	return c.every > 0 && time.Since(c.last) >= c.every
}

// Checkpointed returns the work a build of k seeds for rules r would find
// done in the checkpoints named by prefix, by their headers alone (the
// build checks their values' checksums as it loads them): where it would
// resume, told before it starts.
func Checkpointed(prefix string, r kalah.Rules, k int) uint64 {
	if Supported(r) != nil || k < 0 || k > MaxSeeds || 2*r.Houses+k > maxBinom {
		return 0
	}
	db := &DB{v: newVariant(r), k: k, off: make([]uint64, k+2)}
	for j := 0; j <= k; j++ {
		db.off[j+1] = db.off[j] + Count(j, 2*r.Houses)
	}
	c := &checkpointer{db: db, prefix: prefix}
	var work uint64
	for j := 0; j <= k; j++ {
		levels, done, ok := c.head(j)
		if !ok {
			break
		}
		work += done
		if levels <= j*r.Houses {
			break
		}
	}
	return work
}

// head reads the header of the part of seeds j: the levels of it done,
// the entries they are, its payload's checksum and the file, open at the
// payload; ok false if there is none, or one that is not this build's.
func (c *checkpointer) head(j int) (levels int, done uint64, ok bool) {
	levels, done, _, f, ok := c.open(j)
	if f != nil {
		f.Close()
	}
	return levels, done, ok
}

func (c *checkpointer) open(j int) (levels int, done uint64, crc uint32, f *os.File, ok bool) {
	f, err := os.Open(PartPath(c.prefix, j))
	if err != nil {
		return 0, 0, 0, nil, false
	}
	h := make([]byte, partHeader)
	if _, err := io.ReadFull(f, h); err != nil {
		return 0, 0, 0, f, false
	}
	crc = binary.LittleEndian.Uint32(h[partHeader-8:])
	if string(h[:8]) != partMagic || binary.LittleEndian.Uint32(h[partHeader-4:]) != crc32.Checksum(h[:partHeader-4], castagnoli) {
		return 0, 0, 0, f, false
	}
	levels = int(binary.LittleEndian.Uint32(h[20:]))
	done = binary.LittleEndian.Uint64(h[32:])
	entries := c.db.off[j+1] - c.db.off[j]
	if want := c.partHead(j, levels, done, crc); string(want) != string(h) || levels < 1 || levels > j*c.db.v.n+1 || done > entries || levels == j*c.db.v.n+1 && done != entries {
		return 0, 0, 0, f, false // another version, other rules, another seed count
	}
	return levels, done, crc, f, true
}

// load reads the part of seeds j into the database's values, if there is
// one that belongs to this build and whose checksums are right: the levels
// of it done and the entries they are; ok false otherwise (the build
// computes seeds j from its first level).
func (c *checkpointer) load(j int) (levels int, done uint64, ok bool) {
	levels, done, crc, f, ok := c.open(j)
	if f != nil {
		defer f.Close()
	}
	if !ok {
		return 0, 0, false
	}
	vals := payload(c.db.vals[c.db.off[j]:c.db.off[j+1]])
	if _, err := io.ReadFull(f, vals); err != nil {
		return 0, 0, false
	}
	if n, _ := f.Read(make([]byte, 1)); n != 0 || checksum(vals) != crc {
		return 0, 0, false
	}
	return levels, done, true
}

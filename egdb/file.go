package egdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"kalah"
	"kalah/internal/cores"
	"kalah/internal/datadir"
	"kalah/internal/hugemem"
	"kalah/internal/prefetch"
)

// Errors returned by this package, matched with errors.Is.
var (
	// ErrCorrupt: the file is not a database, is truncated, or its
	// checksums do not match.
	ErrCorrupt = errors.New("corrupt endgame database")
	// ErrMismatch: the database was built for other rules.
	ErrMismatch = errors.New("endgame database built for other rules")
	// ErrUnsupported: no database can be built for these rules or sizes.
	ErrUnsupported = errors.New("endgame database not supported")
)

const (
	magic   = "KALAHEGD"
	version = 1
	// fixedHeader is the header before the offsets.
	fixedHeader = 32
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// DB is an endgame database: the exact value of every configuration of up
// to Seeds() seeds in the houses, for the side to move. A DB from Open maps
// its file read-only; one from Build lives in memory. A DB is safe for
// concurrent use.
type DB struct {
	v    variant
	k    int
	off  []uint64 // off[j] is the index of the first configuration of j seeds
	vals []int8
	mmap []byte // the mapped file, if any
	// release frees values allocated outside the Go heap, if set.
	release func()
	crc     uint32 // the payload checksum from the header (or computed)
	path    string
}

// Seeds returns K: the database holds every configuration of up to K seeds.
func (db *DB) Seeds() int { return db.k }

// Houses returns the houses a side of the boards it covers.
func (db *DB) Houses() int { return db.v.n }

// Entries returns the number of configurations stored (one byte each).
func (db *DB) Entries() uint64 { return db.off[db.k+1] }

// Path returns the file the database was opened or loaded from, or last
// written to, or "".
func (db *DB) Path() string { return db.path }

// Describe returns the rules switches the database was built for.
func (db *DB) Describe() string {
	return fmt.Sprintf("%d houses, empty capture %v, end rule %s, sow into the opponent's store %v, up to %d seeds, %d entries",
		db.v.n, db.v.emptyCapture, db.v.end, db.v.sowOpp, db.k, db.Entries())
}

// Check reports an error wrapping ErrMismatch if the database does not hold
// values for rules r. Only the switches that change values matter: the
// number of houses, the empty capture, the end rule and sowing into the
// opponent's store. The seeds a house at the start, the first side and the
// pie rule (which only affects the first two moves) do not.
func (db *DB) Check(r kalah.Rules) error {
	if err := Supported(r); err != nil {
		return err
	}
	want := newVariant(r)
	if want != db.v {
		return fmt.Errorf("%w: the database is for %s; the rules %s need %d houses, empty capture %v, end rule %s, sow into the opponent's store %v",
			ErrMismatch, db.Describe(), r, want.n, want.emptyCapture, want.end, want.sowOpp)
	}
	return nil
}

// Value returns the exact value for the mover of the configuration h (the
// mover's houses from its left, then the opponent's from its left; 2n houses)
// holding k seeds: the final store difference the mover can force from here,
// not counting the seeds already in the stores. ok is false if k is beyond
// the database.
func (db *DB) Value(h []uint8, k int) (v int, ok bool) {
	if k > db.k || k < 0 {
		return 0, false
	}
	return int(db.vals[db.off[k]+Rank(h)]), true
}

// Index returns where the entry Value(h, k) reads lies, for
// PrefetchIndex and ValueIndex: a search that prefetches an entry and
// reads it later ranks the configuration once (the rank is most of a
// probe's instructions). k must lie in [0, Seeds()].
func (db *DB) Index(h []uint8, k int) uint64 { return db.off[k] + Rank(h) }

// PrefetchIndex is Prefetch of the entry at i (from Index).
func (db *DB) PrefetchIndex(i uint64) { prefetch.Line(unsafe.Pointer(&db.vals[i])) }

// ValueIndex is Value of the entry at i (from Index).
func (db *DB) ValueIndex(i uint64) int { return int(db.vals[i]) }

// Prefetch starts loading the entry Value(h, k) reads, without waiting for
// it (package prefetch): a caller that will look up several positions
// prefetches them all first, so their cache misses overlap.
func (db *DB) Prefetch(h []uint8, k int) {
	if k > db.k || k < 0 {
		return
	}
	prefetch.Line(unsafe.Pointer(unsafe.SliceData(db.vals[db.off[k]+Rank(h):])))
}

// header encodes the header (without the trailing header checksum).
func (db *DB) header() []byte {
	b := make([]byte, fixedHeader, fixedHeader+8*len(db.off)+4)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], version)
	b[12] = uint8(db.v.n)
	b[13] = boolByte(db.v.emptyCapture)
	b[14] = uint8(db.v.end)
	b[15] = boolByte(db.v.sowOpp)
	binary.LittleEndian.PutUint32(b[16:], uint32(db.k))
	binary.LittleEndian.PutUint32(b[20:], db.crc)
	binary.LittleEndian.PutUint64(b[24:], db.Entries())
	for _, o := range db.off {
		b = binary.LittleEndian.AppendUint64(b, o)
	}
	return b
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func payload(vals []int8) []byte {
	if len(vals) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), len(vals))
}

// WriteFile writes the database to path (through a temporary file renamed
// into place, so a crash never leaves a half-written database under the
// final name).
func (db *DB) WriteFile(path string) (err error) {
	// The checksum is the one Build computed or the file's own (checked by
	// Load, and by Open unless told not to): values that went bad in a
	// mapped file are written with it, so they stay detectable.
	h := db.header()
	h = binary.LittleEndian.AppendUint32(h, crc32.Checksum(h, castagnoli))
	err = datadir.WriteFile(path, 0o644, func(w io.Writer) error {
		if _, err := w.Write(h); err != nil {
			return err
		}
		_, err := w.Write(payload(db.vals))
		return err
	})
	if err != nil {
		return err
	}
	db.path = path
	return nil
}

// Open maps a database file read-only and checks its header: the magic,
// version, header checksum and that the file size matches. The payload
// checksum is checked too unless skipVerify (see Verify); a file that fails
// any check is refused with an error wrapping ErrCorrupt.
func Open(path string, skipVerify bool) (*DB, error) {
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("egdb: mapping %s: %w", path, err)
	}
	db, err := parse(data, path)
	if err != nil {
		syscall.Munmap(data)
		return nil, err
	}
	db.mmap = data
	db.path = path
	if !skipVerify {
		if err := db.Verify(); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// Load reads a database file into memory and checks it as Open does
// (header and payload checksum). Its values live in transparent huge pages
// where the system has them, so a search probing them at random misses the
// TLB far less than over Open's mapping of the file (a solve of Kalah(6,4)
// with the 20-seed database is several per cent faster). The memory is the
// process's own: processes that load one file each hold a copy, where
// mappings share the page cache.
func Load(path string) (*DB, error) {
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	mem, release := hugemem.Alloc(int(size))
	if release == nil {
		release = func() {}
	}
	if err := readAll(f, mem); err != nil {
		release()
		return nil, fmt.Errorf("egdb: reading %s: %w", path, err)
	}
	db, err := parse(mem, path)
	if err != nil {
		release()
		return nil, err
	}
	db.path = path
	db.own(release)
	if err := db.Verify(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// readAll fills mem from the start of f, on up to GOMAXPROCS goroutines
// reading a part each: the copy from the page cache takes about half the
// time on two cores (docs/ENGINE.md).
func readAll(f *os.File, mem []byte) error {
	const least = 16 << 20 // below, one read
	parts := min(cores.N(), max(1, len(mem)/least))
	size := (len(mem) + parts - 1) / parts
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			lo := i * size
			part := mem[lo:min(lo+size, len(mem))]
			n, err := f.ReadAt(part, int64(lo))
			if n == len(part) {
				err = nil // ReadAt may say io.EOF with the last byte
			} else if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			errs[i] = err
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// openFile opens a database file and returns its size, refusing one too
// small to hold a header or larger than any database.
func openFile(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	size := st.Size()
	switch {
	case size < fixedHeader+8+4:
		err = fmt.Errorf("%w: %s: %d bytes is too short for a header", ErrCorrupt, path, size)
	case size > fixedHeader+8*(MaxSeeds+2)+4+maxEntries:
		err = fmt.Errorf("%w: %s: %d bytes is larger than any database", ErrCorrupt, path, size)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, size, nil
}

// Read loads a database from r into memory, checking it fully.
func Read(r io.Reader) (*DB, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	db, err := parse(data, "")
	if err != nil {
		return nil, err
	}
	return db, db.Verify()
}

func parse(data []byte, path string) (*DB, error) {
	name := path
	if name == "" {
		name = "database"
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrCorrupt, name, fmt.Sprintf(format, a...))
	}
	if len(data) < fixedHeader+12 || string(data[:8]) != magic {
		return nil, bad("not an endgame database (bad magic)")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != version {
		return nil, bad("format version %d (this program reads %d)", v, version)
	}
	db := &DB{}
	db.v.n = int(data[12])
	db.v.emptyCapture = data[13] != 0
	db.v.end = kalah.EndRule(data[14])
	db.v.sowOpp = data[15] != 0
	db.k = int(binary.LittleEndian.Uint32(data[16:]))
	db.crc = binary.LittleEndian.Uint32(data[20:])
	entries := binary.LittleEndian.Uint64(data[24:])
	if db.v.n < 1 || db.v.n > kalah.MaxHouses || db.k > MaxSeeds || data[13] > 1 || data[15] > 1 || db.v.end > kalah.MoverEmpty {
		return nil, bad("impossible header values")
	}
	hlen := fixedHeader + 8*(db.k+2)
	if len(data) < hlen+4 {
		return nil, bad("truncated header")
	}
	if got, want := crc32.Checksum(data[:hlen], castagnoli), binary.LittleEndian.Uint32(data[hlen:]); got != want {
		return nil, bad("header checksum %08x, want %08x", got, want)
	}
	db.off = make([]uint64, db.k+2)
	m := 2 * db.v.n
	for j := range db.off {
		db.off[j] = binary.LittleEndian.Uint64(data[fixedHeader+8*j:])
		if j > 0 && db.off[j] != db.off[j-1]+Count(j-1, m) {
			return nil, bad("offset of %d seeds is %d, want %d", j, db.off[j], db.off[j-1]+Count(j-1, m))
		}
	}
	if db.off[0] != 0 || entries != db.off[db.k+1] {
		return nil, bad("entry count %d does not match the offsets", entries)
	}
	start := uint64(hlen + 4)
	if uint64(len(data)) != start+entries {
		return nil, bad("%d bytes, want %d (truncated or padded)", len(data), start+entries)
	}
	if entries > 0 {
		p := data[start:]
		db.vals = unsafe.Slice((*int8)(unsafe.Pointer(&p[0])), entries)
	}
	return db, nil
}

// Verify checks the payload checksum against the header, reading every
// byte on every core: tens of milliseconds for a few hundred megabytes.
// Open calls it unless told not to.
func (db *DB) Verify() error {
	if got := checksum(payload(db.vals)); got != db.crc {
		return fmt.Errorf("%w: %s: payload checksum %08x, want %08x", ErrCorrupt, db.pathOr(), got, db.crc)
	}
	return nil
}

func (db *DB) pathOr() string {
	if db.path == "" {
		return "database"
	}
	return db.path
}

// Close unmaps a database opened from a file, or frees one loaded or built
// outside the Go heap. The DB must not be used after.
func (db *DB) Close() error {
	if db.release != nil {
		db.release()
		db.release, db.vals = nil, nil
	}
	if db.mmap == nil {
		return nil
	}
	err := syscall.Munmap(db.mmap)
	db.mmap, db.vals = nil, nil
	return err
}

// FileName returns the default file name of a database for rules r and K
// seeds, such as "kalah-6h-nocap-either-empty-k16.egdb".
func FileName(r kalah.Rules, k int) string {
	cap := "nocap"
	if r.EmptyCapture {
		cap = "emptycap"
	}
	sow := ""
	if r.SowOpponentStore {
		sow = "-sowopp"
	}
	return fmt.Sprintf("kalah-%dh-%s-%s%s-k%d.egdb", r.Houses, cap, r.End, sow, k)
}

// DefaultDir returns where databases live by default: egdb in kalah's
// data directory (datadir.Dir: --data, $KALAH_DATA, ./kalah-data or
// ~/.local/share/kalah), or $KALAH_EGDB_DIR if set.
func DefaultDir() (string, error) {
	if d := os.Getenv("KALAH_EGDB_DIR"); d != "" {
		return d, nil
	}
	return datadir.Path("egdb"), nil
}

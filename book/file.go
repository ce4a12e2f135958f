package book

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"strings"

	"kalah"
	kboard "kalah/internal/board"
	"kalah/internal/datadir"
)

const (
	magic = "KALAHBK\x00"
	// Opening books are written in version 1, with a 32-byte header;
	// strategy books in version 2, whose 40-byte header adds the frontier.
	version         = 1
	headerSize      = 32
	versionStrategy = 2
	headerStrategy  = 40
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Marshal encodes the book in the file format (see the package comment).
func (b *Book) Marshal() []byte {
	n := b.v.Houses
	pay := make([]byte, 0, 4*len(b.keys)+len(b.vals))
	var last uint64
	for i, k := range b.keys {
		d := k
		if i > 0 {
			d = k - last
		}
		pay = binary.AppendUvarint(pay, d)
		last = k
	}
	for _, v := range b.vals[:len(b.keys)*n] {
		pay = append(pay, byte(v))
	}
	size, ver := headerSize, uint32(version)
	if b.kind == Strategy {
		size, ver = headerStrategy, versionStrategy
	}
	h := make([]byte, size, size+len(pay))
	copy(h, magic)
	binary.LittleEndian.PutUint32(h[8:], ver)
	h[12] = uint8(n)
	h[13] = uint8(b.v.Seeds)
	h[14] = boolByte(b.v.EmptyCapture)
	h[15] = uint8(b.v.End)
	h[16] = boolByte(b.v.SowOpponentStore)
	h[17] = uint8(b.plies)
	binary.LittleEndian.PutUint32(h[20:], uint32(len(b.keys)))
	binary.LittleEndian.PutUint32(h[24:], crc32.Checksum(pay, castagnoli))
	if b.kind == Strategy {
		h[18] = uint8(b.kind)
		h[19] = uint8(b.dbSeeds)
		binary.LittleEndian.PutUint32(h[28:], b.nodeLimit)
	}
	binary.LittleEndian.PutUint32(h[size-4:], crc32.Checksum(h[:size-4], castagnoli))
	return append(h, pay...)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Parse decodes a book, checking everything it can: the magic, the version,
// both checksums, the rules, that the keys are in order and within the
// boards of the rules, that every value is possible and every entry has a
// legal move, and that nothing is left over. A failure wraps ErrCorrupt.
func Parse(data []byte) (*Book, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))
	}
	if len(data) < headerSize || string(data[:8]) != magic {
		return nil, bad("not an opening book (bad magic)")
	}
	size, kind := headerSize, Opening
	switch v := binary.LittleEndian.Uint32(data[8:]); v {
	case version:
	case versionStrategy:
		size, kind = headerStrategy, Strategy
	default:
		return nil, bad("format version %d (this program reads %d and %d)", v, version, versionStrategy)
	}
	if len(data) < size {
		return nil, bad("truncated header")
	}
	if got, want := crc32.Checksum(data[:size-4], castagnoli), binary.LittleEndian.Uint32(data[size-4:]); got != want {
		return nil, bad("header checksum %08x, want %08x", got, want)
	}
	if data[14] > 1 || data[16] > 1 || data[15] > uint8(kalah.MoverEmpty) {
		return nil, bad("impossible header values")
	}
	if kind == Opening && (data[18] != 0 || data[19] != 0) ||
		kind == Strategy && (Kind(data[18]) != Strategy || binary.LittleEndian.Uint32(data[32:]) != 0) {
		return nil, bad("impossible header values")
	}
	r := kalah.Rules{Houses: int(data[12]), Seeds: int(data[13]), EmptyCapture: data[14] == 1,
		End: kalah.EndRule(data[15]), SowOpponentStore: data[16] == 1}
	v, err := VariantOf(r)
	if err != nil {
		return nil, bad("rules: %v", err)
	}
	plies := int(data[17])
	if plies > MaxPlies {
		return nil, bad("%d plies (at most %d)", plies, MaxPlies)
	}
	count := int(binary.LittleEndian.Uint32(data[20:]))
	pay := data[size:]
	if got, want := crc32.Checksum(pay, castagnoli), binary.LittleEndian.Uint32(data[24:]); got != want {
		return nil, bad("payload checksum %08x, want %08x", got, want)
	}
	n := v.Houses
	total := 2 * n * v.Seeds
	// Each entry takes at least one byte of key and n of values.
	if count > len(pay)/(n+1) {
		return nil, bad("%d entries cannot fit in %d bytes", count, len(pay))
	}
	limit := kboard.Choose(total+2*n, 2*n) // keys of boards of up to total seeds
	b := &Book{v: v, kind: kind, plies: plies, keys: make([]uint64, count)}
	if kind == Strategy {
		b.dbSeeds, b.nodeLimit = int(data[19]), binary.LittleEndian.Uint32(data[28:])
	}
	var last uint64
	for i := range count {
		d, w := binary.Uvarint(pay)
		if w <= 0 {
			return nil, bad("truncated key %d", i)
		}
		pay = pay[w:]
		k := d
		if i > 0 {
			if d == 0 || d >= limit-last {
				return nil, bad("key %d out of order or out of range", i)
			}
			k = last + d
		}
		if k >= limit {
			return nil, bad("key %d out of range", i)
		}
		b.keys[i], last = k, k
	}
	if len(pay) != count*n {
		return nil, bad("%d bytes of values, want %d (truncated or padded)", len(pay), count*n)
	}
	b.vals = make([]int8, count*n)
	for i, x := range pay {
		b.vals[i] = int8(x)
		if x := int(int8(x)); x != NoMove && x != Unknown && (x < -total || x > total) {
			return nil, bad("value %d of entry %d out of range", x, i/n)
		}
	}
	for i := range count {
		if Best(b.vals[i*n:(i+1)*n]) <= Unknown {
			return nil, bad("entry %d has no move of known value", i)
		}
	}
	return b, nil
}

// ReadFile reads and parses a book file.
func ReadFile(path string) (*Book, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// WriteFile writes the book to path through a temporary file renamed into
// place, so a failure never leaves half a book under the final name.
func (b *Book) WriteFile(path string) error {
	return datadir.WriteBytes(path, 0o644, b.Marshal())
}

// FileName returns the conventional file name of a book, such as
// "kalah-6x4.kbook" for the standard rules or
// "kalah-6x3-mover-empty-sowopp.kbook".
func FileName(v Variant) string {
	s := fmt.Sprintf("kalah-%dx%d", v.Houses, v.Seeds)
	if v.EmptyCapture {
		s += "-emptycap"
	}
	if v.End != kalah.EitherEmpty {
		s += "-" + v.End.String()
	}
	if v.SowOpponentStore {
		s += "-sowopp"
	}
	return s + ".kbook"
}

// StrategyFileName returns the conventional file name of a strategy book,
// such as "kalah-6x4-strategy.kbook".
func StrategyFileName(v Variant) string {
	return strings.TrimSuffix(FileName(v), ".kbook") + "-strategy.kbook"
}

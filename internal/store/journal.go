package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"kalah"
	"kalah/internal/datadir"
)

// The moves of live games are kept in a journal beside the database (its
// path and "-moves"), not in the database, until the game ends: a move is
// one line appended to the file, a write(2) of about 30 bytes, where a
// commit of the database wrote 3 to 4 pages of the log (12 KB) and took
// turns with every other write. A game's moves go into the database with
// its end (FinishGame), in the transaction that marks it finished; those
// of games still live when the store closes, when it opens again after a
// crash (replay), the moves the journal holds of games the database lists
// as live. The guarantee is the database's own (synchronous=NORMAL): a
// confirmed move survives the process's crash; the file is not synced, as
// the log's commits are not.
//
// A line is "m GAME PLY SIDE HOUSE SWAP MS CRC" (a move) or "t GAME PLY
// CRC" (the moves of GAME from PLY on taken back), CRC the IEEE CRC-32 of
// what comes before it, in hex: a line cut short by a crash, or any line
// after garbage, is where replay stops. Once the file outgrows what it
// must hold, it is written again with only the live games' moves (compact).
type journal struct {
	mu   sync.Mutex // guards everything below, and the file's writes
	f    *os.File   // nil: a store in memory, which keeps the moves only here
	path string
	size int64 // bytes written to f, all of them whole lines
	// live holds, by game, the moves in the journal and not in the
	// database, and the next ply.
	live map[int64]*liveMoves
	n    int // moves held in live, to size the compacted file
	buf  []byte
	// compactions counts the times the file was written again.
	compactions int
	// limit, if positive, is the most the file may hold (LimitSize).
	limit int64
}

// liveMoves are a live game's moves not yet in the database.
type liveMoves struct {
	next  int // the next move's ply: moves in the database and here
	moves []moveRow
}

// journalCompactAt is the least size at which the journal is written
// again with only what it must hold, once that is under a quarter of it.
var journalCompactAt int64 = 8 << 20

// journalPath is the journal of the database at path.
func journalPath(path string) string { return path + "-moves" }

// openJournal opens (creating) the journal at path; "" keeps it in memory.
func openJournal(path string) (*journal, error) {
	j := &journal{path: path, live: map[int64]*liveMoves{}}
	if path == "" {
		return j, nil
	}
	if err := datadir.PrivateFile(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	// One store a journal: another process with the database open (a
	// server, while a command reads its tournaments) keeps it. This one
	// then holds its moves in memory until their games end, and neither
	// replays nor empties the other's file.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return &journal{live: map[int64]*liveMoves{}}, nil
		}
		return nil, err
	}
	j.f = f
	return j, nil
}

// journalOp is one line of the journal, read back.
type journalOp struct {
	take bool // "t": the moves from m.ply on taken back
	m    moveRow
}

// appendLine appends a line and its checksum to b.
func appendLine(b []byte, op journalOp) []byte {
	start := len(b)
	m := op.m
	if op.take {
		b = fmt.Appendf(b, "t %d %d", m.game, m.ply)
	} else {
		b = fmt.Appendf(b, "m %d %d %s %d %d %d", m.game, m.ply, m.side, m.house, m.swap, m.ms)
	}
	return fmt.Appendf(b, " %08x\n", crc32.ChecksumIEEE(b[start:]))
}

// parseLine reads a line back (without its newline).
func parseLine(s string) (journalOp, error) {
	body, sum, ok := cutLast(s)
	if !ok {
		return journalOp{}, errors.New("no checksum")
	}
	if want, err := strconv.ParseUint(sum, 16, 32); err != nil || uint32(want) != crc32.ChecksumIEEE([]byte(body)) {
		return journalOp{}, errors.New("bad checksum")
	}
	f := strings.Fields(body)
	num := func(i int) int64 {
		if i >= len(f) {
			return -1
		}
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return -1
		}
		return n
	}
	var op journalOp
	switch {
	case len(f) == 3 && f[0] == "t":
		op.take = true
	case len(f) == 7 && f[0] == "m" && (f[3] == "S" || f[3] == "N"):
		op.m.side, op.m.house, op.m.swap, op.m.ms = f[3], int(num(4)), int(num(5)), num(6)
	default:
		return journalOp{}, errors.New("not a journal line")
	}
	op.m.game, op.m.ply = num(1), int(num(2))
	if op.m.game < 0 || op.m.ply < 0 || !op.take && (op.m.house < 0 || op.m.swap < 0 || op.m.swap > 1 || op.m.ms < 0) {
		return journalOp{}, errors.New("a number out of range")
	}
	return op, nil
}

func cutLast(s string) (before, after string, ok bool) {
	i := strings.LastIndexByte(s, ' ')
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// readJournal returns the whole lines of r up to the first that is not
// one (a line cut short by a crash), and how many bytes they take.
func readJournal(r io.Reader) (ops []journalOp, good int64, bad error) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			return ops, good, nil
		}
		if err != nil && err != io.EOF {
			return ops, good, err
		}
		if !strings.HasSuffix(line, "\n") {
			return ops, good, fmt.Errorf("a line cut short at byte %d", good)
		}
		op, perr := parseLine(strings.TrimSuffix(line, "\n"))
		if perr != nil {
			return ops, good, fmt.Errorf("byte %d: %w", good, perr)
		}
		ops = append(ops, op)
		good += int64(len(line))
	}
}

// appendOps writes lines to the journal; on a failed write the file is cut
// back to its whole lines, so nothing after a torn line is lost at replay.
// The caller holds j.mu.
func (j *journal) appendOps(ops ...journalOp) error {
	if j.f == nil {
		return nil
	}
	j.buf = j.buf[:0]
	for _, op := range ops {
		j.buf = appendLine(j.buf, op)
	}
	if j.limit > 0 && j.size+int64(len(j.buf)) > j.limit {
		return fmt.Errorf("the store's size limit: %w", syscall.ENOSPC)
	}
	n, err := j.f.WriteAt(j.buf, j.size)
	if err != nil {
		if n > 0 {
			j.f.Truncate(j.size)
		}
		return err
	}
	j.size += int64(n)
	return nil
}

// add journals move m of a live game. The next ply of a game the journal
// does not hold (one that was live when the store opened) is counted in
// the database, without the journal's lock.
func (j *journal) add(m moveRow, count func() (int, error)) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	lm := j.live[m.game]
	if lm == nil {
		j.mu.Unlock()
		n, err := count()
		j.mu.Lock()
		if err != nil {
			return err
		}
		if lm = j.live[m.game]; lm == nil {
			lm = &liveMoves{next: n}
		}
	}
	if m.ply < lm.next {
		return fmt.Errorf("%w: move %d of game %d is stored already", ErrMoveOrder, m.ply+1, m.game)
	}
	if m.ply > lm.next {
		return fmt.Errorf("%w: move %d of game %d before move %d", ErrMoveOrder, m.ply+1, m.game, lm.next+1)
	}
	if err := j.appendOps(journalOp{m: m}); err != nil {
		return fmt.Errorf("%w: the moves' journal: %w", ErrUnavailable, err)
	}
	j.live[m.game] = lm
	lm.moves = append(lm.moves, m)
	lm.next++
	j.n++
	j.compactIfLarge()
	return nil
}

// ErrMoveOrder refuses a move whose ply is not the game's next.
var ErrMoveOrder = errors.New("a move out of order")

// started records a new game, whose moves all go to the journal.
func (j *journal) started(game int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.live[game] == nil {
		j.live[game] = &liveMoves{}
	}
}

// held returns a copy of the moves of game the journal holds, and the
// game's next ply; ok false if it holds none of the game.
func (j *journal) held(game int64) (moves []moveRow, next int, ok bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	lm := j.live[game]
	if lm == nil {
		return nil, 0, false
	}
	return append([]moveRow(nil), lm.moves...), lm.next, true
}

// next returns game's next ply, if the journal holds the game.
func (j *journal) next(game int64) (int, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if lm := j.live[game]; lm != nil {
		return lm.next, true
	}
	return 0, false
}

// stored forgets game's moves: they are in the database (its end was
// committed with them).
func (j *journal) stored(game int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if lm := j.live[game]; lm != nil {
		j.n -= len(lm.moves)
		delete(j.live, game)
	}
}

// takenBack journals that game's moves from ply on were taken back (the
// database's were deleted in the same breath).
func (j *journal) takenBack(game int64, ply int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.appendOps(journalOp{take: true, m: moveRow{game: game, ply: ply}}); err != nil {
		return err
	}
	if lm := j.live[game]; lm != nil {
		keep := lm.moves[:0]
		for _, m := range lm.moves {
			if m.ply < ply {
				keep = append(keep, m)
			}
		}
		j.n -= len(lm.moves) - len(keep)
		lm.moves = keep
		lm.next = min(lm.next, ply)
	}
	return nil
}

// compactIfLarge writes the journal again with only the moves it holds,
// once it is large and mostly moves of games that have ended: a new file,
// renamed over the old. The caller holds j.mu.
func (j *journal) compactIfLarge() {
	// A line is about 30-40 bytes: compact once what is held would take
	// under a quarter of the file.
	if j.f == nil || j.size < journalCompactAt || int64(j.n)*40 > j.size/4 {
		return
	}
	tmp := j.path + ".new"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return // it is tried again with the next move
	}
	var b []byte
	for _, lm := range j.live {
		for _, m := range lm.moves {
			b = appendLine(b, journalOp{m: m})
		}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(tmp)
		return
	}
	if _, err := f.Write(b); err != nil || os.Rename(tmp, j.path) != nil {
		f.Close()
		os.Remove(tmp)
		return
	}
	j.f.Close()
	j.f, j.size = f, int64(len(b))
	j.compactions++
}

// reset empties the journal: everything it held is in the database.
func (j *journal) reset() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.resetLocked()
}

// resetIf empties the journal if it holds n moves, all of which the caller
// put into the database: none came meanwhile.
func (j *journal) resetIf(n int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.n != n {
		return nil
	}
	return j.resetLocked()
}

func (j *journal) resetLocked() error {
	j.live, j.n = map[int64]*liveMoves{}, 0
	if j.f == nil {
		return nil
	}
	if err := j.f.Truncate(0); err != nil {
		return err
	}
	j.size = 0
	return nil
}

// all returns every move the journal holds, and how many.
func (j *journal) all() ([]moveRow, int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []moveRow
	for _, lm := range j.live {
		out = append(out, lm.moves...)
	}
	return out, j.n
}

func (j *journal) close() error {
	if j.f == nil {
		return nil
	}
	return j.f.Close()
}

// replayJournal puts into the database the moves the journal holds of
// games the database lists as live (a crash left them there), in the order
// they were made, and empties it. It reports how many it put, and why it
// stopped early (torn), if it did: the last line cut short by a crash.
// n counts the move lines applied, those of moves taken back later too.
func replayJournal(ctx context.Context, s *Store, j *journal) (n int, torn, err error) {
	if j.f == nil {
		return 0, nil, nil
	}
	if _, err := j.f.Seek(0, io.SeekStart); err != nil {
		return 0, nil, err
	}
	ops, _, torn := readJournal(j.f)
	if len(ops) == 0 {
		return 0, torn, j.reset()
	}
	err = s.write(ctx, func(tx *Tx) error {
		live := map[int64]bool{}
		for _, op := range ops {
			g := op.m.game
			if _, known := live[g]; !known {
				var status string
				err := tx.QueryRow(`SELECT status FROM games WHERE id=?`, g).Scan(&status)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					return err
				}
				live[g] = status == string(Live)
			}
			if !live[g] {
				continue // ended (its moves went in with its end), or unknown
			}
			if op.take {
				if _, err := tx.Exec(`DELETE FROM moves WHERE game=? AND ply>=?`, g, op.m.ply); err != nil {
					return err
				}
				continue
			}
			m := op.m
			if _, err := tx.Exec(`INSERT OR REPLACE INTO moves(game, ply, side, house, swap, ms) VALUES(?,?,?,?,?,?)`, m.game, m.ply, m.side, m.house, m.swap, m.ms); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, torn, fmt.Errorf("store: replay the moves' journal: %w", err)
	}
	return n, torn, j.reset()
}

// insertMoves inserts rows into moves in statements of up to 150 rows,
// replacing a row of the same ply (a write tried again).
func insertMoves(tx *Tx, rows []moveRow) error {
	var q bytes.Buffer
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), 150)]
		rows = rows[len(chunk):]
		q.Reset()
		q.WriteString("INSERT OR REPLACE INTO moves(game, ply, side, house, swap, ms) VALUES ")
		args := make([]any, 0, 6*len(chunk))
		for i, m := range chunk {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString("(?,?,?,?,?,?)")
			args = append(args, m.game, m.ply, m.side, m.house, m.swap, m.ms)
		}
		if _, err := tx.Exec(q.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// recordMove is a journal's row as a record's move.
func (m moveRow) recordMove() kalah.RecordMove {
	side, _ := kalah.ParseSide(m.side)
	return kalah.RecordMove{Side: side, House: m.house, Swap: m.swap != 0, Millis: m.ms}
}

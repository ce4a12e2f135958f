package store

import (
	"cmp"
	"context"
	"sync"
	"time"
)

// ratedTag is the tag that marks a game rated ("yes"): core.TagRated, as
// the games table's JSON holds it.
const ratedTag = "Rated"

// ratedSQL is a game's rated tag in SQL, NULL for tags that are not JSON
// (a database edited by hand): json_extract would fail the statement.
const ratedSQL = `CASE WHEN json_valid(tags) THEN json_extract(tags, '$.` + ratedTag + `') END`

// recentPairs lets RatedGamesBetween skip the database for the pairs that
// cannot have a rated game created since the moment asked about: every
// game start asks, hundreds of times a second under load, and nearly every
// pair has none. It knows, for each pair of identities, the latest creation
// time of a game of theirs that may count (a game created rated, or made
// rated later: SetTag, FinishGame's tags, SetSeats). It is a superset: a
// pair is noted before the write that could make one of its games count
// commits, so no answer of the database is ever ahead of it; a pair it
// holds is asked of the database, which stays the truth.
//
// It is bounded: past maxRecentPairs notes the oldest are dropped, and
// floor remembers the latest time dropped; a pair it does not hold is
// known to have nothing only since floor. As the store opens it reads the
// pairs of the rated games of the last day (loadRecentPairs); another
// process that writes the database meanwhile is seen by the writer, which
// looks every tenth of a second while it commits, or within a second
// (none asks the database after that long without a look); the pairs
// are then unknown until a day after it (foreign).
type recentPairs struct {
	mu    sync.Mutex
	last  map[[2]string]int64 // pair (sorted keys): latest created, ms
	order []pairNote          // notes, oldest first (created order)
	head  int                 // order[:head] are dropped
	floor int64               // ms; games created up to it may be unknown
	// checked is when the database was last seen not written by another
	// process (UnixMilli); 0: never, so ask the database.
	checked int64
	// limit is the most notes kept (0: maxRecentPairs).
	limit int
}

type pairNote struct {
	key [2]string
	at  int64
}

// maxRecentPairs bounds the notes kept (about 100 bytes each).
const maxRecentPairs = 1 << 18

// recentCheckEvery is how stale the check for another process's writes
// may be before an answer from memory checks again.
const recentCheckEvery = time.Second

// pairKey is a pair's key, its identities' keys sorted.
func pairKey(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// note records that a game of a and b created at ms may count.
func (p *recentPairs) note(a, b string, ms int64) {
	key := pairKey(a, b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		p.last = map[[2]string]int64{}
	}
	if t, ok := p.last[key]; ok && t >= ms {
		return
	}
	p.last[key] = ms
	p.order = append(p.order, pairNote{key, ms})
	// Notes older than a day and a bit, and those past the bound, go.
	old := time.Now().Add(-25 * time.Hour).UnixMilli()
	limit := cmp.Or(p.limit, maxRecentPairs)
	for p.head < len(p.order) && (len(p.order)-p.head > limit || p.order[p.head].at < old) {
		n := p.order[p.head]
		p.order[p.head] = pairNote{}
		p.head++
		if p.last[n.key] == n.at {
			delete(p.last, n.key)
			p.floor = max(p.floor, n.at)
		}
	}
	if p.head > len(p.order)/2 && p.head > 1024 {
		p.order = append(p.order[:0:0], p.order[p.head:]...)
		p.head = 0
	}
}

// none reports whether a and b surely have no game that counts created at
// or after since (ms): then the database need not be asked.
func (p *recentPairs) none(a, b string, since int64) bool {
	key := pairKey(a, b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.checked == 0 || time.Now().UnixMilli()-p.checked > recentCheckEvery.Milliseconds() {
		return false
	}
	t, ok := p.last[key]
	if !ok {
		return since > p.floor
	}
	return t < since
}

// recentLookEvery is how often the writer looks for another process's
// writes while it commits.
const recentLookEvery = 100 * time.Millisecond

// stale reports whether the last look for another process's writes is
// older than recentLookEvery.
func (p *recentPairs) stale() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Now().UnixMilli()-p.checked >= recentLookEvery.Milliseconds()
}

// seen notes that the database was not written by another process up to
// now (the version of the data it read was this store's own).
func (p *recentPairs) seen() {
	p.mu.Lock()
	p.checked = time.Now().UnixMilli()
	p.mu.Unlock()
}

// foreign notes that another process wrote the database: any pair may
// have games created up to a moment from now (a minute of clocks that
// differ between processes).
func (p *recentPairs) foreign() {
	p.mu.Lock()
	p.floor = max(p.floor, time.Now().Add(time.Minute).UnixMilli())
	p.checked = time.Now().UnixMilli()
	p.mu.Unlock()
}

// maxRecentScan bounds the games loadRecentPairs reads as the store opens.
const maxRecentScan = 1 << 18

// loadRecentPairs notes the pairs of the rated games created in the last
// day and a bit, newest first; if there are more than it reads, those
// older are unknown (floor).
func (s *Store) loadRecentPairs(ctx context.Context) error {
	cutoff := time.Now().Add(-25 * time.Hour).UnixMilli()
	rows, err := s.db.QueryContext(ctx, `SELECT south_id, north_id, created, coalesce(`+ratedSQL+` = 'yes', 0) FROM games ORDER BY id DESC`)
	if err != nil {
		return err
	}
	defer rows.Close()
	type found struct {
		a, b string
		at   int64
	}
	var notes []found
	n, floor := 0, int64(0)
	for rows.Next() {
		var f found
		var rated bool
		if err := rows.Scan(&f.a, &f.b, &f.at, &rated); err != nil {
			return err
		}
		if f.at < cutoff {
			break
		}
		if n++; n > maxRecentScan {
			floor = time.Now().UnixMilli()
			break
		}
		if rated {
			notes = append(notes, f)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// Oldest first, as they were created.
	for i := len(notes) - 1; i >= 0; i-- {
		s.pairs.note(notes[i].a, notes[i].b, notes[i].at)
	}
	s.pairs.mu.Lock()
	s.pairs.floor = max(s.pairs.floor, floor)
	s.pairs.mu.Unlock()
	return nil
}

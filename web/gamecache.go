package web

import (
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"kalah"
)

// gameCacheSize bounds the game analyses kept (each a few kilobytes).
const gameCacheSize = 128

// gameCache keeps the last game analyses answered, so that two views of one
// game (a reload, a second person opening the same finished game) show the
// same values and marks, not the outcome of two races against the clock. An
// analysis is answered again while the analyzer's generation (the endgame
// database it probes) is the same and the request gives it no more time
// than the first had, unless that one was proven throughout.
type gameCache struct {
	mu    sync.Mutex
	byKey map[[32]byte]gameEntry
	order [][32]byte // oldest first
}

type gameEntry struct {
	plies  []Ply
	budget time.Duration
	exact  bool // every value proven: no budget gives more
}

// Generationer is an Analyzer whose answers depend on more than the
// position and the time (Engine: the endgame database its engines probe):
// Generation names that state for rules r, and changes when it does.
type Generationer interface {
	Generation(r kalah.Rules) string
}

// gameKey identifies the analysis of a game: its rules, start and moves,
// and the analyzer's generation.
func gameKey(a Analyzer, g *kalah.Game) [32]byte {
	r := g.Rules()
	r.Name = ""
	h := sha256.New()
	b, _ := json.Marshal(r)
	h.Write(b)
	h.Write([]byte{0})
	start := g.PositionAt(0)
	h.Write([]byte(start.String()))
	for _, m := range g.Moves() {
		h.Write([]byte(" " + m.Move.String()))
	}
	if gen, ok := a.(Generationer); ok {
		h.Write([]byte("\x00" + gen.Generation(r)))
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// get returns the analysis kept under k, if one answers a request of
// budget.
func (c *gameCache) get(k [32]byte, budget time.Duration) ([]Ply, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok || !e.exact && budget > e.budget {
		return nil, false
	}
	return e.plies, true
}

// put keeps the analysis of k, answered with budget, forgetting the oldest
// beyond gameCacheSize.
func (c *gameCache) put(k [32]byte, budget time.Duration, plies []Ply) {
	exact := true
	for _, p := range plies {
		exact = exact && p.Exact && (p.Move == "" || p.LossExact || p.Class == "best")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[[32]byte]gameEntry{}
	}
	if _, ok := c.byKey[k]; !ok {
		c.order = append(c.order, k)
	}
	c.byKey[k] = gameEntry{plies: plies, budget: budget, exact: exact}
	for len(c.order) > gameCacheSize {
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
}

// Generation implements Generationer: the seeds of the endgame database
// r's engines probe, after looking for a larger one if it is time to.
func (a *Engine) Generation(r kalah.Rules) string {
	r.Name = ""
	a.recheck(r)
	a.mu.Lock()
	defer a.mu.Unlock()
	if p := a.pools[r]; p != nil {
		return strconv.Itoa(seedsOf(p.db))
	}
	return "none yet"
}

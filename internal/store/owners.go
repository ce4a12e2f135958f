package store

import "sync"

// ownerCache keeps BotOwner's answers: a game between two bots asks for
// both owners as it starts (a person may not rate their own bots against
// each other), hundreds of times a second under load, and a bot's owner
// changes only when a row of the bots table is changed or deleted, which
// only the store does (DeleteUser; the renames of identity_migrate.go run
// as the store opens, before any answer is kept). Every such write forgets
// the whole cache once it has committed (forget); gen makes sure an answer
// read before that write is not kept after it. A new bot needs nothing
// forgotten: only rows found are kept.
type ownerCache struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]string // by foldName(bot): its owner, "" for none
}

// maxOwners bounds the cache: past it, it starts again empty.
const maxOwners = 1 << 16

// foldName is a bot's name as the bots table's NOCASE collation compares
// it: ASCII letters folded, everything else as it is.
func foldName(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; 'A' <= c && c <= 'Z' {
			b := []byte(name)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return name
}

// get returns the cached owner of name, and the generation to hand to
// put with an answer read from the database.
func (c *ownerCache) get(name string) (owner string, ok bool, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	owner, ok = c.m[foldName(name)]
	return owner, ok, c.gen
}

// put keeps an answer read at generation gen, unless the bots table was
// written since.
func (c *ownerCache) put(name, owner string, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.m == nil || len(c.m) >= maxOwners {
		c.m = make(map[string]string)
	}
	c.m[foldName(name)] = owner
}

// forget drops every answer: the bots table was written.
func (c *ownerCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.m)
}

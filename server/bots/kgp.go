package bots

import (
	"fmt"
	"strings"
	"sync"

	"kalah/internal/identity"
	"kalah/protocol/kgp"
)

// TokenReplaced is what a connection of a bot whose token its owner
// replaced is told before it is closed.
const TokenReplaced = "the bot's token was replaced by its owner: log in with the new one"

// Label makes a name a client chose (only a label) safe to show and to
// send on, as one word: letters, digits, '-', '_' and '.', at most 24,
// its blanks turned to '-'.
func Label(name string) string {
	b := []byte(strings.Join(strings.Fields(identity.CleanText(name, 24)), "-"))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "anonymous"
	}
	return string(b)
}

// Labels hands out the names anonymous KGP clients are shown under,
// distinct among the clients connected at once. It is not a registry of
// names: a label is free again once its client has left. Its zero value
// is ready to use.
type Labels struct {
	mu   sync.Mutex
	used map[string]bool
}

// Take returns a label for a client that calls itself name: "kgp-NAME"
// with its blanks turned to '-' (a label is one word, as the line
// protocol's start message needs), or "kgp-NAME-2", "kgp-NAME-3", ... if
// another connected client has it.
func (a *Labels) Take(name string) string {
	base := strings.Join(strings.Fields(name), "-")
	if !strings.HasPrefix(base, "kgp-") {
		base = "kgp-" + base
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used == nil {
		a.used = map[string]bool{}
	}
	label := base
	for i := 2; a.used[label]; i++ {
		label = fmt.Sprintf("%s-%d", base, i)
	}
	a.used[label] = true
	return label
}

// Release frees label, whose client has left.
func (a *Labels) Release(label string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.used, label)
}

// KGPBots are the KGP connections of bots logged in by a token, by the
// bot's identity key, so a replaced token's connections can be closed.
// Its zero value is ready to use; its lock guards nothing else, and
// nothing is called while it is held.
type KGPBots struct {
	mu sync.Mutex
	by map[string]map[*kgp.Client]*KGPSeat
}

// KGPSeat says whether a KGP client has been seated in its game.
type KGPSeat struct {
	mu     sync.Mutex
	seated bool
}

// Seat notes that the client has been seated.
func (st *KGPSeat) Seat() {
	st.mu.Lock()
	st.seated = true
	st.mu.Unlock()
}

// Seated reports whether the client has been seated.
func (st *KGPSeat) Seated() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.seated
}

// Add notes client c of bot key; the function returned forgets it.
func (k *KGPBots) Add(key string, c *kgp.Client) (*KGPSeat, func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.by == nil {
		k.by = map[string]map[*kgp.Client]*KGPSeat{}
	}
	if k.by[key] == nil {
		k.by[key] = map[*kgp.Client]*KGPSeat{}
	}
	st := &KGPSeat{}
	k.by[key][c] = st
	return st, func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		delete(k.by[key], c)
		if len(k.by[key]) == 0 {
			delete(k.by, key)
		}
	}
}

// Idle returns the clients of bot key not yet seated in a game.
func (k *KGPBots) Idle(key string) []*kgp.Client {
	k.mu.Lock()
	defer k.mu.Unlock()
	var idle []*kgp.Client
	for kc, st := range k.by[key] {
		if !st.Seated() {
			idle = append(idle, kc)
		}
	}
	return idle
}

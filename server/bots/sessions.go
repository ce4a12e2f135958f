package bots

import "sync"

// Sessions are the connections of the bots logged in, by the bot's
// identity key: one a bot, the last to log in. Its zero value is ready to
// use. Its lock guards nothing else and nothing is called while it is
// held, so it may be used under any other lock (the server's).
type Sessions[C comparable] struct {
	mu sync.Mutex
	by map[string]C
}

// Get returns the connection of bot key, or the zero C.
func (r *Sessions[C]) Get(key string) C {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.by[key]
}

// Put makes c the connection of bot key and returns the one it replaces
// (the zero C if none).
func (r *Sessions[C]) Put(key string, c C) (old C) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.by == nil {
		r.by = map[string]C{}
	}
	old = r.by[key]
	r.by[key] = c
	return old
}

// Remove forgets bot key's connection if it is still c (a later login
// replaced it otherwise); it reports whether it did.
func (r *Sessions[C]) Remove(key string, c C) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.by[key]; !ok || cur != c {
		return false
	}
	delete(r.by, key)
	return true
}

// Take forgets bot key's connection and returns it (the zero C if none).
func (r *Sessions[C]) Take(key string) C {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.by[key]
	delete(r.by, key)
	return c
}

// All returns a copy of the connections, by key.
func (r *Sessions[C]) All() map[string]C {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := make(map[string]C, len(r.by))
	for k, c := range r.by {
		all[k] = c
	}
	return all
}

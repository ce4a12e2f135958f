package netx

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter is a token bucket (golang.org/x/time/rate) for each key: a client
// address, an account, a bot's name. A key whose bucket has been idle long
// enough to be full again is forgotten, so a stream of new addresses cannot
// grow it without bound: forgetting a full bucket loses nothing.
type Limiter struct {
	limit rate.Limit
	burst int
	// idle is how long a bucket takes to fill from empty: past it, an
	// untouched key is forgotten.
	idle time.Duration

	mu        sync.Mutex
	keys      map[string]*keyed
	lastSweep time.Time
}

type keyed struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewLimiter returns a Limiter allowing perSecond events a second for each
// key, in bursts of up to burst. A perSecond of zero or less means no limit.
func NewLimiter(perSecond float64, burst int) *Limiter {
	l := &Limiter{limit: rate.Limit(perSecond), burst: max(burst, 1), keys: map[string]*keyed{}}
	if perSecond <= 0 {
		l.limit = rate.Inf
		return l
	}
	l.idle = time.Duration(float64(l.burst) / perSecond * float64(time.Second))
	l.idle = max(l.idle, time.Second)
	return l
}

// Allow takes a token from key's bucket, reporting false if there is none.
func (l *Limiter) Allow(key string) bool { return l.AllowAt(key, time.Now()) }

// AllowAt is Allow at the time now (for tests with a clock of their own).
func (l *Limiter) AllowAt(key string, now time.Time) bool {
	if l == nil || l.limit == rate.Inf {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) >= l.idle {
		l.sweepLocked(now)
	}
	k := l.keys[key]
	if k == nil {
		k = &keyed{lim: rate.NewLimiter(l.limit, l.burst)}
		l.keys[key] = k
	}
	k.seen = now
	return k.lim.AllowN(now, 1)
}

// Len returns how many keys the limiter holds now.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}

// sweepLocked forgets the keys idle long enough for their buckets to be
// full again; sweeping at most once an idle period keeps the cost a request
// constant on average.
func (l *Limiter) sweepLocked(now time.Time) {
	for key, k := range l.keys {
		if now.Sub(k.seen) >= l.idle {
			delete(l.keys, key)
		}
	}
	l.lastSweep = now
}

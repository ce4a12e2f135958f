package player

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kalah"
)

// Spec is a parsed player spec: a registered name and its arguments, as in
// "pekar-tree:3" or "alphabeta:knowledge:time=2s". Arguments are separated by
// colons; "key=value" ones are parameters, the others positional. Players
// registered as Raw ("exec:python3 bot.py") take everything after the first
// colon as one argument.
type Spec struct {
	Name   string
	Args   []string
	Params map[string]string
	Raw    string // everything after "name:", unparsed
}

// String returns the spec in canonical form.
func (s Spec) String() string {
	if s.Raw != "" && len(s.Args) == 0 && len(s.Params) == 0 {
		return s.Name + ":" + s.Raw
	}
	parts := []string{s.Name}
	parts = append(parts, s.Args...)
	for _, k := range slices.Sorted(maps.Keys(s.Params)) {
		parts = append(parts, k+"="+s.Params[k])
	}
	return strings.Join(parts, ":")
}

// ParseSpec splits a spec into name, positional arguments and parameters.
func ParseSpec(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Spec{}, fmt.Errorf("%w: empty player spec", ErrUnknownPlayer)
	}
	name, rest, _ := strings.Cut(s, ":")
	sp := Spec{Name: strings.ToLower(name), Raw: rest}
	if rest == "" {
		return sp, nil
	}
	for _, a := range strings.Split(rest, ":") {
		if k, v, ok := strings.Cut(a, "="); ok {
			if sp.Params == nil {
				sp.Params = map[string]string{}
			}
			if _, dup := sp.Params[k]; dup {
				return Spec{}, fmt.Errorf("player %q: parameter %s given twice", s, k)
			}
			sp.Params[k] = v
		} else {
			sp.Args = append(sp.Args, a)
		}
	}
	return sp, nil
}

// Arg returns positional argument i, or def if there is none.
func (s Spec) Arg(i int, def string) string {
	if i < len(s.Args) {
		return s.Args[i]
	}
	return def
}

// Duration returns parameter key as a duration ("2s", "150ms"), or def.
func (s Spec) Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := s.Params[key]
	if !ok {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("player %s: %s=%q is not a duration like 2s or 150ms", s.Name, key, v)
	}
	return d, nil
}

// Int returns parameter key as an integer, or def.
func (s Spec) Int(key string, def int) (int, error) {
	v, ok := s.Params[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("player %s: %s=%q is not a whole number", s.Name, key, v)
	}
	return n, nil
}

// Check reports an error if the spec has positional arguments beyond
// maxArgs or parameters not in allowed.
func (s Spec) Check(maxArgs int, allowed ...string) error {
	if len(s.Args) > maxArgs {
		return fmt.Errorf("player %s: too many arguments in %q", s.Name, s.String())
	}
	for k := range s.Params {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("player %s: unknown parameter %q (known: %s)", s.Name, k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// Options are what every player is built with.
type Options struct {
	Rules kalah.Rules
	// Seed feeds players that draw at random; the same seed gives the same
	// games.
	Seed uint64
	// Stderr, if not nil, receives the standard error of players that are
	// programs (exec:, mk:), so it can be kept in a log.
	Stderr io.Writer
}

// Info describes a kind of player in the registry.
type Info struct {
	Name    string // the spec name, such as "pekar-tree"
	Usage   string // the spec with its arguments, such as "pekar-tree:D"
	Summary string // what it is, in one line
	Source  string // where it comes from
	Raw     bool   // takes everything after "name:" as one argument
	// Server marks players that play only in games a server arranges
	// (bot:NAME): a form offers them by name, not as a kind.
	Server bool
	New    func(s Spec, o Options) (Player, error)
	// Work, if set, estimates the most computer time a move of a spec
	// that gives neither time= nor a depth takes (see Work): a player
	// that answers at once says so; nil means the server's thinking limit.
	Work func(s Spec, r kalah.Rules) time.Duration
}

// Level is a friendly difficulty name for a player spec.
type Level struct {
	Rank        int    // order from easiest (lowest) to strongest
	Name        string // such as "easy"
	Spec        string // such as "pekar"
	Description string
}

// ErrUnknownPlayer is returned for a spec that names no registered player.
var ErrUnknownPlayer = errors.New("unknown player")

var (
	mu     sync.RWMutex
	kinds  = map[string]Info{}
	levels []Level
)

// Register adds a kind of player. It panics on a duplicate name, a
// programming error found at start-up.
func Register(info Info) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := kinds[info.Name]; dup {
		panic("player: duplicate registration of " + info.Name)
	}
	kinds[info.Name] = info
}

// RegisterLevel adds a difficulty level; levels are listed by Rank,
// easiest first.
func RegisterLevel(l Level) {
	mu.Lock()
	defer mu.Unlock()
	levels = append(levels, l)
}

// List returns every registered kind of player, by name.
func List() []Info {
	mu.RLock()
	defer mu.RUnlock()
	return slices.SortedFunc(maps.Values(kinds), func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
}

// Levels returns the difficulty levels, easiest first.
func Levels() []Level {
	mu.RLock()
	defer mu.RUnlock()
	return slices.SortedStableFunc(slices.Values(levels), func(a, b Level) int { return a.Rank - b.Rank })
}

// Lookup returns the registered kind of player a spec names; a level name
// resolves to its spec.
func Lookup(spec string) (Info, Spec, error) {
	mu.RLock()
	for _, l := range levels {
		if strings.EqualFold(spec, l.Name) {
			spec = l.Spec
			break
		}
	}
	mu.RUnlock()
	sp, err := ParseSpec(spec)
	if err != nil {
		return Info{}, Spec{}, err
	}
	mu.RLock()
	info, ok := kinds[sp.Name]
	mu.RUnlock()
	if !ok {
		names := make([]string, 0)
		for _, k := range List() {
			names = append(names, k.Name)
		}
		return Info{}, Spec{}, fmt.Errorf("%w %q (known: %s; see kalah players)", ErrUnknownPlayer, sp.Name, strings.Join(names, ", "))
	}
	if info.Raw {
		sp.Args, sp.Params = nil, nil
		if sp.Raw == "" {
			return Info{}, Spec{}, fmt.Errorf("player %s needs an argument: %s", info.Name, info.Usage)
		}
	}
	return info, sp, nil
}

// New builds a player from a spec or level name.
func New(spec string, o Options) (Player, error) {
	info, sp, err := Lookup(spec)
	if err != nil {
		return nil, err
	}
	if err := o.Rules.Validate(); err != nil {
		return nil, err
	}
	p, err := info.New(sp, o)
	if err != nil {
		return nil, fmt.Errorf("player %q: %w", spec, err)
	}
	return p, nil
}

// Instant is the Work of a player that answers at once (a rule of thumb,
// a lookup): a millisecond, whatever the spec.
func Instant(Spec, kalah.Rules) time.Duration { return time.Millisecond }

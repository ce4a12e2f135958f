package player

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"kalah"
)

// Limits bound what a player spec that comes over the network may ask of
// the machine: transposition table size, search threads, thinking time a
// move, and the depth of a search to a fixed depth. A zero field sets no
// limit.
//
// Depth matters where no clock does: "alphabeta:depth=60" in a game
// without a clock searched for minutes. Servers also hold every player
// they start to Time a move whatever its spec says (server.Config.Limits),
// which bounds the nodes any search can visit; Depth refuses up front what
// could not be honoured.
type Limits struct {
	TableMB int
	Threads int
	Time    time.Duration
	// Depth bounds a fixed search depth: depth=N of the searchers, the D
	// of pekar-tree:D.
	Depth int
}

// NetworkLimits are the defaults for specs from the network: a game
// started from a web page or the HTTP API cannot take the machine. Depth
// 20 is alpha-beta's reach in about ten seconds on Kalah(6,4) from the
// start (72 M nodes); minimax reaches 10 in that time, and the server's
// thinking limit stops it there.
var NetworkLimits = Limits{TableMB: 256, Threads: 2, Time: 30 * time.Second, Depth: 20}

// ErrOverLimit is returned by CheckLimits for a spec that asks too much.
var ErrOverLimit = errors.New("over this server's limits")

// limitedParams are the parameters of registered players that CheckLimits
// knows what to do with: those it bounds, and those that cost nothing
// (seed=; egdb=K opens a database the server already has, never builds
// one). A spec from the network with any other parameter is refused, so a
// new kind of player with a costly parameter cannot be started over the
// network until its cost has a limit here.
var limitedParams = []string{"tt", "threads", "time", "depth", "egdb", "seed"}

// CheckLimits refuses a spec that asks for more than l allows: tt=,
// threads=, time=, depth= (or pekar-tree's D) over their limits, or a
// parameter whose cost it does not know. Levels and specs without
// parameters pass; so do programs (exec:, mk:), whose arguments are the
// program's, refused or allowed as a whole by the server.
func CheckLimits(spec string, l Limits) error {
	info, s, err := Lookup(spec)
	if err != nil {
		return err
	}
	if info.Raw {
		return nil
	}
	for k := range s.Params {
		if !slices.Contains(limitedParams, k) {
			return fmt.Errorf("%w: player %s: parameter %s= cannot be set from the network", ErrOverLimit, s.Name, k)
		}
	}
	check := func(key string, max int, unit string) error {
		if _, ok := s.Params[key]; !ok || max <= 0 {
			return nil
		}
		v, err := s.Int(key, 0)
		if err != nil {
			return err
		}
		if v > max {
			return fmt.Errorf("%w: %s %s=%d: at most %d%s", ErrOverLimit, s.Name, key, v, max, unit)
		}
		return nil
	}
	if err := check("tt", l.TableMB, " MiB"); err != nil {
		return err
	}
	if err := check("threads", l.Threads, ""); err != nil {
		return err
	}
	if err := check("depth", l.Depth, " plies (or give time= instead)"); err != nil {
		return err
	}
	// A positional number is a depth (pekar-tree:D); words are options
	// (alphabeta:knowledge).
	for _, a := range s.Args {
		if d, err := strconv.Atoi(strings.TrimSpace(a)); err == nil && l.Depth > 0 && d > l.Depth {
			return fmt.Errorf("%w: %s depth %d: at most %d plies", ErrOverLimit, s.Name, d, l.Depth)
		}
	}
	if v, ok := s.Params["time"]; ok && l.Time > 0 {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("player %s: time=%s: %w", s.Name, v, err)
		}
		if d > l.Time {
			return fmt.Errorf("%w: %s time=%v: at most %v a move", ErrOverLimit, s.Name, d, l.Time)
		}
	}
	return nil
}

// nodesPerSecond is about how many positions a search of this project
// visits a second on one core (alpha-beta: 72 M in ten seconds), for
// Work's estimate of a search to a fixed depth.
const nodesPerSecond = 7_000_000

// Work estimates the most computer time one move of spec may take under
// rules, held to l: its time= where it gives one; for a search to a fixed
// depth, the positions of a full tree of that depth (houses^depth, an
// upper bound alpha-beta mostly beats) at nodesPerSecond; else its kind's
// own estimate (Info.Work), and l.Time for a kind that has none (a
// program, whose cost nobody knows). Threads multiply it. It is what the
// server charges a game or a tournament against the budgets of computer
// time (server/gate), so it errs high.
func Work(spec string, r kalah.Rules, l Limits) (time.Duration, error) {
	info, s, err := Lookup(spec)
	if err != nil {
		return 0, err
	}
	w := l.Time
	if w <= 0 {
		w = NetworkLimits.Time
	}
	depth := 0
	if v, ok := s.Params["depth"]; ok {
		depth, _ = strconv.Atoi(v)
	}
	for _, a := range s.Args {
		if d, err := strconv.Atoi(strings.TrimSpace(a)); err == nil {
			depth = d
		}
	}
	switch v, timed := s.Params["time"]; {
	case timed:
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("player %s: time=%s: %w", s.Name, v, err)
		}
		w = min(w, d)
	case depth > 0:
		secs := math.Pow(float64(max(r.Houses, 2)), float64(depth)) / nodesPerSecond
		if secs < w.Seconds() { // compared as seconds: a deep tree's overflow a Duration
			w = time.Duration(secs * float64(time.Second))
		}
	case info.Work != nil:
		w = min(w, info.Work(s, r))
	}
	if n, err := s.Int("threads", 1); err == nil && n > 1 {
		w *= time.Duration(n)
	}
	return w, nil
}

// GamePlies is a rough count of the plies of a game under r, for the
// estimate of a game's work: 4 a house a side for every 2 seeds a house
// beyond the first 2 or so (48 for Kalah(6,4), whose games run 40 to 60).
func GamePlies(r kalah.Rules) int {
	return 4 * max(r.Houses, 1) * int(math.Ceil(math.Sqrt(float64(max(r.Seeds, 1)))))
}

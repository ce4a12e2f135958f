package player

import (
	"errors"
	"fmt"
	"time"
)

// Limits bound what a player spec that comes over the network may ask of
// the machine: transposition table size, search threads, thinking time a
// move.
type Limits struct {
	TableMB int
	Threads int
	Time    time.Duration
}

// NetworkLimits are the defaults for specs from the network: a game
// started from a web page or the HTTP API cannot take the machine.
var NetworkLimits = Limits{TableMB: 256, Threads: 2, Time: 30 * time.Second}

// ErrOverLimit is returned by CheckLimits for a spec that asks too much.
var ErrOverLimit = errors.New("over this server's limits")

// CheckLimits refuses a spec whose tt=, threads= or time= options exceed
// l (a zero field: no limit). Levels and specs without those options pass.
func CheckLimits(spec string, l Limits) error {
	_, s, err := Lookup(spec)
	if err != nil {
		return err
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
			return fmt.Errorf("%w: %s=%d: at most %d%s", ErrOverLimit, key, v, max, unit)
		}
		return nil
	}
	if err := check("tt", l.TableMB, " MiB"); err != nil {
		return err
	}
	if err := check("threads", l.Threads, ""); err != nil {
		return err
	}
	if v, ok := s.Params["time"]; ok && l.Time > 0 {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("player %s: time=%s: %w", s.Name, v, err)
		}
		if d > l.Time {
			return fmt.Errorf("%w: time=%v: at most %v a move", ErrOverLimit, d, l.Time)
		}
	}
	return nil
}

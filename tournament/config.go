package tournament

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"kalah"
	"kalah/player"
)

// Format is the shape of a tournament: who meets whom.
type Format string

// The formats.
const (
	// RoundRobin pairs every entrant with every other, each pairing played
	// from both sides in every round.
	RoundRobin Format = "roundrobin"
	// Gauntlet pairs the first entrant with each of the others.
	Gauntlet Format = "gauntlet"
	// Swiss pairs entrants of equal points round by round, never twice the
	// same pair while another is possible.
	Swiss Format = "swiss"
	// SPRT plays two entrants against each other in rounds until the
	// sequential probability ratio test decides whether the first is
	// stronger (see SPRTConfig).
	SPRT Format = "sprt"
)

// ParseFormat reads a format name; "rr" and "round-robin" are accepted too.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "roundrobin", "round-robin", "rr", "":
		return RoundRobin, nil
	case "gauntlet":
		return Gauntlet, nil
	case "swiss":
		return Swiss, nil
	case "sprt":
		return SPRT, nil
	}
	return "", fmt.Errorf("%w: unknown format %q (want roundrobin, gauntlet, swiss or sprt)", ErrConfig, s)
}

// Openings says how games begin.
type Openings string

// The opening modes.
const (
	// NoOpenings starts every game from the initial position; each pairing
	// plays it twice, once from each side.
	NoOpenings Openings = "none"
	// Forced plays every legal first move in turn, each from both sides, as
	// the Kalaha thesis did: six houses give twelve games a pairing and round.
	Forced Openings = "forced"
	// Paired draws a random opening of OpeningPlies moves (from the seed)
	// for each pairing and round and plays it twice, the players swapping
	// sides.
	Paired Openings = "paired"
)

// ParseOpenings reads an opening mode.
func ParseOpenings(s string) (Openings, error) {
	switch o := Openings(strings.ToLower(strings.TrimSpace(s))); o {
	case NoOpenings, Forced, Paired:
		return o, nil
	case "":
		return NoOpenings, nil
	}
	return "", fmt.Errorf("%w: unknown openings %q (want none, forced or paired)", ErrConfig, s)
}

// Clock is the time control every game is played under (see referee.Referee).
type Clock struct {
	PerMove   time.Duration `json:"per_move,omitempty"`
	Budget    time.Duration `json:"budget,omitempty"`
	Increment time.Duration `json:"increment,omitempty"`
	Grace     time.Duration `json:"grace,omitempty"`
	// Delay pauses before each move, uncharged; it only slows games down
	// (for watching them, and for tests that need games in flight).
	Delay time.Duration `json:"delay,omitempty"`
}

// SPRTConfig sets the hypotheses and error rates of an SPRT run: H0 says the
// first entrant is Elo0 stronger than the second, H1 that it is Elo1 stronger.
type SPRTConfig struct {
	Elo0  float64 `json:"elo0"`
	Elo1  float64 `json:"elo1"`
	Alpha float64 `json:"alpha"` // chance of accepting H1 when H0 holds
	Beta  float64 `json:"beta"`  // chance of accepting H0 when H1 holds
	// Batch is the number of game pairs a round; MaxGames stops an
	// undecided test (zero: 10000).
	Batch    int `json:"batch"`
	MaxGames int `json:"max_games"`
}

// Config describes a tournament. Create stores it; every later run reads it
// back, so a resumed tournament plays by the same settings.
type Config struct {
	Name    string   `json:"name,omitempty"`
	Format  Format   `json:"format"`
	Players []string `json:"players"` // player specs, as for player.New
	// Names, if given, label the entrants in tables (one a player, "" for
	// the spec itself): "alice" rather than "exec:python3 alice.py".
	Names  []string    `json:"names,omitempty"`
	Rounds int         `json:"rounds"` // rounds (Swiss: rounds to pair)
	Rules  kalah.Rules `json:"rules"`
	Clock  Clock       `json:"clock"`
	// Openings and, for Paired, the length of each drawn opening.
	Openings     Openings `json:"openings"`
	OpeningPlies int      `json:"opening_plies,omitempty"`
	// Seed fixes the openings and every player's randomness.
	Seed uint64     `json:"seed"`
	SPRT SPRTConfig `json:"sprt,omitzero"`
	// Logs, if set, is a directory for the standard error of players that
	// are programs (exec:, mk:), a file a game and side.
	Logs string `json:"logs,omitempty"`
	// Organizer names who runs the tournament when it is not the command
	// line: "server" for the tournaments a match server runs itself (its
	// page, POST /api/tournaments), which it resumes after a restart.
	Organizer string `json:"organizer,omitempty"`
}

// ErrConfig is returned for a tournament that cannot be played as described.
var ErrConfig = errors.New("invalid tournament")

// Normalize fills in defaults and checks the configuration, including that
// every player spec names a registered player.
func (c *Config) Normalize() error {
	if c.Format == "" {
		c.Format = RoundRobin
	}
	if _, err := ParseFormat(string(c.Format)); err != nil {
		return err
	}
	if c.Openings == "" {
		c.Openings = NoOpenings
	}
	if _, err := ParseOpenings(string(c.Openings)); err != nil {
		return err
	}
	if c.Format == SPRT && c.Openings == NoOpenings {
		// Deterministic players would repeat one game; vary the openings.
		c.Openings = Paired
	}
	if c.Openings == Paired && c.OpeningPlies <= 0 {
		c.OpeningPlies = 2
	}
	if c.Openings != Paired {
		c.OpeningPlies = 0
	}
	if c.Rounds <= 0 {
		c.Rounds = 1
	}
	if c.Rules.Houses == 0 {
		c.Rules = kalah.Standard()
	}
	if err := c.Rules.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	c.Rules = c.Rules.Canonical()
	if len(c.Players) < 2 {
		return fmt.Errorf("%w: need at least two players, have %d", ErrConfig, len(c.Players))
	}
	if c.Format == SPRT && len(c.Players) != 2 {
		return fmt.Errorf("%w: an SPRT run needs exactly two players, have %d", ErrConfig, len(c.Players))
	}
	if len(c.Names) > 0 && len(c.Names) != len(c.Players) {
		return fmt.Errorf("%w: %d names for %d players", ErrConfig, len(c.Names), len(c.Players))
	}
	for i, p := range c.Players {
		c.Players[i] = strings.TrimSpace(p)
		if _, _, err := player.Lookup(c.Players[i]); err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	if c.Format == SPRT {
		s := &c.SPRT
		if s.Alpha == 0 {
			s.Alpha = 0.05
		}
		if s.Beta == 0 {
			s.Beta = 0.05
		}
		if s.Elo0 == 0 && s.Elo1 == 0 {
			s.Elo1 = 20
		}
		if s.Batch <= 0 {
			s.Batch = 8
		}
		if s.MaxGames <= 0 {
			s.MaxGames = 10000
		}
		if !(s.Alpha > 0 && s.Alpha < 0.5 && s.Beta > 0 && s.Beta < 0.5) {
			return fmt.Errorf("%w: SPRT alpha and beta must be between 0 and 0.5", ErrConfig)
		}
		if s.Elo1 <= s.Elo0 {
			return fmt.Errorf("%w: SPRT needs elo1 > elo0, have %g and %g", ErrConfig, s.Elo1, s.Elo0)
		}
	} else {
		c.SPRT = SPRTConfig{}
	}
	return nil
}

// ClockPreset is a named time control with the source it comes from.
type ClockPreset struct {
	Name   string
	Clock  Clock
	Source string
}

// ClockPresets are the time controls of the sources; "none" plays without
// a clock.
var ClockPresets = []ClockPreset{
	{"none", Clock{}, "no time limit"},
	{"thesis", Clock{PerMove: 30 * time.Second}, "the Kalaha search-algorithms thesis: 30 s a move"},
	{"manchester", Clock{Budget: time.Hour}, "the Manchester COMP34120 engine: one hour a bot and game, cumulative"},
}

// PresetClock returns the named time control. "rules" picks the clock of
// the rules preset r came from (the thesis's or Manchester's), or none.
func PresetClock(name string, r kalah.Rules) (Clock, error) {
	if strings.EqualFold(name, "rules") {
		name = r.Name
		if name != "thesis" && name != "manchester" {
			name = "none"
		}
	}
	for _, p := range ClockPresets {
		if strings.EqualFold(p.Name, name) {
			return p.Clock, nil
		}
	}
	names := []string{"rules"}
	for _, p := range ClockPresets {
		names = append(names, p.Name)
	}
	return Clock{}, fmt.Errorf("%w: unknown clock %q (known: %s)", ErrConfig, name, strings.Join(names, ", "))
}

// Label returns the name entrant i is shown under: its name if it has one,
// else its spec.
func (c Config) Label(i int) string {
	if i < len(c.Names) && strings.TrimSpace(c.Names[i]) != "" {
		return strings.TrimSpace(c.Names[i])
	}
	if i < len(c.Players) {
		return c.Players[i]
	}
	return fmt.Sprint("entrant ", i)
}

// Labels returns every entrant's label.
func (c Config) Labels() []string {
	out := make([]string, len(c.Players))
	for i := range out {
		out[i] = c.Label(i)
	}
	return out
}

// SplitLabel splits "name=spec" into its parts; a spec without a name
// (nothing before its first colon contains "=") comes back whole.
func SplitLabel(s string) (name, spec string) {
	head, _, _ := strings.Cut(s, ":")
	if n, _, ok := strings.Cut(head, "="); ok && n != "" {
		return strings.TrimSpace(n), strings.TrimSpace(s[len(n)+1:])
	}
	return "", strings.TrimSpace(s)
}

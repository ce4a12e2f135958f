package player_test

import (
	"errors"
	"strings"
	"testing"

	_ "kalah/engine"
	_ "kalah/heuristic"
	"kalah/player"
	_ "kalah/protocol/mkp"
	_ "kalah/remote"
	_ "kalah/search"
)

func TestCheckLimitsRefusesDeepSearches(t *testing.T) {
	l := player.NetworkLimits
	for spec, over := range map[string]bool{
		"alphabeta:depth=60":           true,
		"minimax:depth=40":             true,
		"kbab:simple:depth=21":         true,
		"alphabeta:depth=20":           false,
		"alphabeta:knowledge:time=1s":  false,
		"alphabeta:time=31s":           true,
		"engine:tt=257":                true,
		"engine:tt=256:threads=2":      false,
		"perfect:threads=3":            true,
		"engine:egdb=20":               false, // opens a database the server has; never builds one
		"random:seed=99":               false,
		"pekar-tree:8":                 false,
		"hard":                         false, // a level
		"expert":                       false,
		"greedy":                       false,
		"exec:python3 bot.py depth=99": false, // a program: allowed or refused as a whole by the server
	} {
		err := player.CheckLimits(spec, l)
		if over != errors.Is(err, player.ErrOverLimit) {
			t.Errorf("CheckLimits(%q) = %v; want over the limits: %v", spec, err, over)
		}
		if over && err != nil && !strings.Contains(err.Error(), "at most") {
			t.Errorf("CheckLimits(%q) = %v: does not say what the limit is", spec, err)
		}
	}
	if err := player.CheckLimits("pekar-tree:6", player.Limits{Depth: 5}); !errors.Is(err, player.ErrOverLimit) {
		t.Errorf("pekar-tree:6 under a depth limit of 5: %v", err)
	}
}

// Every parameter of every registered kind of player is either bounded by
// CheckLimits or known to cost nothing: a new costly parameter cannot slip
// past the limits of the network.
func TestEveryPlayerParameterHasALimit(t *testing.T) {
	tight := player.Limits{TableMB: 1, Threads: 1, Time: 1, Depth: 1}
	huge := map[string]string{"tt": "100000", "threads": "64", "time": "1h", "depth": "100"}
	free := map[string]string{"egdb": "0", "seed": "7"}
	kinds := 0
	for _, info := range player.List() {
		if info.Raw || strings.HasPrefix(info.Name, "bot") {
			continue // programs and connected bots: no parameters of ours
		}
		kinds++
		for _, part := range strings.Split(info.Usage, ":") {
			key, _, ok := strings.Cut(strings.Trim(part, "[]"), "=")
			if !ok {
				continue
			}
			if v, ok := huge[key]; ok {
				spec := info.Name + ":" + key + "=" + v
				if err := player.CheckLimits(spec, tight); !errors.Is(err, player.ErrOverLimit) {
					t.Errorf("%s: CheckLimits(%q) = %v: the parameter is not bounded", info.Name, spec, err)
				}
				continue
			}
			v, ok := free[key]
			if !ok {
				t.Errorf("%s: parameter %s= (usage %s) has no limit and is not known to be free", info.Name, key, info.Usage)
				continue
			}
			if err := player.CheckLimits(info.Name+":"+key+"="+v, tight); err != nil {
				t.Errorf("%s: %s=%s refused: %v", info.Name, key, v, err)
			}
		}
	}
	if kinds < 8 {
		t.Fatalf("only %d kinds of player registered: the test sees too few", kinds)
	}
	if err := player.CheckLimits("alphabeta:nodes=5", player.NetworkLimits); err == nil {
		t.Error("a parameter CheckLimits does not know passed")
	}
}

package gate

import (
	"time"

	"kalah"
	"kalah/player"
)

// Work estimates the computer time a game under r between specs ("" for
// a seat that is no program of the server's) may cost under limits: each
// program's most time a move (player.Work), over its half of a game's
// plies.
func Work(r kalah.Rules, limits player.Limits, specs ...string) time.Duration {
	var per time.Duration
	for _, sp := range specs {
		if sp == "" {
			continue
		}
		w, err := player.Work(sp, r, limits)
		if err != nil {
			w = limits.Time
		}
		per += w
	}
	return per * time.Duration(player.GamePlies(r)) / 2
}

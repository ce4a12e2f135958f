//go:build race

package server

// raceEnabled: the race detector is on; memory and speed figures mean
// nothing then.
const raceEnabled = true

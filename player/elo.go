package player

// levelElo is each difficulty level's strength in Elo, beginner (random)
// being 0: each level was measured against the level below it and the
// differences added up. The gauntlet, its command, the machine and every
// score are in docs/EXPERIMENTS.md ("The levels' strength"); run it again
// and update both together.
var levelElo = map[string]int{}

// LevelElo returns a level's measured strength in Elo (beginner = 0).
func LevelElo(name string) (int, bool) {
	v, ok := levelElo[name]
	return v, ok
}

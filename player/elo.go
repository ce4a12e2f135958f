package player

// levelElo is each difficulty level's strength in Elo, beginner (random)
// being 0: each level was measured against the level below it and the
// differences added up. The gauntlet, its command, the machine and every
// score are in docs/EXPERIMENTS.md ("The levels' strength"); run it again
// and update both together.
var levelElo = map[string]int{
	"beginner": 0,
	"easy":     655,  // 391 of 400 points against beginner
	"medium":   846,  // +191: 18 of 24 against easy
	"hard":     1263, // +417: 22 of 24 against medium
	"expert":   1321, // +58: 14 of 24 against hard
	"perfect":  1321, // +0: 12 of 24 against expert (2 s a move); with the strategy books 72 of 144 in 72 games, +0 ± 79 (expert gave away 12 seeds)
}

// LevelElo returns a level's measured strength in Elo (beginner = 0).
func LevelElo(name string) (int, bool) {
	v, ok := levelElo[name]
	return v, ok
}

package match

import (
	"strings"
	"time"
)

// PekarPaperGame is one game of the Pekař paper's Table 1: the computer's
// and the person's final seeds.
type PekarPaperGame struct{ Computer, Person int }

// PekarPaper is the paper's Table 1 as numbers, by strategy: the games the
// computer (the paper's Player 2) started, then those the person started.
// The tree search to depth 4 played five of each.
var PekarPaper = map[string][2][]PekarPaperGame{
	"pekar": {
		{{29, 19}, {35, 13}, {29, 19}, {29, 19}, {29, 19}, {33, 15}, {28, 20}, {32, 16}, {25, 23}, {32, 16}},
		{{7, 41}, {21, 27}, {9, 39}, {7, 41}, {12, 36}, {8, 40}, {22, 26}, {8, 40}, {17, 31}, {12, 35}},
	},
	"pekar-tree:1": {
		{{30, 18}, {32, 16}, {41, 7}, {32, 16}, {36, 12}, {33, 15}, {38, 10}, {23, 25}, {26, 22}, {22, 26}},
		{{13, 35}, {14, 34}, {26, 22}, {16, 32}, {28, 20}, {19, 29}, {13, 35}, {26, 22}, {32, 16}, {13, 35}},
	},
	"pekar-tree:2": {
		{{31, 17}, {30, 18}, {36, 12}, {35, 13}, {25, 23}, {29, 19}, {35, 13}, {33, 15}, {41, 7}, {34, 13}},
		{{25, 23}, {25, 23}, {20, 28}, {23, 25}, {23, 25}, {23, 25}, {38, 10}, {19, 29}, {24, 24}, {16, 32}},
	},
	"pekar-tree:3": {
		{{35, 13}, {35, 13}, {30, 18}, {25, 23}, {25, 23}, {30, 18}, {33, 15}, {26, 12}, {30, 18}, {32, 16}},
		{{12, 35}, {22, 26}, {21, 27}, {20, 28}, {27, 21}, {28, 20}, {21, 27}, {22, 26}, {27, 21}, {22, 26}},
	},
	"pekar-tree:4": {
		{{40, 5}, {39, 9}, {41, 6}, {35, 5}, {33, 5}},
		{{26, 22}, {32, 16}, {17, 31}, {29, 19}, {28, 20}},
	},
}

// PekarFigure is one strategy's games against the opponent in a Pekař
// experiment, from the strategy's view: what its figures draw.
type PekarFigure struct {
	Strategy string
	// Margins are the strategy's seeds less the opponent's, a game each,
	// in the games it moved first and in those it moved second.
	FirstMargins, SecondMargins []int
	MeanTime                    time.Duration // thinking time a move
	MeanNodes                   float64
}

// Won counts the positive margins.
func Won(margins []int) int {
	n := 0
	for _, m := range margins {
		if m > 0 {
			n++
		}
	}
	return n
}

// PekarFigures returns each strategy's games against the opponent, in the
// order played.
func (x *Experiment) PekarFigures(opponent string) []PekarFigure {
	var out []PekarFigure
	for _, p := range x.Pairings {
		if p.A != opponent {
			continue
		}
		f := PekarFigure{Strategy: p.B, MeanTime: p.Summary.B.MeanTime(), MeanNodes: p.Summary.B.MeanNodes()}
		for _, g := range p.Games {
			a, b := g.AScore()
			if g.AFirst() {
				f.SecondMargins = append(f.SecondMargins, b-a)
			} else {
				f.FirstMargins = append(f.FirstMargins, b-a)
			}
		}
		out = append(out, f)
	}
	return out
}

// ThesisFigure is one AI's totals over a thesis experiment beside the
// thesis's Table 7: what its figures draw.
type ThesisFigure struct {
	Name                     string // as the thesis names it
	Wins, Draws, Losses      int
	ThesisWins, ThesisLosses int
	MeanDepth, MeanNodes     float64
	MeanMargin               float64
	Played                   bool // false: the AI played no game here
}

// ThesisFigures returns the six AIs' totals in the order of Table 7.
func (x *Experiment) ThesisFigures() []ThesisFigure {
	t := x.tallies()
	out := make([]ThesisFigure, len(ThesisAIs))
	for i, ai := range ThesisAIs {
		f := ThesisFigure{Name: ai.Name, ThesisWins: thesisTable7[i][0], ThesisLosses: thesisTable7[i][1]}
		for spec, tl := range t {
			if strings.HasPrefix(spec, ai.Spec+":") {
				f.Played = true
				f.Wins, f.Draws, f.Losses = tl.wins, tl.draws, tl.losses
				f.MeanDepth, f.MeanNodes = tl.stats.MeanDepth(), tl.stats.MeanNodes()
				f.MeanMargin = float64(tl.margin) / float64(max(tl.games, 1))
			}
		}
		out[i] = f
	}
	return out
}

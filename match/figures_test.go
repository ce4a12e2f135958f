package match

import (
	"fmt"
	"testing"
)

// TestPekarPaperAgreesWithTable1: the paper's scores, game by game, give
// the computer's wins that the summary of Table 1 states.
func TestPekarPaperAgreesWithTable1(t *testing.T) {
	for _, s := range PekarStrategies {
		games, ok := PekarPaper[s]
		if !ok {
			t.Errorf("%s: no games", s)
			continue
		}
		var got [2]string
		for k, gs := range games {
			won := 0
			for _, g := range gs {
				if g.Computer > g.Person {
					won++
				}
			}
			got[k] = fmt.Sprintf("%d of %d", won, len(gs))
		}
		if want := pekarTable1[s]; got != want {
			t.Errorf("%s: the scores give %q won first and second, Table 1 says %q", s, got, want)
		}
	}
	if len(PekarPaper) != len(PekarStrategies) {
		t.Errorf("%d strategies in PekarPaper, want %d", len(PekarPaper), len(PekarStrategies))
	}
}

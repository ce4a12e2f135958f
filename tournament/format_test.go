package tournament

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kalah"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixedReport is the report of the hand-computed tournament of
// TestStandingsByHand, with a fixed header.
func fixedReport() Report {
	players := []string{"A", "B", "C", "D"}
	games := []Played{
		game(0, 1, 30, 18),
		game(1, 2, 28, 20),
		game(2, 0, 25, 23),
		game(3, 0, 24, 24),
		game(3, 1, 20, 28),
		game(2, 3, 26, 22),
		game(3, 2, 30, 18),
	}
	cfg := Config{Name: "golden", Format: RoundRobin, Players: players, Rounds: 1, Rules: kalah.Standard(),
		Openings: NoOpenings, Clock: Clock{PerMove: time.Second}}
	return Report{
		Tournament: Info{ID: 7, Name: "golden", Config: cfg, Status: StatusFinished, Games: 7, Played: 7,
			Created: time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)},
		Standings: Compute(players, games, nil, 0),
		Cross:     Cross(len(players), games),
	}
}

func TestFormatsGolden(t *testing.T) {
	rep := fixedReport()
	for _, f := range Formats {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := rep.Write(&b, f); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "report."+f)
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(want, b.Bytes()) {
				t.Errorf("%s output differs from %s:\n%s\nwant:\n%s", f, path, b.Bytes(), want)
			}
		})
	}
	if err := rep.Write(&bytes.Buffer{}, "yaml"); err == nil {
		t.Error("unknown format accepted")
	}
}

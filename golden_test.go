package kalah

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenGames builds the recorded games the golden files hold.
func goldenGames(t *testing.T) map[string]*Game {
	t.Helper()
	games := map[string]*Game{}

	acts, err := ParseOpenSpielActions(openSpielActions)
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReplayOpenSpiel(Standard(), acts)
	if err != nil {
		t.Fatal(err)
	}
	g.Players = [2]string{"openspiel-0", "openspiel-1"}
	g.Tags = map[string]string{"Event": "OpenSpiel mancala playthrough"}
	games["openspiel"] = g

	// A Manchester game with a swap, played at random from a fixed seed.
	g = randomGame(t, mustPreset(t, "manchester"), 7, func(g *Game, rng *rand.Rand) Move {
		if g.IsLegal(Swap) {
			return Swap
		}
		l := g.Legal()
		return l[rng.IntN(len(l))]
	})
	g.Players = [2]string{"alice", "bob"}
	games["manchester-swap"] = g

	// A GameLink game lost on time part way, with an extra turn pending.
	g, err = NewGame(mustPreset(t, "gamelink"))
	if err != nil {
		t.Fatal(err)
	}
	g.Players = [2]string{"TeamA", "TeamB"}
	if err := g.PlayMoveText("1. 4+1 2 2. 5 3 3. 3+"); err != nil {
		t.Fatal(err)
	}
	if err := g.Forfeit(South, Timeout); err != nil {
		t.Fatal(err)
	}
	g.Tags = map[string]string{"Round": "3", "Date": "2026-11-22"}
	games["gamelink-timeout"] = g

	// The 1961 rules from a set-up position, adjudicated.
	r := mustPreset(t, "dec1961")
	r.First = North
	g, err = NewGameFrom(r, mustPos(t, "0,2,1,0,3,1/2,0,0,4,1,0 14-9 N"))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.PlayMoveText("4 3"); err != nil {
		t.Fatal(err)
	}
	if err := g.Adjudicate(SouthWins); err != nil {
		t.Fatal(err)
	}
	games["dec1961-setup"] = g

	// Custom rules, unfinished, with a chain still open.
	g = randomGame(t, Rules{Houses: 4, Seeds: 5, EmptyCapture: true, End: MoverStuck, EarlyEnd: true}, 3, nil)
	games["custom"] = g
	return games
}

// randomGame plays from a seed; pick chooses a move (nil: uniformly).
func randomGame(t *testing.T, r Rules, seed uint64, pick func(*Game, *rand.Rand) Move) *Game {
	t.Helper()
	g, err := NewGame(r)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	for !g.Over() {
		var m Move
		if pick != nil {
			m = pick(g, rng)
		} else {
			l := g.Legal()
			m = l[rng.IntN(len(l))]
		}
		if _, err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// TestGolden compares the text and JSON forms of recorded games with the
// files in testdata/golden byte for byte (go test -run TestGolden -update
// rewrites them), and reads every file back to the same game.
func TestGolden(t *testing.T) {
	for name, g := range goldenGames(t) {
		js, err := json.MarshalIndent(g, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			ext  string
			data []byte
		}{{".txt", []byte(g.String())}, {".json", append(js, '\n')}} {
			path := filepath.Join("testdata", "golden", name+f.ext)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, f.data, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if !bytes.Equal(f.data, want) {
				t.Errorf("%s differs from the golden file:\n%s\n--- want\n%s", path, f.data, want)
			}
			var back *Game
			if f.ext == ".txt" {
				back, err = ParseGame(string(want))
			} else {
				back = new(Game)
				err = json.Unmarshal(want, back)
			}
			if err != nil {
				t.Errorf("%s does not read back: %v", path, err)
				continue
			}
			if back.String() != g.String() {
				t.Errorf("%s reads back as a different game:\n%s", path, back)
			}
		}
	}
}

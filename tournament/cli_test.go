package tournament

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"kalah"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// kalahBinary builds the real kalah command once for the tests that run it
// as a separate process.
func kalahBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the kalah binary")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kalah-tournament-test")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "kalah")
		out, err := exec.Command("go", "build", "-o", binPath, "kalah/cmd/kalah").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// countResults returns the games with a result in tournament 1 of the
// database at path, or -1 if it cannot be read yet.
func countResults(path string) int {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(2000)")
	if err != nil {
		return -1
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM tournament_results`).Scan(&n); err != nil {
		return -1
	}
	return n
}

// waitFor polls cond every 10 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestKillAndResume runs a round robin of four players in the real binary,
// kills it with SIGKILL midway, resumes it, and checks that every pairing
// was played exactly as scheduled and that the printed standings equal
// standings recomputed here from the stored games.
func TestKillAndResume(t *testing.T) {
	for _, mode := range []string{"nats", "local"} {
		t.Run(mode, func(t *testing.T) { testKillAndResume(t, mode) })
	}
}

func testKillAndResume(t *testing.T, mode string) {
	bin := kalahBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	players := []string{"random", "first", "greedy", "pekar"}
	const total = 6 * 12 // six pairings, six forced openings from both sides
	args := []string{"tournament", "--db", db, "--players", "random,first,greedy,pekar", "--openings", "forced",
		"--jobs", "2", "--delay", "2ms", "--live", "0", "--format", "json"}
	if mode == "local" {
		args = append(args, "--no-nats")
	}
	resume := []string{"tournament", "--db", db, "--resume", "1", "--live", "0", "--format", "json"}
	if mode == "local" {
		resume = append(resume, "--no-nats")
	}
	// Kill it once, or (KALAH_LONG=1) three times, each time after a few
	// more games are stored.
	kills := 1
	if os.Getenv("KALAH_LONG") != "" {
		kills = 3
	}
	for k := range kills {
		cmdArgs := args
		if k > 0 {
			cmdArgs = resume
		}
		before := max(countResults(db), 0)
		cmd := exec.Command(bin, cmdArgs...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "some results", func() bool { return countResults(db) >= before+5 })
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		done := countResults(db)
		if done >= total {
			t.Fatalf("the tournament finished (%d games) before it was killed; make its games slower", done)
		}
		t.Logf("killed after %d of %d games", done, total)
	}

	out, err := exec.Command(bin, resume...).Output()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	var rep Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("resume output: %v\n%s", err, out)
	}
	if rep.Tournament.Status != StatusFinished || rep.Tournament.Played != total {
		t.Errorf("after resume: %s, %d of %d games", rep.Tournament.Status, rep.Tournament.Played, total)
	}

	// Recompute everything from the stored rows, replaying every record.
	st, err := Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB().Query(`SELECT g.id, g.south, g.north, g.opening, r.south_seeds, r.north_seeds, r.record,
		(SELECT count(*) FROM tournament_moves m WHERE m.game_id = g.id)
		FROM tournament_games g LEFT JOIN tournament_results r ON r.game_id = g.id WHERE g.tournament_id = 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type tally struct{ points, seeds, wins, draws, losses, games int }
	got := make([]tally, len(players))
	perPair := map[[2]int]int{}
	perOpening := map[string]int{}
	n := 0
	for rows.Next() {
		var id int64
		var south, north, moves int
		var opening string
		var ss, ns sql.NullInt64
		var recJS sql.NullString
		if err := rows.Scan(&id, &south, &north, &opening, &ss, &ns, &recJS, &moves); err != nil {
			t.Fatal(err)
		}
		if !recJS.Valid {
			t.Errorf("game %d has no result after resume", id)
			continue
		}
		n++
		var rec kalah.Record
		if err := json.Unmarshal([]byte(recJS.String), &rec); err != nil {
			t.Fatal(err)
		}
		g, err := rec.Game()
		if err != nil {
			t.Errorf("game %d does not replay: %v", id, err)
			continue
		}
		if rec.Players.South != players[south] || rec.Players.North != players[north] {
			t.Errorf("game %d: record players %v, scheduled %s v %s", id, rec.Players, players[south], players[north])
		}
		if moves != len(rec.Moves) {
			t.Errorf("game %d: %d moves stored, %d in the record", id, moves, len(rec.Moves))
		}
		s, nn := g.Score()
		if g.Swapped() {
			s, nn = nn, s
		}
		if int64(s) != ss.Int64 || int64(nn) != ns.Int64 {
			t.Errorf("game %d: stored seeds %d-%d, replay %d-%d", id, ss.Int64, ns.Int64, s, nn)
		}
		perPair[[2]int{south, north}]++
		perOpening[fmt.Sprintf("%d-%d-%s", south, north, opening)]++
		for _, x := range []struct{ e, mine, theirs int }{{south, s, nn}, {north, nn, s}} {
			tl := &got[x.e]
			tl.games++
			tl.seeds += x.mine
			switch {
			case x.mine > x.theirs:
				tl.points += 2
				tl.wins++
			case x.mine == x.theirs:
				tl.points++
				tl.draws++
			default:
				tl.losses++
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != total {
		t.Errorf("%d games stored, want %d", n, total)
	}
	var results int
	st.DB().QueryRow(`SELECT count(*) FROM tournament_results`).Scan(&results)
	if results != total {
		t.Errorf("%d result rows, want %d", results, total)
	}
	for a := range players {
		for b := range players {
			if a == b {
				continue
			}
			if perPair[[2]int{a, b}] != 6 {
				t.Errorf("%s as South v %s: %d games, want 6", players[a], players[b], perPair[[2]int{a, b}])
			}
		}
	}
	for k, c := range perOpening {
		if c != 1 {
			t.Errorf("pairing and opening %s played %d times", k, c)
		}
	}
	if len(perOpening) != total {
		t.Errorf("%d distinct pairing-openings, want %d", len(perOpening), total)
	}
	for _, s := range rep.Standings {
		w := got[s.Entrant]
		if s.Points != w.points || s.Seeds != w.seeds || s.Wins != w.wins || s.Draws != w.draws || s.Losses != w.losses || s.Games != w.games {
			t.Errorf("%s: printed %d points %d seeds %d/%d/%d, recomputed %+v", s.Player, s.Points, s.Seeds, s.Wins, s.Draws, s.Losses, w)
		}
	}
	for i := 1; i < len(rep.Standings); i++ {
		p, s := rep.Standings[i-1], rep.Standings[i]
		if p.Points < s.Points || (p.Points == s.Points && p.Seeds < s.Seeds) {
			t.Errorf("standings out of order: %+v before %+v", p, s)
		}
	}
	// Standings from the library agree with the printed ones.
	lib, err := st.Standings(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range lib {
		if lib[i].Entrant != rep.Standings[i].Entrant || lib[i].Points != rep.Standings[i].Points {
			t.Errorf("library standings %+v differ from printed %+v", lib[i], rep.Standings[i])
		}
	}
}

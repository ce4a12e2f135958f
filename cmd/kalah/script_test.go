package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"kalah"
)

// TestMain lets the test binary act as the kalah command, so scripts run
// the real command line (flags, exit codes, files) without a build step.
// testEgdbDir holds the endgame databases the tests build (solve and analyze
// pick one by themselves): one directory under the system's temporary
// directory, shared by every test and script of this binary and kept as a
// cache between runs; never the user's own data directory.
var testEgdbDir = filepath.Join(os.TempDir(), "kalah-test-egdb")

func TestMain(m *testing.M) {
	if mode := os.Getenv("KALAH_TEST_MK_AGENT"); mode != "" {
		os.Exit(mkAgent(mode)) // the test binary as a Manchester agent
	}
	if d := os.Getenv("KALAH_EGDB_DIR"); d != "" {
		testEgdbDir = d
	}
	os.MkdirAll(testEgdbDir, 0o755)
	os.Setenv("KALAH_EGDB_DIR", testEgdbDir)
	// No perfect player of kalah play or serve (the hints' among them)
	// starts building the 24-seed database, 1.25 GB, in a test's
	// background: package engine tests those builds.
	os.Setenv("KALAH_BUILD_EGDB", "0")
	testscript.Main(m, map[string]func(){
		"kalah": func() {
			// As main: Ctrl-C (kill -INT) ends the command cleanly.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			stop()
			os.Exit(code)
		},
	})
}

// TestScripts runs every testdata/script/*.txtar: a script per command, in
// testscript's language (exec, stdout and stderr regexps, cmp, files).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Condition: func(cond string) (bool, error) {
			// port-free:N: nothing listens on port N here, so a script
			// may use a command's default port.
			if p, ok := strings.CutPrefix(cond, "port-free:"); ok {
				l, err := net.Listen("tcp", "127.0.0.1:"+p)
				if err != nil {
					return false, nil
				}
				l.Close()
				return true, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("KALAH_LOG", "warn")
			env.Setenv("KALAH_EGDB_DIR", testEgdbDir)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"lines":    cmdLines,
			"waitfile": cmdWaitFile,
			"cmpgames": cmdCmpGames,
			"pidalive": cmdPidAlive,
			"waitport": cmdWaitPort,
			"pidgone":  cmdPidGone,
		},
	})
}

// cmdWaitFile waits up to ten seconds for a file to exist: waitfile FILE.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: waitfile FILE")
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not appear within 10s", args[0])
		}
	}
}

// readPid reads the process id a program wrote to a file.
func readPid(ts *testscript.TestScript, file string) int {
	var pid int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s := ts.ReadFile(file)
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && strings.HasSuffix(s, "\n") {
			pid = n
			break
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s holds no pid: %q", file, s)
		}
	}
	return pid
}

// processAlive reports whether pid runs (a zombie has died).
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// cmdPidAlive checks that the process whose id a file holds runs: pidalive
// FILE.
func cmdPidAlive(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: pidalive FILE")
	}
	if pid := readPid(ts, args[0]); !processAlive(pid) {
		ts.Fatalf("process %d (%s) is not running", pid, args[0])
	}
}

// cmdPidGone waits up to five seconds for the process whose id a file
// holds to end, killing it and failing if it does not: pidgone FILE.
func cmdPidGone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: pidgone FILE")
	}
	pid := readPid(ts, args[0])
	for deadline := time.Now().Add(5 * time.Second); processAlive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			ts.Fatalf("process %d (%s) outlived the command that started it by 5s", pid, args[0])
		}
	}
}

// cmdWaitPort waits up to ten seconds for something to listen at a TCP
// address: waitport HOST:PORT.
func cmdWaitPort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: waitport HOST:PORT")
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", args[0]); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("nothing listens at %s after 10s", args[0])
		}
	}
}

// cmdLines checks a file's line count: lines FILE N.
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: lines FILE N")
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("lines: bad count %q", args[1])
	}
	got := strings.Count(ts.ReadFile(args[0]), "\n")
	if (got == want) == neg {
		ts.Fatalf("%s has %d lines, want %s%d", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// cmdCmpGames compares two JSON-lines record files game by game with the
// move times ("ms") left out: cmpgames FILE1 FILE2. The referee records how
// long each move took, which no seed fixes; everything else must be equal.
func cmdCmpGames(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpgames FILE1 FILE2")
	}
	a, b := ts.ReadFile(args[0]), ts.ReadFile(args[1])
	la, lb := strings.Split(strings.TrimSpace(a), "\n"), strings.Split(strings.TrimSpace(b), "\n")
	same := len(la) == len(lb)
	for i := 0; same && i < len(la); i++ {
		var x, y kalah.Record
		if err := json.Unmarshal([]byte(la[i]), &x); err != nil {
			ts.Fatalf("%s line %d: %v", args[0], i+1, err)
		}
		if err := json.Unmarshal([]byte(lb[i]), &y); err != nil {
			ts.Fatalf("%s line %d: %v", args[1], i+1, err)
		}
		for _, r := range []*kalah.Record{&x, &y} {
			for j := range r.Moves {
				r.Moves[j].Millis = 0
			}
		}
		jx, _ := json.Marshal(x)
		jy, _ := json.Marshal(y)
		same = string(jx) == string(jy)
		if !same && !neg {
			ts.Fatalf("game %d differs:\n%s\n%s", i+1, jx, jy)
		}
	}
	if same == neg {
		ts.Fatalf("%s and %s: same games %v", args[0], args[1], same)
	}
}

// TestExitStatus checks the exit codes the scripts cannot see: 2 for a bad
// command line (nonsense rules included), 0 for success.
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{}, 2},
		{[]string{"help"}, 0},
		{[]string{"analyze", "2,0,3,5,1,2/1,4,0,2,0,4 12-12 S"}, 2},
		{[]string{"match", "--a", "greedy", "foo", "--games", "4"}, 2},
		{[]string{"tournament", "--players", "greedy,pekar", "--rounds", "0"}, 2},
		{[]string{"rules"}, 0},
		{[]string{"rules", "--houses", "0"}, 2},
		{[]string{"rules", "--seeds", "0"}, 2},
		{[]string{"rules", "--rules", "nonsense"}, 2},
		{[]string{"rules", "--end", "never"}, 2},
		{[]string{"perft", "--depth", "2"}, 0},
		{[]string{"perft", "--depth", "2", "--rules", "nonsense"}, 2},
		{[]string{"perft", "--depth", "2", "--position", "1,2/3 0-0 S"}, 2},
		{[]string{"perft", "extra"}, 2},
		{[]string{"match", "--games", "1", "--houses", "0"}, 2},
	} {
		var out, errb strings.Builder
		if got := run(context.Background(), tc.args, strings.NewReader(""), &out, &errb); got != tc.want {
			t.Errorf("kalah %s: exit %d, want %d (stderr %q)", strings.Join(tc.args, " "), got, tc.want, errb.String())
		}
	}
}

package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the kalah command, so scripts run
// the real command line (flags, exit codes, files) without a build step.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kalah": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs every testdata/script/*.txtar: a script per command, in
// testscript's language (exec, stdout and stderr regexps, cmp, files).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("KALAH_LOG", "warn")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"lines": cmdLines,
		},
	})
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

// TestExitStatus checks the exit codes the scripts cannot see: 2 for a bad
// command line (nonsense rules included), 0 for success.
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
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

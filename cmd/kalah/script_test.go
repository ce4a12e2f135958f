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

package main

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

func init() {
	register(&command{name: "version", summary: "print the version of kalah: module version, commit and Go", run: runVersion})
}

func runVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "version", "", "Prints kalah's module version, the commit it was built from (with\n\"modified\" if the work tree had changes) and the Go version, from the build\ninformation. kalah --version does the same.")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	line := versionLine()
	fmt.Fprintln(e.stdout, line)
	if strings.Contains(line, "(commit unknown") {
		// go build stamps the commit from the git clone it builds in,
		// unless told not to: say why there is none and how to get it.
		e.note("this build carries no commit: go build stamps it in a git clone unless the build is told not to (-buildvcs=false; go env GOFLAGS shows whether the Go configuration says so) or the clone is a git worktree (go reads only a .git directory); go build -buildvcs=true ./cmd/kalah in a clone, or -ldflags \"-X main.commit=$(git rev-parse HEAD)\" anywhere, stamps it")
	}
	return nil
}

// commit names the build's commit where the build information has none
// (a build from a source archive): go build -ldflags "-X
// main.commit=$(git rev-parse HEAD)" ./cmd/kalah.
var commit string

// versionLine describes this build: "kalah v1.2.3 (commit abc123def456,
// 2026-11-24T10:00:00Z, modified) go1.26.8 linux/amd64".
func versionLine() string {
	version, commit, when, modified := "(devel)", cmp.Or(commit, "unknown"), "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
				if len(commit) > 12 {
					commit = commit[:12]
				}
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	build := "commit " + commit
	if when != "" {
		build += ", " + when
	}
	if modified {
		build += ", modified"
	}
	return fmt.Sprintf("kalah %s (%s) %s %s/%s", version, build, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

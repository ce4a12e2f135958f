package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
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
	fmt.Fprintln(e.stdout, versionLine())
	return nil
}

// versionLine describes this build: "kalah v1.2.3 (commit abc123def456,
// 2026-11-24T10:00:00Z, modified) go1.26.8 linux/amd64".
func versionLine() string {
	version, commit, when, modified := "(devel)", "unknown", "", false
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

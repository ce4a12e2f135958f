package main

import (
	"context"
	"strings"
	"testing"
)

// TestVersionSaysWhyNoCommit: kalah version without a commit in the build
// information (test binaries have none) says why and how to get one; with
// one, it says nothing more.
func TestVersionSaysWhyNoCommit(t *testing.T) {
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"version"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	unknown := strings.Contains(out.String(), "(commit unknown")
	if told := strings.Contains(errb.String(), "-buildvcs=true") && strings.Contains(errb.String(), "main.commit"); told != unknown {
		t.Errorf("commit unknown %v, told why %v:\n%s%s", unknown, told, out.String(), errb.String())
	}
}

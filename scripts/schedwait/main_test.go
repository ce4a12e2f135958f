package main

import (
	"strings"
	"testing"
)

// TestRunCountsWaitsAndStretches: a reader woken by the poller waits
// 3 ms for a processor held by the store's writer for 4 ms; the writer's
// stretch is named by the outermost function of the module on its own
// stack, not on the stack of the reader that wakes it afterwards.
func TestRunCountsWaitsAndStretches(t *testing.T) {
	trace := strings.Join([]string{
		`M=1 P=0 G=-1 StateTransition Time=0 GoID=7 Runnable->Running Reason=""`,
		`Stack=`,
		"\tmodernc.org/sqlite/lib._walWriteToLog @ 0x1",
		"\t\t/x.go:1",
		"\tkalah/internal/store.(*Store).commit @ 0x2",
		"\t\t/store.go:1",
		"\tkalah/internal/store.(*Store).writer @ 0x3",
		"\t\t/store.go:2",
		``,
		`M=1 P=0 G=7 StateTransition Time=1000000 GoID=9 Running->Waiting Reason="network"`,
		`M=1 P=0 G=-1 StateTransition Time=1000000 GoID=9 Waiting->Runnable Reason=""`,
		`M=1 P=0 G=7 StateTransition Time=4000000 GoID=7 Running->Waiting Reason="select"`,
		`M=1 P=0 G=-1 StateTransition Time=4000000 GoID=9 Runnable->Running Reason=""`,
		`M=1 P=0 G=9 StateTransition Time=5000000 GoID=7 Waiting->Runnable Reason=""`,
		`TransitionStack=`,
		"\tkalah/internal/store.(*Store).writer @ 0x3",
		"\t\t/store.go:2",
		``,
		`Stack=`,
		"\tkalah/server/bots.(*Bots).StartConn.func1 @ 0x4",
		"\t\t/conn.go:1",
		``,
	}, "\n")
	var out strings.Builder
	if err := run(strings.NewReader(trace), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"network, woken by the poller",
		"3ms",
		"kalah/internal/store.(*Store).writer",
		"4ms",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "StartConn") {
		t.Errorf("the writer's stretch is named after the goroutine that woke it:\n%s", got)
	}
}

package bots

import (
	"fmt"
	"testing"
)

// TestOutboxIsBounded: a connection's queue takes maxBacklog lines and no
// more (the client is then dropped as one that does not read), keeps them in
// order, and holds nothing once its writer has taken them.
func TestOutboxIsBounded(t *testing.T) {
	var o outbox
	for i := range maxBacklog {
		if !o.put(fmt.Sprint(i)) {
			t.Fatalf("line %d refused, want %d taken", i, maxBacklog)
		}
	}
	if o.put("one more") {
		t.Fatalf("line %d taken, want the client dropped", maxBacklog+1)
	}
	batch := o.take(nil)
	if len(batch) != maxBacklog || batch[0] != "0" || batch[maxBacklog-1] != fmt.Sprint(maxBacklog-1) {
		t.Fatalf("took %d lines (%q ... ), want %d in order", len(batch), batch[:1], maxBacklog)
	}
	if o.lines != nil {
		t.Errorf("a caught-up backlog keeps its array of %d", cap(o.lines))
	}
	if !o.put("again") {
		t.Fatal("a caught-up client's line refused")
	}
	if got := o.take(batch); len(got) != 1 || got[0] != "again" {
		t.Fatalf("took %q, want [again]", got)
	}
}

package bots

import "testing"

// TestKGPLabels: an anonymous client's label is one safe word with the
// kgp- prefix, distinct among the clients connected at once, and free
// again once its client has left.
func TestKGPLabels(t *testing.T) {
	if got := Label("my  bot\t1/2"); got != "my-bot-1_2" {
		t.Fatalf("Label = %q, want my-bot-1_2", got)
	}
	if got := Label("   "); got != "anonymous" {
		t.Fatalf("Label of blanks = %q, want anonymous", got)
	}
	var a Labels
	first, second := a.Take("x"), a.Take("x")
	if first != "kgp-x" || second != "kgp-x-2" {
		t.Fatalf("labels %q, %q; want kgp-x, kgp-x-2", first, second)
	}
	if got := a.Take("kgp-y"); got != "kgp-y" {
		t.Fatalf("label %q, want kgp-y (no second prefix)", got)
	}
	a.Release(first)
	if got := a.Take("x"); got != "kgp-x" {
		t.Fatalf("label after release %q, want kgp-x again", got)
	}
}

package main

import "testing"

// TestDBNotes: the notes of a database build keep the latest for the
// screen, a newer one replacing one not yet read, and the last of all.
func TestDBNotes(t *testing.T) {
	n := &dbNotes{C: make(chan string, 1)}
	for _, s := range []string{"10%", "20%", "30%"} {
		n.send(s) // nobody reads: never blocks
	}
	if got := <-n.C; got != "30%" {
		t.Errorf("the note waiting: %q, want the latest", got)
	}
	select {
	case s := <-n.C:
		t.Errorf("a second note waiting: %q", s)
	default:
	}
	n.send("built")
	if n.Last() != "built" {
		t.Errorf("Last: %q", n.Last())
	}
}

package bots

import "testing"

// TestSessions: the last login of a bot is its session; a connection that
// ends forgets only its own session, not one that replaced it.
func TestSessions(t *testing.T) {
	var r Sessions[*int]
	a, b := new(int), new(int)
	if old := r.Put("bot:x", a); old != nil {
		t.Fatalf("first Put replaced %v", old)
	}
	if old := r.Put("bot:x", b); old != a {
		t.Fatalf("second Put replaced %v, want the first connection", old)
	}
	if r.Remove("bot:x", a) {
		t.Fatal("the replaced connection removed its successor's session")
	}
	if got := r.Get("bot:x"); got != b {
		t.Fatalf("Get = %v, want the second connection", got)
	}
	if all := r.All(); len(all) != 1 || all["bot:x"] != b {
		t.Fatalf("All = %v", all)
	}
	if got := r.Take("bot:x"); got != b || r.Get("bot:x") != nil {
		t.Fatalf("Take = %v, and the session stayed", got)
	}
	if r.Remove("bot:x", b) {
		t.Fatal("Remove of a session taken reported true")
	}
}

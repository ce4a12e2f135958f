package web

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kalah"
)

func waitHub(t *testing.T, h *Hub, id string, cond func(State) bool) State {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := h.State(id)
		if err != nil {
			t.Fatal(err)
		}
		if cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("game %s: condition not met: %s", id, st.Position)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestHubSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	h := NewHub(Search{}, nil)
	if err := h.Persist(dir); err != nil {
		t.Fatal(err)
	}
	// One game left unfinished, one played to the end.
	live, err := h.Create(ctx, NewGame{Rules: kalah.Standard(), South: Human, North: "first", Casual: true, Names: [2]string{"Ann", ""}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Move(ctx, live.ID, live.Tokens[0], 1); err != nil {
		t.Fatal(err)
	}
	before := waitHub(t, h, live.ID, func(s State) bool { return s.ToMove == kalah.South && len(s.Moves) == 2 })
	done, err := h.Create(ctx, NewGame{Rules: kalah.Rules{Houses: 3, Seeds: 2}, South: "first", North: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	finished := waitHub(t, h, done.ID, func(s State) bool { return s.Over })
	h.Close()
	os.WriteFile(filepath.Join(dir, "junk.json"), []byte("{"), 0o644)

	h2 := NewHub(Search{}, nil)
	defer h2.Close()
	if err := h2.Persist(dir); err != nil {
		t.Fatal(err)
	}
	if len(h2.List()) != 2 {
		t.Fatalf("restored %d games", len(h2.List()))
	}
	st, err := h2.State(done.ID)
	if err != nil || !st.Over || st.MoveText != finished.MoveText || st.Score != finished.Score {
		t.Fatalf("finished game: %v %+v", err, st)
	}
	st = waitHub(t, h2, live.ID, func(s State) bool { return s.Live })
	if st.MoveText != before.MoveText || st.Seats[0].Name != "Ann" || !st.Casual {
		t.Fatalf("unfinished game: %+v", st)
	}
	// Ann moves on with her token, and the computer answers.
	if _, err := h2.Move(ctx, live.ID, live.Tokens[0], kalah.Move(mustMove(t, st.Legal[0]))); err != nil {
		t.Fatal(err)
	}
	waitHub(t, h2, live.ID, func(s State) bool { return len(s.Moves) >= 4 && s.ToMove == kalah.South || s.Over })
	if _, err := h2.Undo(live.ID, live.Tokens[0]); err != nil {
		t.Errorf("undo after restart: %v", err)
	}
}

func mustMove(t *testing.T, s string) kalah.Move {
	m, err := kalah.ParseMove(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

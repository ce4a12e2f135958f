package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"kalah"
	"kalah/internal/identity"
)

// TestPeopleTournamentTables: entrants join once (again after a
// withdrawal, keeping their place), up to the most a tournament takes; a
// Swiss round is stored whole or not at all; a pairing's end is recorded
// once; everything survives reopening the file.
func TestPeopleTournamentTables(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kalah.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	alice, bob, carol := identity.Of(identity.Person, "Alice"), identity.Of(identity.Person, "bob"), identity.Of(identity.Bot, "carol")
	starts := time.Now().Add(time.Minute).Truncate(time.Millisecond)
	id, err := s.CreatePeopleTournament(ctx, PeopleTournament{Name: "Swiss", Format: "swiss", Creator: alice, Rules: kalah.Standard(),
		ClockMS: 60000, IncrementMS: 1000, Rounds: 3, Rated: true, Starts: starts})
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []identity.ID{alice, bob, carol} {
		if already, err := s.JoinPeopleTournament(ctx, id, who, 3); err != nil || already {
			t.Fatalf("join %v: %v %v", who, already, err)
		}
	}
	if _, err := s.JoinPeopleTournament(ctx, id, identity.Of(identity.Person, "dave"), 3); !errors.Is(err, ErrFull) {
		t.Errorf("a fourth of three: %v", err)
	}
	if already, err := s.JoinPeopleTournament(ctx, id, identity.Of(identity.Person, "ALICE"), 3); err != nil || !already {
		t.Errorf("alice again, in capitals: %v %v", already, err)
	}
	if err := s.WithdrawFromPeopleTournament(ctx, id, bob); err != nil {
		t.Fatal(err)
	}
	if err := s.WithdrawFromPeopleTournament(ctx, id, identity.Of(identity.Person, "dave")); !errors.Is(err, ErrNotFound) {
		t.Errorf("withdrawing one who never joined: %v", err)
	}
	// A round that does not follow the last is refused whole.
	if err := s.AddPeopleRound(ctx, id, 2, [][2]identity.ID{{alice, carol}}, bob); !errors.Is(err, ErrNotFound) {
		t.Errorf("round 2 before round 1: %v", err)
	}
	if ps, _ := s.PeoplePairings(ctx, id); len(ps) != 0 {
		t.Errorf("a refused round left pairings: %+v", ps)
	}
	if err := s.AddPeopleRound(ctx, id, 1, [][2]identity.ID{{alice, carol}}, bob); err != nil {
		t.Fatal(err)
	}
	ps, err := s.PeoplePairings(ctx, id)
	if err != nil || len(ps) != 1 || ps[0].Round != 1 || ps[0].Result != "" || ps[0].South != alice || ps[0].North != carol {
		t.Fatalf("pairings %+v %v", ps, err)
	}
	if err := s.SetPeoplePairingGame(ctx, ps[0].ID, 42); err != nil {
		t.Fatal(err)
	}
	if done, err := s.EndPeoplePairing(ctx, ps[0].ID, PairNorth, true, "a note"); err != nil || !done {
		t.Fatalf("end: %v %v", done, err)
	}
	if done, err := s.EndPeoplePairing(ctx, ps[0].ID, PairSouth, true, ""); err != nil || done {
		t.Errorf("ended twice: %v %v", done, err)
	}
	if err := s.SetPeopleTournamentState(ctx, id, TourFinished, 1, "over"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, err := s.PeopleTournament(ctx, id)
	if err != nil || tr.Status != TourFinished || tr.Round != 1 || tr.Note != "over" || tr.Finished.IsZero() || !tr.Starts.Equal(starts) ||
		tr.Creator != alice || tr.Rules != kalah.Standard().Canonical() || !tr.Rated || tr.ClockMS != 60000 || tr.IncrementMS != 1000 {
		t.Errorf("tournament %+v %v", tr, err)
	}
	es, err := s.PeopleEntrants(ctx, id)
	if err != nil || len(es) != 3 || es[0].ID != alice || es[1].ID != bob || es[1].Active || es[2].ID != carol || !es[2].Active {
		t.Errorf("entrants %+v %v", es, err)
	}
	ps, err = s.PeoplePairings(ctx, id)
	if err != nil || len(ps) != 1 || ps[0].Game != 42 || ps[0].Result != PairNorth || !ps[0].Counted || ps[0].Note != "a note" || ps[0].Ended.IsZero() {
		t.Errorf("pairings %+v %v", ps, err)
	}
	byes, err := s.PeopleByes(ctx, id)
	if err != nil || len(byes) != 1 || byes[1] != bob {
		t.Errorf("byes %v %v", byes, err)
	}
	if open, err := s.PeopleTournaments(ctx, true, 0); err != nil || len(open) != 0 {
		t.Errorf("unfinished: %+v %v", open, err)
	}
	if all, err := s.PeopleTournaments(ctx, false, 0); err != nil || len(all) != 1 {
		t.Errorf("all: %+v %v", all, err)
	}
	if _, err := s.PeopleTournament(ctx, id+1); !errors.Is(err, ErrNotFound) {
		t.Errorf("no such tournament: %v", err)
	}
}

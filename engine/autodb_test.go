package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"kalah"
	"kalah/egdb"
	"kalah/internal/datadir"
	"kalah/player"
)

// TestBuildDBOnFirstUse: with builds on, the first perfect player of a
// variant whose data directory has no database of autoDBSeeds asked for a
// move (not one merely made) starts building it and plays meanwhile with
// one of 10 seeds built in memory; the
// build is reported from its start to its end and written to the
// directory; the player takes it at its next move, a player made later has
// it at once and starts no build. The engine player builds nothing, nor
// does any player with builds off or of a variant no strategy book is for; a directory that cannot be written to
// is reported, and the database built serves the process all the same;
// StartDBBuild (an analysis asked) starts one before any player, and
// WaitDBBuilds waits for it (or for its context); the build's checkpoints
// are gone once the database is written.
func TestBuildDBOnFirstUse(t *testing.T) {
	defer func(k int) { autoDBSeeds = k }(autoDBSeeds)
	autoDBSeeds = 13                                 // a second, where 24 takes minutes
	dir := filepath.Join(t.TempDir(), "not", "made") // the build makes it
	t.Setenv("KALAH_EGDB_DIR", dir)
	var mu sync.Mutex
	var reports []DBBuild
	var standing []string // what DBBuilds said at each report that was not right
	BuildDBOnFirstUse(func(b DBBuild) {
		now := DBBuilds()
		var locked error
		if !b.Finished { // the build holds the lock other processes wait on
			var unlock func()
			if unlock, locked = datadir.TryLock(b.Path+".lock", "test"); locked == nil {
				unlock()
			}
		}
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, b)
		if b.Done > 0 && !b.Finished {
			if db := FirstUseDB(b.Rules); db == nil || db.Seeds() != autoDBSeeds-2 {
				standing = append(standing, fmt.Sprintf("at %d of %d the players have no bridge of %d seeds (%v)", b.Done, b.Total, autoDBSeeds-2, db))
			}
		}
		if !b.Finished && !errors.Is(locked, datadir.ErrLocked) {
			standing = append(standing, fmt.Sprintf("at %d of %d the lock file could be taken (%v)", b.Done, b.Total, locked))
		}
		switch {
		case b.Finished && len(now) != 0:
			standing = append(standing, fmt.Sprintf("at the end: %+v", now))
		case !b.Finished && (len(now) != 1 || now[0].Path != b.Path || now[0].Done < b.Done || now[0].Total != b.Total):
			standing = append(standing, fmt.Sprintf("at %d of %d: %+v", b.Done, b.Total, now))
		}
	})
	defer BuildDBOnFirstUse(nil)

	r := kalah.Standard()
	r.Seeds = 3
	newPerfect := func(spec string, r kalah.Rules) *Player {
		t.Helper()
		p, err := player.New(spec, player.Options{Rules: r})
		if err != nil {
			t.Fatal(err)
		}
		return p.(*Player)
	}
	move := func(p *Player, r kalah.Rules) {
		t.Helper()
		g, err := kalah.NewGame(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Move(context.Background(), g, player.Clock{}); err != nil {
			t.Fatal(err)
		}
	}
	first := newPerfect("perfect", r)
	if first.dbSeeds != 10 {
		t.Fatalf("the first player starts with a database of %d seeds, want the 10 built in memory", first.dbSeeds)
	}
	if now := DBBuilds(); len(now) != 0 {
		t.Fatalf("a perfect player merely made started a build: %+v", now)
	}
	move(first, r)
	WaitDBBuilds(context.Background())
	if parts, _ := filepath.Glob(filepath.Join(dir, "*.part")); len(parts) != 0 {
		t.Errorf("the build's checkpoints are left beside the database: %v", parts)
	}
	path := filepath.Join(dir, egdb.FileName(r, autoDBSeeds))
	if db, err := egdb.Open(path, false); err != nil {
		t.Fatalf("the database built: %v", err)
	} else {
		db.Close()
	}
	move(first, r)
	if first.dbSeeds != autoDBSeeds || first.e.o.DB.Seeds() != autoDBSeeds {
		t.Errorf("after the build, the player's next move probes %d seeds (player says %d), want %d", first.e.o.DB.Seeds(), first.dbSeeds, autoDBSeeds)
	}
	if later := newPerfect("perfect", r); later.dbSeeds != autoDBSeeds {
		t.Errorf("a player made after the build has %d seeds", later.dbSeeds)
	}
	mu.Lock()
	got := append([]DBBuild(nil), reports...)
	mu.Unlock()
	if len(got) < 2 || got[0].Done != 0 || got[0].Finished || !got[len(got)-1].Finished || !got[len(got)-1].Built || got[len(got)-1].Err != nil ||
		got[len(got)-1].Done != got[0].Total || got[0].Total != egdb.Size(6, autoDBSeeds) || got[0].Path != path {
		t.Fatalf("reports %+v", got)
	}
	for i := 1; i < len(got)-1; i++ {
		if got[i].Finished || got[i].Done <= got[i-1].Done {
			t.Errorf("report %d: %+v after %+v", i, got[i], got[i-1])
		}
	}
	t.Logf("%d reports: %+v", len(got), got)
	mu.Lock()
	for _, s := range standing {
		t.Errorf("DBBuilds during the build, %s", s)
	}
	mu.Unlock()
	if now := DBBuilds(); len(now) != 0 {
		t.Errorf("DBBuilds after the build: %+v", now)
	}

	// No build for a variant without strategy books (its visitors could
	// fill a server's disk), for the engine player, nor with builds off.
	sowopp := r
	sowopp.SowOpponentStore = true
	if _, ok := autoDBPath(sowopp); ok {
		t.Error("a build for a variant no strategy book is for")
	}
	ecap := r
	ecap.EmptyCapture = true
	move(newPerfect("engine", ecap), ecap)
	BuildDBOnFirstUse(nil)
	move(newPerfect("perfect", ecap), ecap)
	path, _ = autoDBPath(ecap)
	auto.mu.Lock()
	started := auto.builds[path] != nil
	auto.mu.Unlock()
	if started {
		t.Error("a build started for the engine player or with builds off")
	}

	// A directory that is a file: the build is reported failing to be
	// written, and the database serves this process.
	reports = nil
	BuildDBOnFirstUse(func(b DBBuild) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, b)
	})
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KALAH_EGDB_DIR", file)
	p := newPerfect("perfect", ecap)
	move(p, ecap)
	WaitDBBuilds(context.Background())
	move(p, ecap)
	mu.Lock()
	if last := reports[len(reports)-1]; !last.Finished || !last.Built || last.Err == nil {
		t.Errorf("the last report %+v, want a failure to write", last)
	}
	mu.Unlock()
	if p.dbSeeds != autoDBSeeds {
		t.Errorf("with the file unwritten, the player probes %d seeds", p.dbSeeds)
	}

	// The page's analysis, asked, starts the build before any perfect
	// player.
	dir2 := t.TempDir()
	t.Setenv("KALAH_EGDB_DIR", dir2)
	StartDBBuild(r)
	if !DBBuildRunning() {
		t.Error("no build running after StartDBBuild")
	}
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WaitDBBuilds(stopped); err != context.Canceled && (err != nil || DBBuildRunning()) {
		t.Errorf("WaitDBBuilds with its context cancelled during a build: %v", err)
	}
	if err := WaitDBBuilds(context.Background()); err != nil || DBBuildRunning() {
		t.Errorf("WaitDBBuilds: %v, a build still running %v", err, DBBuildRunning())
	}
	if _, err := os.Stat(filepath.Join(dir2, egdb.FileName(r, autoDBSeeds))); err != nil {
		t.Errorf("StartDBBuild: %v", err)
	}

	// Nor with a larger database in the directory already.
	dir3 := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir3, egdb.FileName(r, autoDBSeeds+1)), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KALAH_EGDB_DIR", dir3)
	StartDBBuild(r)
	path, _ = autoDBPath(r)
	auto.mu.Lock()
	started = auto.builds[path] != nil
	auto.mu.Unlock()
	if started {
		t.Error("a build started beside a larger database")
	}

	// A file that is not a database (a disk's fault, a copy cut short) is
	// built again, not taken for the database nor left to slow the player.
	dir4 := t.TempDir()
	t.Setenv("KALAH_EGDB_DIR", dir4)
	bad := filepath.Join(dir4, egdb.FileName(r, autoDBSeeds))
	if err := os.WriteFile(bad, []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := newPerfect("perfect", r); p.dbSeeds >= autoDBSeeds {
		t.Errorf("a player took the bad file (%d seeds)", p.dbSeeds)
	} else {
		move(p, r)
	}
	WaitDBBuilds(context.Background())
	if db, err := egdb.Open(bad, false); err != nil {
		t.Errorf("the bad file was not built again: %v", err)
	} else {
		db.Close()
	}
}

// TestBuildDBOnFirstUseElsewhere: where another process builds the
// database (its lock file held), a build on first use waits for that
// one's file and builds nothing, and says so (Elsewhere, not a build of
// this process: WaitDBBuilds does not wait for it); if that process ends
// without writing the file, this one builds it, and the lock file goes
// once it is written. The other process is played by the test: a lock of
// a file opened apart is refused within one process as across two.
func TestBuildDBOnFirstUseElsewhere(t *testing.T) {
	defer func(k int, poll time.Duration) { autoDBSeeds, autoPoll = k, poll }(autoDBSeeds, autoPoll)
	autoDBSeeds, autoPoll = 13, 10*time.Millisecond
	dir := t.TempDir()
	t.Setenv("KALAH_EGDB_DIR", dir)
	reports := make(chan DBBuild, 100)
	BuildDBOnFirstUse(func(b DBBuild) { reports <- b })
	defer BuildDBOnFirstUse(nil)
	next := func() DBBuild {
		t.Helper()
		select {
		case b := <-reports:
			return b
		case <-time.After(time.Minute):
			t.Fatal("no report in a minute")
			return DBBuild{}
		}
	}

	for _, writes := range []bool{true, false} {
		r := kalah.Standard()
		r.EmptyCapture = !writes // a variant not built yet
		path, _ := autoDBPath(r)
		unlock, err := datadir.TryLock(path+".lock", "the other process")
		if err != nil {
			t.Fatal(err)
		}
		StartDBBuild(r)
		if b := next(); !b.Elsewhere || b.Finished || b.Path != path {
			t.Fatalf("the first report %+v, want the other process's build waited for", b)
		}
		if now := DBBuilds(); len(now) != 1 || !now[0].Elsewhere {
			t.Errorf("DBBuilds while the other process builds: %+v", now)
		}
		if DBBuildRunning() {
			t.Error("DBBuildRunning while another process builds")
		}
		stopped, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		if err := WaitDBBuilds(stopped); err != nil {
			t.Errorf("WaitDBBuilds waits for another process's build: %v", err)
		}
		cancel()
		if writes {
			db, err := egdb.Build(context.Background(), r, autoDBSeeds, egdb.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.WriteFile(path); err != nil {
				t.Fatal(err)
			}
			db.Close()
			unlock()
			if b := next(); !b.Finished || !b.Built || b.Err != nil || b.Elsewhere != true {
				t.Fatalf("once the other process wrote the file: %+v", b)
			}
			if db := FirstUseDB(r); db == nil || db.Seeds() != autoDBSeeds {
				t.Errorf("the other process's database is not the players'")
			}
			continue
		}
		unlock() // the other process ended without the file
		var b DBBuild
		for b = next(); !b.Finished; b = next() {
			if b.Elsewhere {
				t.Errorf("still waiting once the lock is free: %+v", b)
			}
		}
		if !b.Built || b.Err != nil {
			t.Fatalf("the build after the other process ended: %+v", b)
		}
		if db, err := egdb.Open(path, false); err != nil {
			t.Errorf("the file: %v", err)
		} else {
			db.Close()
		}
		WaitDBBuilds(context.Background())
		for range 100 { // the lock file goes just after the last report
			if _, err := os.Stat(path + ".lock"); err != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := os.Stat(path + ".lock"); err == nil {
			t.Error("the lock file is left beside the database")
		}
	}
}

// TestStopDBBuildsResumes: a build on first use stopped once past 40%
// (StopDBBuilds, as kalah play quitting calls it) is reported stopped with
// its work, leaves no lock file and starts no other build; the next build
// (the process asked again), taking over a lock file a killed process
// left, says it resumes from 40% or more in its first report, and writes the same file, byte for byte, as a build never
// stopped, its checkpoints gone.
func TestStopDBBuildsResumes(t *testing.T) {
	defer func(k, b int) { autoDBSeeds, bridgeDBSeeds = k, b }(autoDBSeeds, bridgeDBSeeds)
	autoDBSeeds, bridgeDBSeeds = 14, 0 // seconds on one core; no bridge, which would only slow the test
	dir := t.TempDir()
	t.Setenv("KALAH_EGDB_DIR", dir)
	r := kalah.Standard()
	path, _ := autoDBPath(r)
	reports := make(chan DBBuild, 1000)
	var once sync.Once
	stopped := make(chan error, 1)
	BuildDBOnFirstUse(func(b DBBuild) {
		reports <- b
		if !b.Finished && b.Done*10 >= 4*b.Total {
			// From another goroutine: StopDBBuilds waits for the build,
			// whose goroutine this is.
			once.Do(func() { go func() { stopped <- StopDBBuilds(context.Background()) }() })
		}
	})
	defer BuildDBOnFirstUse(nil)
	StartDBBuild(r)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	var last DBBuild
	for len(reports) > 0 {
		last = <-reports
	}
	if !last.Stopped || !last.Finished || last.Built || last.Done*10 < 4*last.Total {
		t.Fatalf("the last report of the stopped build: %+v", last)
	}
	if DBBuildRunning() || len(DBBuilds()) != 0 {
		t.Errorf("after StopDBBuilds: running %v, %+v", DBBuildRunning(), DBBuilds())
	}
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stopped build's lock file: %v, want none", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stopped build wrote its database: %v", err)
	}
	StartDBBuild(r)
	if len(DBBuilds()) != 0 {
		t.Error("a build started after StopDBBuilds")
	}

	// A lock file a killed process left (the kernel released its lock):
	// taken over.
	if err := os.WriteFile(path+".lock", []byte("kalah building it (pid 999999)\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	BuildDBOnFirstUse(func(b DBBuild) { reports <- b })
	StartDBBuild(r)
	WaitDBBuilds(context.Background())
	first := <-reports
	t.Logf("stopped at %.1f%%, the next build's first report %+v", 100*float64(last.Done)/float64(last.Total), first)
	if first.From < last.Done || first.Done != first.From || first.Finished {
		t.Errorf("the next build's first report %+v: want it resumed from %d (%.0f%%) or more", first, last.Done, 100*float64(last.Done)/float64(last.Total))
	}
	for len(reports) > 0 {
		last = <-reports
	}
	if !last.Built || last.Err != nil {
		t.Fatalf("the resumed build's last report %+v", last)
	}
	whole, err := egdb.Build(context.Background(), r, autoDBSeeds, egdb.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(t.TempDir(), "whole.egdb")
	if err := whole.WriteFile(want); err != nil {
		t.Fatal(err)
	}
	whole.Close()
	a, errA := os.ReadFile(path)
	b, errB := os.ReadFile(want)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("the resumed build's file differs from an uninterrupted build's (%v, %v)", errA, errB)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.part")); len(left) != 0 {
		t.Errorf("checkpoints left: %v", left)
	}
	for range 100 { // the lock file goes just after the last report
		if _, err := os.Stat(path + ".lock"); err != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(path + ".lock"); err == nil {
		t.Error("the lock file is left beside the database")
	}
}

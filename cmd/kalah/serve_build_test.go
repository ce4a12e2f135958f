package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// TestServeBuildsTheDatabaseOnlyWhenAsked: kalah serve with builds on
// first use starts no build at start-up (its -h says the build comes with
// the first perfect player asked); the first analysis asked starts the
// perfect player's database build, which GET /api/meta tells; shutting
// down stops it at once, says its progress is kept, and leaves no lock.
func TestServeBuildsTheDatabaseOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KALAH_EGDB_DIR", dir)
	s := startServe(t, "--build-egdb")
	base := fmt.Sprintf("http://127.0.0.1:%d", s.httpPort)
	building := func() int {
		t.Helper()
		resp, err := http.Get(base + "/api/meta")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m struct {
			Building []json.RawMessage `json:"building"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return len(m.Building)
	}
	time.Sleep(500 * time.Millisecond) // time for a build started at start-up to show
	if n := building(); n != 0 {
		t.Fatalf("a build at start-up: /api/meta says %d", n)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Fatalf("a build at start-up: %d files in the database directory", len(files))
	}

	body := `{"rules":{"houses":6,"seeds":4},"position":"0,0,0,1,2,3/1,0,2,0,0,1 24-14 S","time_ms":100}`
	req, _ := http.NewRequest("POST", base+"/api/analyze", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /api/analyze: %d %s", resp.StatusCode, b)
	}
	for deadline := time.Now().Add(30 * time.Second); building() == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no build after an analysis; log:\n%s", s.log.String())
		}
	}
	start := time.Now()
	s.stop()
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the server took %v to stop during the build", d)
	}
	log := s.log.String()
	if !strings.Contains(log, "its build stopped; its progress is kept") {
		t.Errorf("the log does not say the build stopped with its progress kept:\n%s", log)
	}
	if locks, _ := filepath.Glob(filepath.Join(dir, "*.lock")); len(locks) != 0 {
		t.Errorf("the stopped build left %v", locks)
	}
}

func TestHeapFloorMB(t *testing.T) {
	for _, tc := range []struct{ floor, limit, want int }{
		{1536, 12288, 1536}, // this machine's defaults
		{1024, 256, 128},    // held at half the limit
		{1024, 0, 1024},     // no limit
		{0, 12288, 0},       // no floor
	} {
		if got := heapFloorMB(tc.floor, tc.limit); got != tc.want {
			t.Errorf("heapFloorMB(%d, %d) = %d, want %d", tc.floor, tc.limit, got, tc.want)
		}
	}
}

// TestServeTunesTheCollector: kalah serve's collector target and memory
// limit are set from its flags, unless the environment set them first.
func TestServeTunesTheCollector(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: the environment wins")
	}
	old := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(old); debug.SetMemoryLimit(oldLimit) })
	tuneGC(t.Context(), 250, 0, 0, 0)
	if got := debug.SetGCPercent(100); got != 250 {
		t.Errorf("GC percent %d, want 250", got)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		tuneGC(t.Context(), 400, 512, 0, 0)
		if got := debug.SetMemoryLimit(-1); got != 512<<20 {
			t.Errorf("memory limit %d, want %d", got, 512<<20)
		}
	}
	// A floor over what is live raises GOGC until the context ends.
	runtime.GC() // the floor holds from the first collection
	ctx, cancel := context.WithCancel(t.Context())
	floored := tuneGC(ctx, 100, 4096, 512, 0)
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	deadline := time.Now().Add(5 * time.Second)
	for metrics.Read(s); s[0].Value.Uint64() < 500<<20; metrics.Read(s) {
		if time.Now().After(deadline) {
			t.Fatalf("heap goal %d MiB with a floor of 512, want at least 500", s[0].Value.Uint64()>>20)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// It lets go when the context ends (gcfloor's own test sees GOGC back
	// at its percent: here other tests' servers set it too).
	cancel()
	select {
	case <-floored:
	case <-time.After(5 * time.Second):
		t.Fatal("the heap floor still held five seconds after the context ended")
	}
	if tuneGC(t.Context(), 100, 4096, 0, time.Minute) != nil {
		t.Error("a floor with --heap-floor-mb 0")
	}
}

// TestServeProcs: two processors a core, unless the runtime found fewer
// processors than CPUs (a container's quota), whose choice stays.
func TestServeProcs(t *testing.T) {
	old := runtime.GOMAXPROCS(runtime.NumCPU())
	defer runtime.GOMAXPROCS(old)
	if got, want := serveProcs(), 2*runtime.NumCPU(); got != want {
		t.Errorf("serveProcs() = %d with a processor a CPU, want %d", got, want)
	}
	if runtime.NumCPU() > 1 {
		runtime.GOMAXPROCS(1)
		if got := serveProcs(); got != 1 {
			t.Errorf("serveProcs() = %d with the CPUs limited to 1, want 1", got)
		}
	}
}

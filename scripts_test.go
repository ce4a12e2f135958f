package kalah

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTimeRuns runs scripts/timeruns.sh, which docs/PERFORMANCE.md gives
// for every figure taken in turn: each run is printed, the commands' output
// kept with -o, a failing run marked, min-median-max and the ratio pair by
// pair computed, and a bad command line refused.
func TestTimeRuns(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	cmd := exec.Command("bash", "scripts/timeruns.sh", "-n", "3", "-w", "1", "-o", filepath.Join(dir, "out"),
		"-b", "sleep 0.5; echo b", "--", "sh", "-c", "sleep 0.05; echo a; exit 3")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("timeruns: %v\n%s", err, out)
	}
	text := string(out)
	for i := 1; i <= 3; i++ {
		for _, want := range []string{
			"A run " + strconv.Itoa(i) + ": ", "B run " + strconv.Itoa(i) + ": ",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("no %q in:\n%s", want, text)
			}
		}
		for name, want := range map[string]string{"A": "a\n", "B": "b\n"} {
			got, err := os.ReadFile(filepath.Join(dir, "out", name+"-"+strconv.Itoa(i)+".out"))
			if err != nil || string(got) != want {
				t.Errorf("%s-%d.out: %q, %v; want %q", name, i, got, err, want)
			}
		}
	}
	if strings.Contains(text, "warmup") {
		t.Errorf("the warm-up runs were printed:\n%s", text)
	}
	if n := strings.Count(text, "(exit 3)"); n != 3 {
		t.Errorf("%d runs of A marked as failed, want 3:\n%s", n, text)
	}
	stat := regexp.MustCompile(`(?m)^(A|B|A/B) +min ([0-9.]+)  median ([0-9.]+)  max ([0-9.]+)  \(3 runs\)$`)
	lines := stat.FindAllStringSubmatch(text, -1)
	if len(lines) != 3 {
		t.Fatalf("want the A, B and A/B lines, got %q in:\n%s", lines, text)
	}
	for _, l := range lines {
		lo, _ := strconv.ParseFloat(l[2], 64)
		med, _ := strconv.ParseFloat(l[3], 64)
		hi, _ := strconv.ParseFloat(l[4], 64)
		if !(lo <= med && med <= hi && lo > 0) {
			t.Errorf("%s: min %v median %v max %v out of order", l[1], lo, med, hi)
		}
		if l[1] == "A/B" && hi >= 1 {
			// A sleeps 0.05 s, B 0.5 s: every pair's ratio is below one.
			t.Errorf("A/B up to %v, want below 1:\n%s", hi, text)
		}
	}

	// A bad count is refused with the usage, exit status 2.
	cmd = exec.Command("bash", "scripts/timeruns.sh", "-n", "0", "--", "true")
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "timeruns.sh [-n RUNS]") {
		t.Errorf("-n 0: %v, %q; want exit 2 with the usage", err, out)
	}
}

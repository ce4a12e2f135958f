package cores

import (
	"runtime"
	"testing"
)

func TestN(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	cpus := runtime.NumCPU()
	for _, procs := range []int{1, cpus, 4 * cpus} {
		runtime.GOMAXPROCS(procs)
		if got, want := N(), min(procs, cpus); got != want {
			t.Errorf("GOMAXPROCS %d on %d CPUs: N() = %d, want %d", procs, cpus, got, want)
		}
	}
}

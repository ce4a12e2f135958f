// Package cores says how many cores a job may keep busy: the scheduler's
// processors (GOMAXPROCS), but no more than the machine's CPUs. kalah serve
// runs more processors than cores (its --procs), so that a core the kernel
// gives to another process does not hold back the goroutines queued on its
// processor; a pool of searches, hashes or builds sized by the processors
// would then ask for more than the machine has.
package cores

import "runtime"

// N returns the cores a job may keep busy, at least 1.
func N() int {
	return max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU()))
}

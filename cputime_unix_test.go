//go:build unix

package kalah

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, so benchmarks can report
// speed per CPU second too: on a shared, busy machine wall time says more
// about the neighbours than about the code.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

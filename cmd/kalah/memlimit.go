package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"strconv"
	"strings"
)

// memoryMB returns the memory the process may use, in MiB: the machine's
// (MemTotal in /proc/meminfo), or its container's cgroup limit if that is
// lower (cgroup v2's memory.max, v1's memory.limit_in_bytes); 0 if none
// can be read. root is the file system's root, "/" in use.
func memoryMB(root fs.FS) int {
	var least uint64
	take := func(b uint64) {
		if b > 0 && (least == 0 || b < least) {
			least = b
		}
	}
	if f, err := root.Open("proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// MemTotal:       24683620 kB
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				if kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64); err == nil {
					take(kb << 10)
				}
			}
		}
		f.Close()
	}
	for _, p := range []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := fs.ReadFile(root, p)
		if err != nil {
			continue
		}
		// "max" (v2) or a huge number (v1) when there is no limit: either
		// way the machine's memory is the lower.
		if n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64); err == nil {
			take(n)
		}
	}
	return int(least >> 20)
}

// serveMemoryLimitMB is kalah serve's default --memory-limit-mb: half the
// memory the process may use (memoryMB), the soft limit that keeps the
// collector's target (serveGCPercent) from growing the heap past what the
// machine holds; 0 (none) if it cannot be read.
func serveMemoryLimitMB(root fs.FS) int {
	return memoryMB(root) / 2
}

// serveHeapFloorMB is kalah serve's default --heap-floor-mb: a sixteenth
// of the memory the process may use (memoryMB), 1.5 GiB on a 24 GiB
// machine. At 4,000 bot games the live heap is about 60 MB and the server
// allocates about 25 MB a second: GOGC=400 alone collects every 12 s, the
// floor about once a minute (docs/PERFORMANCE.md, S4).
func serveHeapFloorMB(root fs.FS) int {
	return memoryMB(root) / 16
}

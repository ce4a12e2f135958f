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

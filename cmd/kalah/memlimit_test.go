package main

import (
	"testing"
	"testing/fstest"
)

func TestMemoryMB(t *testing.T) {
	meminfo := &fstest.MapFile{Data: []byte("MemTotal:       24683620 kB\nMemFree:        22000000 kB\n")}
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
		want  int
	}{
		{"machine only", fstest.MapFS{"proc/meminfo": meminfo}, 24683620 >> 10},
		{"cgroup v2 without a limit", fstest.MapFS{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": {Data: []byte("max\n")}}, 24683620 >> 10},
		{"cgroup v2 limit", fstest.MapFS{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": {Data: []byte("2147483648\n")}}, 2048},
		{"cgroup v1 without a limit", fstest.MapFS{"proc/meminfo": meminfo, "sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("9223372036854771712\n")}}, 24683620 >> 10},
		{"cgroup v1 limit", fstest.MapFS{"proc/meminfo": meminfo, "sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("1073741824\n")}}, 1024},
		{"a limit above the machine", fstest.MapFS{"proc/meminfo": {Data: []byte("MemTotal: 1048576 kB\n")}, "sys/fs/cgroup/memory.max": {Data: []byte("4294967296")}}, 1024},
		{"cgroup only", fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("536870912")}}, 512},
		{"nothing to read", fstest.MapFS{}, 0},
		{"garbage", fstest.MapFS{"proc/meminfo": {Data: []byte("MemTotal: lots\n")}, "sys/fs/cgroup/memory.max": {Data: []byte("-1")}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := memoryMB(tc.files); got != tc.want {
				t.Errorf("memoryMB = %d, want %d", got, tc.want)
			}
		})
	}
}

package main

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestFirstLegal(t *testing.T) {
	for _, tc := range []struct {
		houses, side string
		want         int
	}{
		{"4,4,4,4,4,4/4,4,4,4,4,4", "S", 1},
		{"0,0,3,4,4,4/4,4,4,4,4,4", "S", 3},
		{"0,0,3,4,4,4/0,0,0,0,0,2", "N", 6},
		{"0,0,0/0,0,0", "N", 1}, // nothing to play: the server refuses it
	} {
		if got, side := firstLegal(tc.houses, tc.side); got != tc.want || side != tc.side {
			t.Errorf("firstLegal(%q, %q) = %d, %q; want %d", tc.houses, tc.side, got, side, tc.want)
		}
	}
}

func TestProcessStart(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	at, err := processStart(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// This test's process started a moment ago (/proc counts in ticks of
	// 10 ms; the boot time is read from a clock a moment later).
	if since := time.Since(at); since < -time.Second || since > 10*time.Minute {
		t.Errorf("this process started %v ago", since)
	}
	if _, err := processStart(1 << 30); err == nil {
		t.Error("a process that does not exist has a start")
	}
}

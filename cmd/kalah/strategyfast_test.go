package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFastSetFile: the fast positions come back as written, and a file
// written under other terms (another node limit) or cut short is refused,
// not half read.
func TestFastSetFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.kbook.partial.fast")
	s := newFastSet("Kalah(4,3)", 2000, 0)
	if err := s.read(path); err != nil || s.len() != 0 {
		t.Fatalf("a missing file: %v, %d keys", err, s.len())
	}
	for _, k := range []uint64{7, 1 << 40, 3} {
		s.add(k)
	}
	if err := s.write(path); err != nil {
		t.Fatal(err)
	}
	back := newFastSet("Kalah(4,3)", 2000, 0)
	if err := back.read(path); err != nil || back.len() != 3 || !back.has(1<<40) || back.has(4) {
		t.Fatalf("read back: %v, %d keys", err, back.len())
	}
	if err := newFastSet("Kalah(4,3)", 3000, 0).read(path); !errors.Is(err, errFastFile) {
		t.Errorf("another node limit: %v", err)
	}
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := newFastSet("Kalah(4,3)", 2000, 0).read(path); !errors.Is(err, errFastFile) {
		t.Errorf("a file cut short: %v", err)
	}
}

// TestStrategyResumesFast interrupts a strategy build once it has saved
// fast positions, resumes it, and checks that the resumption takes them
// from the file (instead of searching them again) and writes the same
// bytes as a build that was never stopped.
func TestStrategyResumesFast(t *testing.T) {
	dir := t.TempDir()
	args := func(out string) []string {
		return []string{"book", "strategy", "--houses", "4", "--seeds", "3", "--plies", "0", "--nodes", "2000",
			"--egdb-seeds", "0", "--tt-mb", "8", "--threads", "1", "--checkpoint", "1ns", "--out", out}
	}
	whole := filepath.Join(dir, "whole.kbook")
	if _, errs, code := runCmd(t, args(whole)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(dir, "s.kbook")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // stop the build once it has saved a fast position
		for ctx.Err() == nil {
			if _, err := os.Stat(out + ".partial.fast"); err == nil {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args(out), strings.NewReader(""), &stdout, &stderr)
	cancel()
	if code == 0 {
		t.Skip("the build ended before it could be stopped")
	}
	if _, err := os.Stat(out + ".partial.fast"); err != nil {
		t.Fatalf("stopped (exit %d) without its fast positions: %v\n%s", code, err, stderr.String())
	}
	_, errs, code := runCmd(t, args(out)...)
	if code != 0 {
		t.Fatalf("resuming: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "resuming with the fast positions found before") || !regexp.MustCompile(`"fast positions not searched again"=[1-9]`).MatchString(errs) {
		t.Errorf("the resumption did not take the fast positions:\n%s", errs)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("resumed: %d bytes, unlike the whole build's %d", len(got), len(want))
	}
	for _, f := range []string{out + ".partial", out + ".partial.fast"} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left after the build: %v", f, err)
		}
	}
}

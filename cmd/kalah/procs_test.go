package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kalah"
)

// mkAgent is a Manchester-protocol agent run by the test binary: it notes
// its pid in $KALAH_TEST_PIDDIR and plays its highest legal house. In mode
// "ignore-end" it also starts a child of its own, and on END (or when its
// input closes) it keeps running, as some agents do.
func mkAgent(mode string) int {
	note := func(pid int) {
		if dir := os.Getenv("KALAH_TEST_PIDDIR"); dir != "" {
			os.WriteFile(filepath.Join(dir, strconv.Itoa(pid)), nil, 0o644)
		}
	}
	note(os.Getpid())
	if mode == "ignore-end" {
		child := exec.Command("sleep", "300")
		if err := child.Start(); err == nil {
			note(child.Process.Pid)
		}
	}
	hang := func() int {
		if mode == "ignore-end" {
			for {
				time.Sleep(time.Hour)
			}
		}
		return 0
	}
	r, _ := kalah.PresetRules("manchester")
	g, _ := kalah.NewGame(r)
	var me kalah.Side
	reply := func() {
		legal := g.Legal()
		m := legal[len(legal)-1]
		if m == kalah.Swap {
			m = legal[len(legal)-2]
		}
		fmt.Printf("MOVE;%d\n", m)
	}
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return hang()
		}
		f := strings.Split(strings.TrimSuffix(line, "\n"), ";")
		switch f[0] {
		case "START":
			if f[1] == "North" {
				me = kalah.North
			} else {
				reply()
			}
		case "CHANGE":
			if f[1] == "SWAP" {
				g.Play(kalah.Swap)
				me = me.Other()
			} else {
				m, _ := kalah.ParseMove(f[1])
				g.Play(m)
			}
			if f[3] == "YOU" {
				reply()
			}
		case "END":
			return hang()
		}
	}
}

// alive reports whether pid is a live process (a zombie counts as dead).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return err != nil && !os.IsNotExist(err)
	}
	// pid (comm) STATE ...: the state follows the last ')'.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// TestMatchLeavesNoAgentProcess plays a match of mk: agents, one of which
// ignores END and leaves a child of its own running, and checks that no
// agent process, nor the child, outlives the match; and that the spec
// check before the match starts no process.
func TestMatchLeavesNoAgentProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pids := t.TempDir()
	agent := func(mode string) string {
		return fmt.Sprintf("mk:KALAH_TEST_MK_AGENT=%s KALAH_TEST_PIDDIR='%s' exec '%s'", mode, pids, exe)
	}
	logs := t.TempDir()
	out, errs, code := runCmd(t, "match", "--rules", "manchester", "--a", agent("normal"), "--b", agent("ignore-end"),
		"--games", "2", "--time", "5s", "--logs", logs)
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "[normal]") || !strings.Contains(out, "5s a move, 1h0m0s a game") {
		t.Errorf("output:\n%s", out)
	}
	entries, err := os.ReadDir(pids)
	if err != nil {
		t.Fatal(err)
	}
	// Two games, two agents each, and the ignoring agent's child: 6, none
	// of them from the spec check.
	if len(entries) != 6 {
		t.Errorf("%d processes noted, want 6 (two games of two agents, one with a child)", len(entries))
	}
	deadline := time.Now().Add(3 * time.Second)
	for _, e := range entries {
		pid, _ := strconv.Atoi(e.Name())
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d outlived the match", pid)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestMatchExecReason: a program that cannot start loses with the reason
// shown, and a match in which nothing could be played fails.
func TestMatchExecReason(t *testing.T) {
	t.Chdir(t.TempDir())
	logs := t.TempDir()
	out, errs, code := runCmd(t, "match", "--a", "exec:/nonexistent/bot --fast", "--b", "greedy", "--games", "2", "--logs", logs)
	if code == 0 {
		t.Fatalf("exit 0 though no game could be played:\n%s", out)
	}
	for _, want := range []string{"[crash: A: player crashed", "exit status 127", "/nonexistent/bot: not found"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "no game could be played") {
		t.Errorf("stderr: %s", errs)
	}
	b, err := os.ReadFile(filepath.Join(logs, "game-001-A.stderr"))
	if err != nil || !strings.Contains(string(b), "not found") {
		t.Errorf("stderr log: %q, %v", b, err)
	}
}

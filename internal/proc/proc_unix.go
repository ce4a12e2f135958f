//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

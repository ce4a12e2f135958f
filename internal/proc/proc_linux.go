package proc

import (
	"os/exec"
	"syscall"
)

func group(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	// If kalah dies (kill -9, a crash), the kernel kills the program too.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

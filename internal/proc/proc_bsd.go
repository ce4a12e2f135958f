//go:build unix && !linux

package proc

import (
	"os/exec"
	"syscall"
)

// Elsewhere than Linux there is no parent-death signal: the process group
// is killed when kalah stops the program.
func group(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

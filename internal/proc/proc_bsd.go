//go:build unix && !linux

package proc

import "syscall"

// dieWithParent: only Linux offers it; elsewhere the process group is
// killed when kalah stops the program.
func dieWithParent(*syscall.SysProcAttr) {}

package proc

import "syscall"

// dieWithParent has the kernel kill the program if kalah dies (kill -9, a
// crash) without stopping it.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

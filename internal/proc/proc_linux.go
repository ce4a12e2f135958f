package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// On Linux a program runs under a supervisor: a second copy of kalah
// (/proc/self/exe) that starts it, waits for it and passes on its exit
// status. The kernel sends the supervisor SIGTERM when kalah dies, however
// it dies (kill -9 included: PR_SET_PDEATHSIG), and the supervisor then
// kills its whole process group, the program and whatever the program
// started. A parent-death signal on the program's own process is not
// enough: "sh -c CMD" may fork CMD rather than exec it (a pyenv shim, a
// compound command), and the signal kills only the shell, leaving CMD to
// run on under init; the process group would be killed only by a kalah
// still alive to do it.

// superviseEnv marks the supervisor's environment; it is removed before
// the program starts.
const superviseEnv = "KALAH_INTERNAL_SUPERVISE"

// supervisorName is the supervisor's argv[0], as ps shows it.
const supervisorName = "kalah-supervisor"

func init() {
	// Any binary that starts programs through this package (kalah, its
	// test binaries) is also the supervisor: it takes over before main.
	if os.Getenv(superviseEnv) == "1" {
		os.Exit(supervise(os.Args[1:]))
	}
}

func group(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if cmd.Err != nil || cmd.Path == "" {
		// Start reports cmd.Err; nothing to supervise.
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		return
	}
	cmd.Args = append([]string{supervisorName, cmd.Path}, cmd.Args...)
	cmd.Path = "/proc/self/exe"
	cmd.Env = append(cmd.Environ(), superviseEnv+"=1")
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
}

// supervise runs the program args[0] with the arguments args[1:] (its
// argv) and returns the exit status to leave with. On SIGTERM, SIGHUP or
// SIGINT it kills its process group, itself included.
func supervise(args []string) int {
	os.Unsetenv(superviseEnv)
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "kalah: supervisor started without a program")
		return 127
	}
	// Listen before the program starts: a signal that comes first is kept
	// and kills the program at once.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	c := &exec.Cmd{Path: args[0], Args: args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := c.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "kalah: %v\n", err)
		return 127
	}
	go func() {
		<-sigs
		syscall.Kill(0, syscall.SIGKILL)
	}()
	err := c.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintf(os.Stderr, "kalah: %v\n", err)
		return 127
	}
	st, _ := c.ProcessState.Sys().(syscall.WaitStatus)
	if st.Signaled() {
		// Die of the same signal, so the program's status reads the same
		// as if it had run without the supervisor.
		signal.Reset()
		syscall.Kill(os.Getpid(), st.Signal())
		return 128 + int(st.Signal())
	}
	return st.ExitStatus()
}

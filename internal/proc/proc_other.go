//go:build !unix

package proc

import "os/exec"

func group(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {}

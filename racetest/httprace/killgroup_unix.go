//go:build unix

package httprace

import (
	"os/exec"
	"syscall"
)

// killGroup makes cmd the leader of a process group of its own and has
// its cancellation kill the whole group, so that an --effect-cmd that is a
// shell script takes its children with it at the timeout.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

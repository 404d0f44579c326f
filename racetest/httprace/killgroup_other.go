//go:build !unix

package httprace

import "os/exec"

// killGroup leaves cmd as it is: outside Unix the timeout kills the
// command alone (cmd.WaitDelay still bounds the wait for its output).
func killGroup(*exec.Cmd) {}

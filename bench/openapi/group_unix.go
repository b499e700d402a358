//go:build unix

package main

import (
	"os/exec"
	"syscall"
	"time"
)

// inGroup runs c in a process group of its own and makes a cancelled
// context stop the whole group with SIGTERM, so the compiler the go
// command started stops too (and the -toolexec wrapper records what it
// had cost); SIGKILL follows after 30 s.
func inGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGTERM) }
	c.WaitDelay = 30 * time.Second
}

//go:build unix

package openapi

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time this process has used, user and system:
// on a machine shared with other work, a hang shows as CPU spent, not as
// wall time waited.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

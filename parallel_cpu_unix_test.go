//go:build unix

package kit_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used, for
// benchmarks to report beside wall time: on a shared machine it moves far
// less from run to run.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

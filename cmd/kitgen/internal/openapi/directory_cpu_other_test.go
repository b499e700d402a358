//go:build !unix

package openapi

import "time"

var processStart = time.Now()

// processCPU returns the wall time since the process started, where
// the CPU time is not at hand: an overestimate of it.
func processCPU() time.Duration { return time.Since(processStart) }

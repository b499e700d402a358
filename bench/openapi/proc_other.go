//go:build !linux

package main

import "os"

// maxRSS is 0 here: the figure is read from Linux's rusage.
func maxRSS(*os.ProcessState) int64 { return 0 }

// peakRSS is not measured here: it is read from Linux's /proc.
func peakRSS(int) (int64, bool) { return 0, false }

// memTotal is 0 here (no limit): it is read from Linux's /proc.
func memTotal() int64 { return 0 }

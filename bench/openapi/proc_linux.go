package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// maxRSS is a finished process's peak resident set in bytes, from the
// rusage wait4 returned (Linux counts ru_maxrss in KiB).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}

// peakRSS is a running process's peak resident set so far in bytes
// (VmHWM in /proc/pid/status).
func peakRSS(pid int) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	return parseVmHWM(string(data))
}

// parseVmHWM reads the VmHWM line of a /proc/pid/status text
// ("VmHWM:\t  123456 kB").
func parseVmHWM(status string) (int64, bool) {
	for line := range strings.Lines(status) {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		num, unit, _ := strings.Cut(strings.TrimSpace(rest), " ")
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || unit != "kB" {
			return 0, false
		}
		return n * 1024, true
	}
	return 0, false
}

// memTotal is the machine's memory in bytes (MemTotal in /proc/meminfo);
// 0 when it cannot be read.
func memTotal() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			num, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				return 0
			}
			return n * 1024
		}
	}
	return 0
}

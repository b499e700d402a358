//go:build race

package main

// raceEnabled is true in a test binary built with -race: the tests that
// only build generated code in a child go command (no Go code of this
// package runs concurrently there) skip under it, as the plain run covers
// them at a fraction of the time.
const raceEnabled = true

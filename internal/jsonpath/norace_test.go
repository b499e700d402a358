//go:build !race

package jsonpath

const raceEnabled = false

// Package textdiff shows where two texts differ, line by line, for the
// failure messages of golden-file tests.
package textdiff

import (
	"fmt"
	"strings"
)

// maxShown is how many differing lines Lines shows.
const maxShown = 10

// Lines shows the first lines (up to ten) where want and got differ, each
// with its number, and how many more differ; "(equal)" when none does.
func Lines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown, more := 0, 0
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		if shown == maxShown {
			more++
			continue
		}
		fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
		shown++
	}
	if shown == 0 {
		return "(equal)"
	}
	if more > 0 {
		fmt.Fprintf(&b, "(and %d more differing lines)\n", more)
	}
	return b.String()
}

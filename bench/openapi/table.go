package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// result is what one generator did with one document.
type result struct {
	doc, tool string
	generated bool
	option    string    // the option of the attempt that succeeded; "" for none
	failures  []failure // attempts that failed, in order
	skipped   int       // operations the tool says it skipped; -1 when it does not say
	reasons   map[string]int
	lines     lineCount
	generate  timing   // the fastest generation
	compiles  []timing // one per compile, in order
	err       string   // what failed after generation (go mod tidy, go build)
}

// failure is one failed attempt.
type failure struct{ option, text string }

// summary is a one-line account for the progress log.
func (r result) summary() string {
	if !r.generated {
		return "generation failed: " + r.failures[len(r.failures)-1].text
	}
	s := fmt.Sprintf("%d lines, generated in %s", r.lines.nonBlank, seconds(r.generate.wall))
	if r.err != "" {
		return s + "; " + r.err
	}
	lo, hi := span(r.compiles)
	return s + fmt.Sprintf(", compiled in %s–%s", seconds(lo.wall), seconds(hi.wall))
}

// span is the fastest and the slowest compile.
func span(ts []timing) (lo, hi timing) {
	if len(ts) == 0 {
		return timing{}, timing{}
	}
	lo = slices.MinFunc(ts, func(a, b timing) int { return cmp.Compare(a.wall, b.wall) })
	hi = slices.MaxFunc(ts, func(a, b timing) int { return cmp.Compare(a.wall, b.wall) })
	return lo, hi
}

// seconds formats a duration as seconds with two significant figures
// below 10 s and whole seconds above.
func seconds(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 1:
		return fmt.Sprintf("%.2f s", s)
	case s < 10:
		return fmt.Sprintf("%.1f s", s)
	default:
		return fmt.Sprintf("%.0f s", s)
	}
}

// thousands formats n with commas.
func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// header says what was run, where and when.
func header(v versions, repeats int, machine string) string {
	return fmt.Sprintf("Measured %s; %s. kitgen %s (this tree), ogen %s (client only: server features off), oapi-codegen %s (models and client; runtime %s). Generation: the fastest of %d runs. Compile: `go build` of the generated package alone, every dependency already built, fastest and slowest of as many runs; CPU is user+system time of the fastest.",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), machine, v.kit, v.ogen, v.oapi, v.runtime, repeats)
}

// writeTable prints the results as a Markdown table; notes (numbered in
// the order writeNotes prints them) hold the errors.
func writeTable(w io.Writer, results []result) {
	fmt.Fprintln(w, "| document | generator | generated | operations skipped | Go lines: non-blank (all) | files | generate: wall (CPU) | compile: wall, fastest–slowest (CPU) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	note := 0
	for _, r := range results {
		generated := "yes"
		if len(r.failures) > 0 {
			note++
			if r.generated {
				generated = fmt.Sprintf("with `%s` (note %d)", r.option, note)
			} else {
				generated = fmt.Sprintf("**no** (note %d)", note)
			}
		}
		skipped, lines, files, gen, comp := "—", "—", "—", "—", "—"
		if r.generated {
			if r.skipped >= 0 {
				skipped = thousands(r.skipped)
			} else {
				skipped = "not reported"
			}
			lines = fmt.Sprintf("%s (%s)", thousands(r.lines.nonBlank), thousands(r.lines.total))
			files = fmt.Sprint(r.lines.files)
			gen = fmt.Sprintf("%s (%s)", seconds(r.generate.wall), seconds(r.generate.cpu))
			if r.err != "" {
				note++
				comp = fmt.Sprintf("**failed** (note %d)", note)
			} else if len(r.compiles) > 0 {
				lo, hi := span(r.compiles)
				comp = fmt.Sprintf("%s–%s (%s)", seconds(lo.wall), seconds(hi.wall), seconds(lo.cpu))
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.doc, r.tool, generated, skipped, lines, files, gen, comp)
	}
}

// writeNotes prints the errors the table refers to, then the reasons the
// tools gave for the operations they skipped.
func writeNotes(w io.Writer, results []result) {
	note := 0
	var lines []string
	for _, r := range results {
		if len(r.failures) > 0 {
			note++
			var parts []string
			for _, f := range r.failures {
				how := "as configured"
				if f.option != "" {
					how = "with `" + f.option + "`"
				}
				parts = append(parts, fmt.Sprintf("%s it failed: %s", how, strings.TrimSuffix(f.text, ".")))
			}
			lines = append(lines, fmt.Sprintf("%d. %s on %s: %s.", note, r.tool, r.doc, strings.Join(parts, "; ")))
		}
		if r.generated && r.err != "" {
			note++
			lines = append(lines, fmt.Sprintf("%d. %s on %s: %s.", note, r.tool, r.doc, strings.TrimSuffix(r.err, ".")))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintln(w)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
	var skips []string
	for _, r := range results {
		if len(r.reasons) == 0 {
			continue
		}
		keys := slices.SortedFunc(maps.Keys(r.reasons), func(a, b string) int {
			return cmp.Or(cmp.Compare(r.reasons[b], r.reasons[a]), cmp.Compare(a, b))
		})
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%d × %s", r.reasons[k], k))
		}
		skips = append(skips, fmt.Sprintf("- %s skipped on %s: %s", r.tool, r.doc, strings.Join(parts, "; ")))
	}
	if len(skips) > 0 {
		fmt.Fprintln(w)
		for _, s := range skips {
			fmt.Fprintln(w, s)
		}
	}
}

package main

import (
	"cmp"
	"errors"
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
	generate  timing    // the fastest generation
	compiles  []timing  // one per compile, in order: the go command's times
	compiler  []toolRun // one per compile, in order: the compiler's own
	funcs     funcCount // the functions of the compiled package
	ops       int       // the operations generated: the document's less those skipped
	binary    int64     // the stripped one-call program's size in bytes; 0 when not linked
	link      toolRun   // the linker's run for it
	err       string    // what failed after generation (go mod tidy, go build)
}

// cost is the compiler's cost over the compiles: the least CPU and the
// largest peak RSS (the peak varies little; the CPU grows with the load).
func (r result) cost() (cpu time.Duration, rss int64, ok bool) {
	for i, c := range r.compiler {
		if i == 0 || c.CPU < cpu {
			cpu = c.CPU
		}
		rss = max(rss, c.MaxRSS)
	}
	return cpu, rss, len(r.compiler) > 0
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
	s += fmt.Sprintf(", compiled in %s–%s", seconds(lo.wall), seconds(hi.wall))
	if cpu, rss, ok := r.cost(); ok {
		s += fmt.Sprintf(" (compiler: %s CPU, %s peak)", seconds(cpu), megabytes(rss))
	}
	if r.funcs.total > 0 {
		s += fmt.Sprintf(", %s functions (%s instantiated)", thousands(r.funcs.total), thousands(r.funcs.instantiated))
	}
	if r.binary > 0 {
		s += ", one-call binary " + mebibytes(r.binary)
	}
	return s
}

// megabytes formats a size in bytes as whole megabytes (10⁶ bytes), as
// peak RSS is usually given.
func megabytes(n int64) string {
	if n <= 0 {
		return "—"
	}
	return thousands(int((n+500_000)/1_000_000)) + " MB"
}

// mebibytes formats a file's size in MiB with one decimal.
func mebibytes(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// perOp formats n per operation with one decimal.
func perOp(n, ops int) string {
	if ops <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", float64(n)/float64(ops))
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
	return fmt.Sprintf("Measured %s; %s. kitgen %s, ogen %s (client only: server features off), oapi-codegen %s (models and client; runtime %s). Generation: the fastest of %s. Compile: `go build` of the generated package alone, every dependency already built, fastest and slowest wall time of as many runs; the compiler's own CPU (user+system, the least) and peak RSS (the largest) from its rusage. Functions: text symbols of the package's archive (`go tool nm`), instantiated: those with a type-argument list. Binary: a program calling one operation, `-ldflags=-s -w`.",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), machine, v.kit, v.ogen, v.oapi, v.runtime, runs(repeats))
}

// runs is "1 run" or "n runs".
func runs(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// writeTable prints the results as a Markdown table; notes (numbered in
// the order writeNotes prints them) hold the errors.
func writeTable(w io.Writer, results []result) {
	fmt.Fprintln(w, "| document | generator | generated | operations (skipped) | Go lines: non-blank (all) | files | generate: wall (CPU) | compile: wall, fastest–slowest | compiler: CPU, peak RSS | functions: all (instantiated) | per operation: all (instantiated) | one-call binary |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
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
		ops, lines, files, gen, comp, cost, funcs, per, bin := "—", "—", "—", "—", "—", "—", "—", "—", "—"
		if r.generated {
			switch {
			case r.skipped >= 0 && r.ops > 0:
				ops = fmt.Sprintf("%s (%s)", thousands(r.ops), thousands(r.skipped))
			case r.ops > 0:
				ops = thousands(r.ops) + " (not reported)"
			case r.skipped >= 0:
				ops = fmt.Sprintf("? (%s)", thousands(r.skipped))
			}
			lines = fmt.Sprintf("%s (%s)", thousands(r.lines.nonBlank), thousands(r.lines.total))
			files = fmt.Sprint(r.lines.files)
			gen = fmt.Sprintf("%s (%s)", seconds(r.generate.wall), seconds(r.generate.cpu))
			if len(r.compiles) > 0 {
				lo, hi := span(r.compiles)
				comp = fmt.Sprintf("%s–%s", seconds(lo.wall), seconds(hi.wall))
			}
			if cpu, rss, ok := r.cost(); ok {
				cost = fmt.Sprintf("%s, %s", seconds(cpu), megabytes(rss))
			}
			if r.funcs.total > 0 {
				funcs = fmt.Sprintf("%s (%s)", thousands(r.funcs.total), thousands(r.funcs.instantiated))
				if r.ops > 0 {
					per = fmt.Sprintf("%s (%s)", perOp(r.funcs.total, r.ops), perOp(r.funcs.instantiated, r.ops))
				}
			}
			if r.binary > 0 {
				bin = mebibytes(r.binary)
			}
			if r.err != "" {
				note++
				if comp == "—" {
					comp = fmt.Sprintf("**failed** (note %d)", note)
				} else {
					bin = fmt.Sprintf("**failed** (note %d)", note)
				}
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.doc, r.tool, generated, ops, lines, files, gen, comp, cost, funcs, per, bin)
	}
}

// writeRatios prints, for each document both kitgen and ogen compiled,
// kitgen's figures over ogen's from the same run.
func writeRatios(w io.Writer, results []result) {
	var out []string
	for _, k := range results {
		if k.tool != "kitgen" || len(k.compiler) == 0 {
			continue
		}
		for _, o := range results {
			if o.tool != "ogen" || o.doc != k.doc || len(o.compiler) == 0 {
				continue
			}
			kc, kr, _ := k.cost()
			oc, or, _ := o.cost()
			parts := []string{
				"compiler CPU " + ratio(kc.Seconds(), oc.Seconds()),
				"peak RSS " + ratio(float64(kr), float64(or)),
			}
			if k.binary > 0 && o.binary > 0 {
				parts = append(parts, "one-call binary "+ratio(float64(k.binary), float64(o.binary)))
			}
			if k.funcs.total > 0 && o.funcs.total > 0 {
				parts = append(parts, "functions "+ratio(float64(k.funcs.total), float64(o.funcs.total)))
			}
			parts = append(parts, "Go lines "+ratio(float64(k.lines.nonBlank), float64(o.lines.nonBlank)))
			if k.lines.nonBlank > 0 && o.lines.nonBlank > 0 {
				parts = append(parts, "compiler CPU per line "+ratio(kc.Seconds()/float64(k.lines.nonBlank), oc.Seconds()/float64(o.lines.nonBlank)))
			}
			out = append(out, fmt.Sprintf("- %s, kitgen / ogen: %s.", k.doc, strings.Join(parts, ", ")))
		}
	}
	if len(out) > 0 {
		fmt.Fprintln(w)
		for _, l := range out {
			fmt.Fprintln(w, l)
		}
	}
}

// ratio formats a/b as "0.69×"; "—" when b is not positive.
func ratio(a, b float64) string {
	if b <= 0 {
		return "—"
	}
	q := a / b
	if q < 0.1 {
		return fmt.Sprintf("%.3f×", q)
	}
	return fmt.Sprintf("%.2f×", q)
}

// writeGrowth prints the compiles of one generator's packages for subsets
// of a document's operations and the least-squares lines through them:
// the cost of one more operation.
func writeGrowth(w io.Writer, points []result) {
	var ops, cpus, rsss, funcs, insts []float64
	fmt.Fprintln(w, "| operations | Go lines (non-blank) | compiler CPU | compiler peak RSS | functions (instantiated) |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, p := range points {
		cpu, rss, ok := p.cost()
		if !ok || p.ops <= 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s (%s) |\n", thousands(p.ops), thousands(p.lines.nonBlank), seconds(cpu), megabytes(rss), thousands(p.funcs.total), thousands(p.funcs.instantiated))
		ops = append(ops, float64(p.ops))
		cpus = append(cpus, cpu.Seconds())
		rsss = append(rsss, float64(rss)/1e6)
		funcs = append(funcs, float64(p.funcs.total))
		insts = append(insts, float64(p.funcs.instantiated))
	}
	fmt.Fprintln(w)
	cpu, err1 := fitLine(ops, cpus)
	rss, err2 := fitLine(ops, rsss)
	fn, err3 := fitLine(ops, funcs)
	in, err4 := fitLine(ops, insts)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		fmt.Fprintf(w, "No line through %d points: %v.\n", len(ops), err)
		return
	}
	fmt.Fprintf(w, "Least-squares lines over %d points: compiler CPU %.1f ms per operation (intercept %.1f s; R² %.3f), peak RSS %.2f MB per operation (intercept %.0f MB; R² %.3f), %.1f functions per operation (%.1f instantiated).\n",
		len(ops), cpu.slope*1000, cpu.intercept, cpu.r2, rss.slope, rss.intercept, rss.r2, fn.slope, in.slope)
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

package main

import (
	"fmt"
	"io"
	"strings"
)

// The targets for kitgen's generated packages, checked by the
// summary: ratios to ogen's figures from the same run, and the growth
// line's cost of one more operation.
const (
	targetCPURatio    = 0.15 // compiler CPU, kitgen / ogen
	targetRSSRatio    = 0.20 // compiler peak RSS, kitgen / ogen
	targetBinaryRatio = 1.5  // one-call binary, kitgen / ogen
	targetOpCPUms     = 10   // compiler CPU per operation, ms
	targetOpRSSMB     = 0.6  // compiler peak RSS per operation, MB
)

// writeSummary prints a compact account of the run for a closing note:
// one line per generated package with the compiler's cost, the functions
// and the one-call binary; kitgen's ratios to ogen with the targets; the
// growth line with its targets.
func writeSummary(w io.Writer, machine string, results, points []result) {
	fmt.Fprintf(w, "Summary (%s):\n\n", machine)
	fmt.Fprintln(w, "| document | generator | ops | compiler CPU | peak RSS | functions (instantiated) | one-call binary |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range results {
		cpu, rss, ok := r.cost()
		c, m, f, b := "—", "—", "—", "—"
		if ok {
			c, m = seconds(cpu), megabytes(rss)
		}
		if r.funcs.total > 0 {
			f = fmt.Sprintf("%s (%s)", thousands(r.funcs.total), thousands(r.funcs.instantiated))
		}
		if r.binary > 0 {
			b = mebibytes(r.binary)
		}
		switch {
		case !r.generated:
			c = "generation failed"
		case r.err != "" && !ok:
			c = "build failed"
		case r.err != "" && r.binary == 0 && r.funcs.total == 0:
			c += " (failed)"
		}
		ops := "—"
		if r.ops > 0 {
			ops = thousands(r.ops)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", r.doc, r.tool, ops, c, m, f, b)
	}
	var lines []string
	for _, k := range results {
		for _, o := range results {
			if k.tool != "kitgen" || o.tool != "ogen" || o.doc != k.doc {
				continue
			}
			kc, kr, ok1 := k.cost()
			oc, or, ok2 := o.cost()
			if !ok1 || !ok2 {
				continue
			}
			parts := []string{
				"CPU " + checked(kc.Seconds(), oc.Seconds(), targetCPURatio),
				"RSS " + checked(float64(kr), float64(or), targetRSSRatio),
			}
			if k.binary > 0 && o.binary > 0 {
				parts = append(parts, "binary "+checked(float64(k.binary), float64(o.binary), targetBinaryRatio))
			}
			lines = append(lines, fmt.Sprintf("- %s, kitgen / ogen: %s.", k.doc, strings.Join(parts, ", ")))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
	if g, ok := growthLine(points); ok {
		fmt.Fprintf(w, "\nGrowth over %s operations: %.1f ms CPU (target ≤ %d: %s), %.2f MB peak RSS (target ≤ %.1f: %s), %.1f functions and %.1f instantiations per operation.\n",
			g.counts, g.cpu.slope*1000, targetOpCPUms, met(g.cpu.slope*1000 <= targetOpCPUms),
			g.rss.slope, targetOpRSSMB, met(g.rss.slope <= targetOpRSSMB), g.funcs.slope, g.insts.slope)
	}
}

// checked formats a/b as a ratio with the target it is held to.
func checked(a, b, target float64) string {
	if b <= 0 {
		return "—"
	}
	return fmt.Sprintf("%s (target ≤ %.2g×: %s)", ratio(a, b), target, met(a/b <= target))
}

// met is "met" or "missed".
func met(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// growth is the least-squares lines through the growth points.
type growth struct {
	counts                 string // the operation counts, "100/200/400/767"
	cpu, rss, funcs, insts line
}

// growthLine fits the lines through the points that compiled; ok is false
// with fewer than two.
func growthLine(points []result) (growth, bool) {
	var ops, cpus, rsss, funcs, insts []float64
	var counts []string
	for _, p := range points {
		cpu, rss, ok := p.cost()
		if !ok || p.ops <= 0 || p.err != "" {
			continue
		}
		counts = append(counts, fmt.Sprint(p.ops))
		ops = append(ops, float64(p.ops))
		cpus = append(cpus, cpu.Seconds())
		rsss = append(rsss, float64(rss)/1e6)
		funcs = append(funcs, float64(p.funcs.total))
		insts = append(insts, float64(p.funcs.instantiated))
	}
	var g growth
	var err error
	if g.cpu, err = fitLine(ops, cpus); err != nil {
		return g, false
	}
	g.rss, _ = fitLine(ops, rsss)
	g.funcs, _ = fitLine(ops, funcs)
	g.insts, _ = fitLine(ops, insts)
	g.counts = strings.Join(counts, "/")
	return g, true
}

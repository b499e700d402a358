package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// growth measures t on subsets of d's operations, of each of counts
// operations (those not below the document's own number are left out:
// the whole document is measured on its own), each written as a trimmed
// copy of the document (subsetDocument).
func (r *runner) growth(d doc, t tool, spec string, counts []int, repeats int) []result {
	data, err := os.ReadFile(spec)
	if err != nil {
		fmt.Fprintf(r.log, "openapi: growth line: %v\n", err)
		return nil
	}
	dir := filepath.Join(r.work, "subsets")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(r.log, "openapi: growth line: %v\n", err)
		return nil
	}
	var out []result
	for _, n := range counts {
		text, kept, err := subsetDocument(data, n)
		if err != nil {
			fmt.Fprintf(r.log, "openapi: growth line: %s: %v\n", d.file, err)
			return out
		}
		if kept < n {
			continue
		}
		sub := doc{
			file:  d.pkg + "-" + strconv.Itoa(n) + filepath.Ext(d.file),
			pkg:   d.pkg,
			label: fmt.Sprintf("%s, %d operations", d.file, n),
			dir:   d.pkg + "-" + strconv.Itoa(n),
		}
		path := filepath.Join(dir, sub.file)
		if err := os.WriteFile(path, text, 0o644); err != nil {
			fmt.Fprintf(r.log, "openapi: growth line: %v\n", err)
			return out
		}
		res := r.measure(sub, t, path, repeats)
		res.ops = generatedOps(kept, res.skipped)
		fmt.Fprintf(r.log, "openapi: %s with %s: %s\n", sub.label, t.name, res.summary())
		out = append(out, res)
	}
	return out
}

// Package gen is kitgen: it reads a package's //kit: declarations (roots,
// endpoint interfaces, resource fields) with go/types, checks them against
// kit's routing rules, and writes the package's kit_gen.go. The kitgen
// command's doc describes its use.
package gen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultOutput is the name of the generated file.
const DefaultOutput = "kit_gen.go"

// Generate reads the declarations of the package in dir and returns the
// source of its generated file: nil when the package has no //kit:client
// type. Declaration mistakes come back as diagnostics, sorted; err is for
// failures to run at all.
func Generate(dir, output string, tags []string) (src []byte, diags []Diag, err error) {
	g, diags, err := analyze(dir, output, tags)
	if err != nil || len(diags) > 0 || len(g.model.Roots) == 0 {
		return nil, diags, err
	}
	src, err = g.emit()
	return src, nil, err
}

// analyze loads the package in dir and reads its declarations. The
// diagnostics are sorted.
func analyze(dir, output string, tags []string) (*generator, []Diag, error) {
	if output == "" {
		output = DefaultOutput
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	pkg, diags, err := load(fset, dir, output, tags)
	if err != nil || len(diags) > 0 {
		sortDiags(diags)
		return nil, diags, err
	}
	g := &generator{fset: fset, pkg: pkg.types, info: pkg.info, files: pkg.files, output: output}
	g.build()

	// Type errors inside the declarations come first, as the compiler
	// prints them: the rest would only follow from them. Those elsewhere
	// (typically uses of what kitgen generates) are ignored.
	var typeDiags []Diag
	for _, te := range pkg.typeErrors {
		if g.inDeclarations(te.Pos) {
			typeDiags = append(typeDiags, Diag{Position: fset.Position(te.Pos), Msg: te.Msg})
		}
	}
	if len(typeDiags) > 0 {
		sortDiags(typeDiags)
		return g, typeDiags, nil
	}
	sortDiags(g.diags)
	return g, g.diags, nil
}

// inDeclarations reports whether pos is inside one of the type
// declarations kitgen read.
func (g *generator) inDeclarations(pos token.Pos) bool {
	var specs []*ast.TypeSpec
	for _, r := range g.model.Roots {
		specs = append(specs, g.specs[r.Obj])
	}
	for _, rs := range g.model.Structs {
		specs = append(specs, g.specs[rs.Obj])
	}
	for tn := range g.ifaces {
		specs = append(specs, g.specs[tn])
	}
	for ts := range g.docs {
		// Roots with errors are not in the model; their declarations count.
		if hasVerb(g.lines[g.docs[ts]], "client") {
			specs = append(specs, ts)
		}
	}
	for _, ts := range specs {
		if ts != nil && ts.Pos() <= pos && pos < ts.End() {
			return true
		}
	}
	return false
}

// Config is one run of kitgen over a list of package directories.
type Config struct {
	Output  string    // file name of the output in each directory; "" means DefaultOutput
	Tags    []string  // build tags
	Check   bool      // write nothing; fail when an output is not up to date
	WorkDir string    // messages name files relative to it; "" means the current directory
	Stderr  io.Writer // diagnostics
}

// Run generates the output of each directory and reports whether all
// succeeded. Diagnostics are printed in the compiler's form, at most 10 per
// package; a package with errors keeps its old output.
func Run(cfg Config, dirs []string) bool {
	if cfg.Output == "" {
		cfg.Output = DefaultOutput
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir, _ = os.Getwd()
	}
	ok := true
	for _, dir := range dirs {
		if err := runDir(cfg, dir); err != nil {
			ok = false
			if !errors.Is(err, errReported) {
				fmt.Fprintf(cfg.Stderr, "kitgen: %v\n", err)
			}
		}
	}
	return ok
}

// errReported is returned once the diagnostics of a directory are printed.
var errReported = errors.New("reported")

func runDir(cfg Config, dir string) error {
	src, diags, err := Generate(dir, cfg.Output, cfg.Tags)
	if err != nil {
		return err
	}
	if len(diags) > 0 {
		printDiags(cfg.Stderr, diags, cfg.WorkDir)
		return errReported
	}
	abs, err := filepath.Abs(filepath.Join(dir, cfg.Output))
	if err != nil {
		return err
	}
	rel := abs
	if r, err := filepath.Rel(cfg.WorkDir, abs); err == nil {
		rel = r
	}
	old, err := os.ReadFile(abs)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	ours := exists && isGenerated(old)
	switch {
	case src == nil && !ours:
		return nil // nothing declared, nothing of ours to remove
	case src == nil && cfg.Check:
		fmt.Fprintf(cfg.Stderr, "%s is out of date: run go generate (no //kit:client remains)\n", rel)
		return errReported
	case src == nil:
		return os.Remove(abs)
	case exists && !ours:
		fmt.Fprintf(cfg.Stderr, "%s: not written by kitgen (no %q line); kitgen never overwrites it: rename it, or choose another output with -o\n", rel, Header)
		return errReported
	case bytes.Equal(old, src):
		return nil
	case cfg.Check:
		fmt.Fprintf(cfg.Stderr, "%s is out of date: run go generate\n", rel)
		return errReported
	}
	return writeFile(abs, src)
}

// isGenerated reports whether a file starts, before its package clause,
// with kitgen's header line.
func isGenerated(src []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == Header {
			return true
		}
		if strings.HasPrefix(line, "package ") {
			return false
		}
	}
	return false
}

// writeFile replaces path with src through a temporary file in the same
// directory, so a reader never sees half a file.
func writeFile(path string, src []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".kitgen-*.go.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

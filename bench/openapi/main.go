// Command openapi compares kitgen openapi with ogen and oapi-codegen on the
// OpenAPI documents of kit's test corpus, in one run: for each document and
// each generator it records whether generation succeeded (with the tool's
// error), the operations the tool says it skipped, the generated Go lines,
// the generation time and the generated package's compile time, then prints
// a Markdown table.
//
// Run it from the bench module:
//
//	cd bench && go run ./openapi
//
// The corpus is read from $KIT_OPENAPI_CORPUS, else from
// ../shared/openapi-corpus beside the repository (-corpus overrides both);
// when it is absent the command says so and exits with status 0. kitgen is
// built from this repository; ogen and oapi-codegen at the versions bench's
// go.mod pins with tool directives. See method.go for how each figure is
// measured.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "openapi:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("openapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	corpus := fs.String("corpus", "", "directory of the OpenAPI corpus (default $KIT_OPENAPI_CORPUS, else ../shared/openapi-corpus beside the repository)")
	repeats := fs.Int("n", 3, "compile each generated package `n` times (the table gives the fastest and the slowest)")
	docsFlag := fs.String("docs", "", "comma-separated document files to keep (default: all)")
	toolsFlag := fs.String("tools", "", "comma-separated generators to keep: kitgen, ogen, oapi-codegen (default: all)")
	keep := fs.Bool("keep", false, "keep the work directory (generated modules and tool logs) and print its path")
	timeout := fs.Duration("timeout", 30*time.Minute, "limit for each command the comparison runs")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *repeats < 1 {
		return fmt.Errorf("-n %d: want at least 1", *repeats)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	benchDir, root, err := findDirs(ctx)
	if err != nil {
		return err
	}
	dir := *corpus
	if dir == "" {
		dir = os.Getenv("KIT_OPENAPI_CORPUS")
	}
	if dir == "" {
		dir = filepath.Join(root, "..", "shared", "openapi-corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		fmt.Fprintf(stderr, "openapi: the OpenAPI corpus is not beside this clone (%v): nothing to compare (set KIT_OPENAPI_CORPUS or -corpus)\n", err)
		return nil
	}
	docs, err := selectDocs(corpusDocs, *docsFlag)
	if err != nil {
		return err
	}
	tools, err := selectTools(allTools, *toolsFlag)
	if err != nil {
		return err
	}

	work, err := os.MkdirTemp("", "kit-openapi-compare-")
	if err != nil {
		return fmt.Errorf("creating the work directory: %w", err)
	}
	if *keep {
		fmt.Fprintf(stderr, "openapi: work directory %s (kept)\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	r := &runner{
		ctx: ctx, log: stderr, timeout: *timeout,
		bench: benchDir, root: root, work: work, gocache: filepath.Join(work, "gocache"),
	}
	if err := r.prepare(tools); err != nil {
		return err
	}

	var results []result
	for _, d := range docs {
		spec := filepath.Join(dir, d.file)
		if err := d.check(spec); err != nil {
			fmt.Fprintf(stderr, "openapi: skipping %s: %v\n", d.file, err)
			continue
		}
		for _, t := range tools {
			res := r.measure(d, t, spec, *repeats)
			results = append(results, res)
			fmt.Fprintf(stderr, "openapi: %s with %s: %s\n", d.file, t.name, res.summary())
		}
	}
	if len(results) == 0 {
		return fmt.Errorf("no document of the corpus in %s could be read", dir)
	}
	fmt.Fprintf(stdout, "%s\n\n", header(r.versions, *repeats, r.machine()))
	writeTable(stdout, results)
	writeNotes(stdout, results)
	return nil
}

// selectDocs keeps the documents named in a comma-separated list (all
// when it is empty).
func selectDocs(all []doc, list string) ([]doc, error) {
	if list == "" {
		return all, nil
	}
	var out []doc
	for name := range strings.SplitSeq(list, ",") {
		found := false
		for _, d := range all {
			if d.file == strings.TrimSpace(name) {
				out, found = append(out, d), true
			}
		}
		if !found {
			return nil, fmt.Errorf("-docs: %q is not a corpus document", name)
		}
	}
	return out, nil
}

// selectTools keeps the generators named in a comma-separated list (all
// when it is empty).
func selectTools(all []tool, list string) ([]tool, error) {
	if list == "" {
		return all, nil
	}
	var out []tool
	for name := range strings.SplitSeq(list, ",") {
		found := false
		for _, t := range all {
			if t.name == strings.TrimSpace(name) {
				out, found = append(out, t), true
			}
		}
		if !found {
			return nil, fmt.Errorf("-tools: %q is not one of kitgen, ogen, oapi-codegen", name)
		}
	}
	return out, nil
}

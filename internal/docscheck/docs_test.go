package docscheck

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode"
)

// docFiles are the Markdown files whose go blocks are checked, as globs
// relative to the repository root.
var docFiles = []string{"README.md", "docs/*.md", "cmd/kitgen/README.md"}

// block is one ```go fenced block of a Markdown file.
type block struct {
	file string // relative to the repository root
	line int    // of the block's first line of code
	src  string
}

func (b block) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// complete reports whether the block is a whole Go file (it starts with a
// package clause, after comments), to be built and vetted.
func (b block) complete() bool {
	for _, l := range strings.Split(b.src, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		return strings.HasPrefix(l, "package ")
	}
	return false
}

// TestDocsFragments parses every go block that is not a complete file, as
// top-level declarations or else as the body of a function: a fragment
// need not compile on its own (it uses names declared elsewhere), but it
// must be Go. Write an elided part as a comment (// ...), never as "...".
func TestDocsFragments(t *testing.T) {
	blocks := readBlocks(t)
	n := 0
	for _, b := range blocks {
		if b.complete() {
			continue
		}
		n++
		if err := parseFragment(b.src); err != nil {
			t.Errorf("%s: go block is not Go, as declarations or as statements: %v", b, err)
		}
	}
	if n == 0 {
		t.Fatal("no go fragments found in the documentation: is the Markdown parsing broken?")
	}
	t.Logf("%d fragments parsed", n)
}

// parseFragment parses src as a file's declarations, or else as a
// function's body, and returns the error of the second attempt with lines
// counted from the fragment's first line.
func parseFragment(src string) error {
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "", "package p\n"+src, parser.SkipObjectResolution); err == nil {
		return nil
	}
	// The function body starts on line 3: line n of the fragment is n+2.
	_, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+src+"\n}\n", parser.SkipObjectResolution)
	if err == nil {
		return nil
	}
	return errors.New(regexp.MustCompile(`^(\d+):`).ReplaceAllStringFunc(err.Error(), func(s string) string {
		var n int
		fmt.Sscanf(s, "%d:", &n)
		return fmt.Sprintf("line %d:", n-2)
	}))
}

// TestDocsPrograms vets every go block that is a complete file,
// each as a package of its own in a module that requires kit from this
// checkout, and builds and runs the main programs (they must run offline: kittest's
// demo API on loopback, as the README's Quick start does). A complete
// file must also be gofmt-formatted. A file that imports package testing
// is written as a _test.go file, which go vet compiles and go test runs.
func TestDocsPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the documentation's programs with the go command")
	}
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		t.Skipf("no go command beside the test's GOROOT: %v", err)
	}
	root := repoRoot(t)
	mod := t.TempDir()
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(readFile(t, filepath.Join(root, "go.mod")))
	if goVersion == nil {
		t.Fatal("go.mod has no go directive")
	}
	goMod := fmt.Sprintf("module kitdocs\n\ngo %s\n\nrequire github.com/kithttp/kit v0.0.0\n\nreplace github.com/kithttp/kit => %s\n", goVersion[1], root)
	write(t, filepath.Join(mod, "go.mod"), goMod)
	write(t, filepath.Join(mod, "go.sum"), string(goSum))

	var mains []string // directories of main packages, for their binaries' names
	var tests []string // packages of test files, to run
	where := map[string]block{}
	for _, b := range readBlocks(t) {
		if !b.complete() {
			continue
		}
		if formatted, err := format.Source([]byte(b.src)); err != nil {
			t.Errorf("%s: %v", b, err)
			continue
		} else if string(formatted) != b.src {
			t.Errorf("%s: go block is not gofmt-formatted", b)
		}
		if m := regexp.MustCompile(`"github\.com/kithttp/kit/(kitoauth2|kitredis|kitotel)[/"]`).FindStringSubmatch(b.src); m != nil {
			t.Errorf("%s: a complete file imports %s, a module of its own this test does not build: make the block a fragment (no package clause)", b, m[1])
			continue
		}
		dir := fmt.Sprintf("b%02d", len(where)+1)
		where[dir] = b
		name := "block.go"
		if strings.Contains(b.src, `"testing"`) {
			name = "block_test.go"
			tests = append(tests, "./"+dir)
		}
		write(t, filepath.Join(mod, dir, name), b.src)
		if regexp.MustCompile(`(?m)^package main$`).MatchString(b.src) {
			mains = append(mains, dir)
		}
	}
	if len(where) == 0 {
		t.Fatal("no complete go files found in the documentation; the README's Quick start should be one")
	}
	t.Logf("%d complete files vetted: %d main programs built and run, %d test files run", len(where), len(mains), len(tests))

	bin := t.TempDir()
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	run := func(args ...string) {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir, cmd.Env = mod, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, blame(string(out), where))
		}
	}
	run("vet", "./...") // type-checks every package, its tests included
	if len(mains) > 0 {
		args := []string{"build", "-o", bin + string(filepath.Separator)}
		for _, dir := range mains {
			args = append(args, "./"+dir)
		}
		run(args...)
	}
	if len(tests) > 0 {
		run(append([]string{"test", "-count=1"}, tests...)...)
	}
	for _, dir := range mains {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, dir))
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("%s: the program fails: %v\n%s", where[dir], err, out)
		}
	}
}

// blame rewrites the go command's "bNN/block.go:12:3" positions as the
// Markdown file and line they come from.
func blame(out string, where map[string]block) string {
	return regexp.MustCompile(`(?:\./)?(b\d\d)/block(?:_test)?\.go:(\d+)`).ReplaceAllStringFunc(out, func(s string) string {
		m := regexp.MustCompile(`(b\d\d)/block(?:_test)?\.go:(\d+)`).FindStringSubmatch(s)
		b, ok := where[m[1]]
		if !ok {
			return s
		}
		var n int
		fmt.Sscanf(m[2], "%d", &n)
		return fmt.Sprintf("%s:%d", b.file, b.line+n-1)
	})
}

// TestDocsLinks checks that every relative link of the documentation names
// a file or directory of the repository.
func TestDocsLinks(t *testing.T) {
	root := repoRoot(t)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, name := range docNames(t) {
		for _, m := range link.FindAllStringSubmatch(prose(readFile(t, filepath.Join(root, name))), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, filepath.Dir(name), filepath.FromSlash(target))); err != nil {
				t.Errorf("%s: link to %s: no such file in the repository", name, m[1])
			}
		}
	}
}

// TestDocsAnchors checks that every link to a section of a Markdown file
// of the repository (guide.md#section) names one of its headings, as
// GitHub makes their anchors.
func TestDocsAnchors(t *testing.T) {
	root := repoRoot(t)
	link := regexp.MustCompile(`\]\(([^)\s]*#[^)\s]+)\)`)
	anchors := map[string]map[string]bool{} // by file, relative to the root
	for _, name := range docNames(t) {
		for _, m := range link.FindAllStringSubmatch(prose(readFile(t, filepath.Join(root, name))), -1) {
			target, anchor, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || (target != "" && !strings.HasSuffix(target, ".md")) {
				continue
			}
			file := name
			if target != "" {
				file = filepath.Join(filepath.Dir(name), filepath.FromSlash(target))
			}
			if anchors[file] == nil {
				text, err := os.ReadFile(filepath.Join(root, file))
				if err != nil {
					continue // TestDocsLinks reports it
				}
				anchors[file] = headingAnchors(text)
			}
			if !anchors[file][anchor] {
				t.Errorf("%s: link to %s: %s has no heading whose anchor is #%s", name, m[1], filepath.ToSlash(file), anchor)
			}
		}
	}
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown text: lower case, spaces as hyphens, other punctuation
// dropped, and -1, -2... after a repeated one.
func headingAnchors(text []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "```") {
			fenced = !fenced
			continue
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(title)) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		out[a] = true
	}
	return out
}

// TestEveryGuideLinked checks that the README and the guides' index
// (docs/README.md) each link every guide of docs/.
func TestEveryGuideLinked(t *testing.T) {
	root := repoRoot(t)
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := prose(readFile(t, filepath.Join(root, "README.md")))
	index := prose(readFile(t, filepath.Join(root, "docs", "README.md")))
	for _, g := range guides {
		base := filepath.Base(g)
		if base == "README.md" {
			continue
		}
		if !regexp.MustCompile(`\]\(docs/` + regexp.QuoteMeta(base) + `[#)]`).MatchString(readme) {
			t.Errorf("README.md does not link docs/%s: give it its paragraph and link", base)
		}
		if !regexp.MustCompile(`\]\(` + regexp.QuoteMeta(base) + `[#)]`).MatchString(index) {
			t.Errorf("docs/README.md does not list %s", base)
		}
	}
	if len(guides) < 2 {
		t.Fatalf("found %d guides in docs/: is the glob wrong?", len(guides))
	}
}

// prose returns a Markdown text without its code blocks and code spans.
func prose(text []byte) string {
	var b strings.Builder
	fenced := false
	code := regexp.MustCompile("`[^`]*`")
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(code.ReplaceAllString(line, ""))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestReadmeStartsWithTheTwoCommands keeps the README's first code block
// what a newcomer runs first, before any section: the tour and the tests.
func TestReadmeStartsWithTheTwoCommands(t *testing.T) {
	text := string(readFile(t, filepath.Join(repoRoot(t), "README.md")))
	first, _, _ := strings.Cut(text, "\n## ")
	_, fence, ok := strings.Cut(first, "```sh\n")
	fence, _, _ = strings.Cut(fence, "```")
	if !ok || !strings.Contains(fence, "go run ./examples/tour") || !strings.Contains(fence, "go test ./...") {
		t.Errorf("README.md: the first code block, before any section, should hold `go run ./examples/tour` and `go test ./...`; it is %q", fence)
	}
}

// readBlocks returns the go blocks of the documentation, in file order.
func readBlocks(t *testing.T) []block {
	t.Helper()
	root := repoRoot(t)
	var blocks []block
	for _, name := range docNames(t) {
		blocks = append(blocks, goBlocks(t, name, readFile(t, filepath.Join(root, name)))...)
	}
	return blocks
}

// goBlocks returns the ```go blocks of one Markdown file. A fence may be
// indented (in a list); its indentation is taken off the block's lines.
func goBlocks(t *testing.T, name string, text []byte) []block {
	t.Helper()
	var blocks []block
	var cur *block
	var indent string
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			if strings.TrimSpace(strings.TrimPrefix(trimmed, "```")) == "go" {
				cur = &block{file: name, line: n + 1}
				indent = line[:len(line)-len(trimmed)]
			} else {
				cur = &block{file: name, line: -1} // another language: skipped
			}
			lines = lines[:0]
		case cur != nil && strings.HasPrefix(trimmed, "```"):
			if cur.line > 0 {
				cur.src = strings.Join(lines, "\n") + "\n"
				blocks = append(blocks, *cur)
			}
			cur = nil
		case cur != nil:
			lines = append(lines, strings.TrimPrefix(line, indent))
		}
	}
	if cur != nil {
		t.Errorf("%s: a code block is never closed", name)
	}
	return blocks
}

// docNames expands docFiles.
func docNames(t *testing.T) []string {
	t.Helper()
	root := repoRoot(t)
	var names []string
	for _, g := range docFiles {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, filepath.ToSlash(rel))
		}
	}
	return names
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

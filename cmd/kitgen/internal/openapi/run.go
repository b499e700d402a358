package openapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kithttp/kit/cmd/kitgen/internal/gen"
	"github.com/kithttp/kit/cmd/kitgen/internal/safetext"
)

// Config is what kitgen openapi is asked to do.
type Config struct {
	Spec    string   // the document
	Dir     string   // the package directory to write; "" is the current directory
	Package string   // the package name; "" takes the directory's
	Ops     string   // comma-separated globs of operationIds to keep; "" keeps all
	Tags    []string // keep only operations with one of these tags; nil keeps all
	Config  string   // a -config file naming pagination; "" when none
	// Overlays are OpenAPI Overlay 1.0 files applied to the document, in
	// order, before it is read.
	Overlays []string
	Remote   bool // follow $refs to http(s) URLs; Spec may be a URL
	Check    bool // write nothing; fail when a file is not up to date
	// Env is the prefix of the environment variables New reads the base
	// URL and the security schemes' secrets from ("" for none): -env.
	Env string
	// Docs writes api.md beside the package: every method, its
	// signature, a usage snippet and its pagination (-docs).
	Docs bool
	// Embed embeds the interfaces of the operations in Client, as kitgen
	// wrote it before named group fields (-embed). The flag is deprecated:
	// embedding makes the compiler write two wrapper functions per
	// operation; it goes in the next version.
	Embed  bool
	Stdout io.Writer
}

// Output is the file kitgen openapi writes; kitgen's own pass writes
// gen.DefaultOutput beside it, and client.go is written when absent.
const Output = "openapi_gen.go"

// ErrStale is returned by a -check run that finds a file not up to date.
var ErrStale = errors.New("generated files are not up to date")

// Report is what a run emitted and skipped.
type Report struct {
	Operations int
	Emitted    []string       // "GET /path Name"
	Skipped    []Skip         // with reasons
	Paginated  map[string]int // paginator kind → operations
	Notes      []Note         // remarks on the document: renamed operations, impossible schemas
	// Pagination lists every paginated method, with its paginator and
	// the evidence for it, and every method that looks paged but is
	// generated as one page (Paginator ""): what -v prints.
	Pagination []PagedOp
	// Pollers lists every long-running operation, whose method starts it
	// and returns a *kit.Poller, with the evidence: what -v prints.
	Pollers []PolledOp
}

// PolledOp is one long-running operation of the report.
type PolledOp struct {
	Pos          Pos
	Method, Path string
	Name         string // the Go method
	Result       string // the poller's result type, as Go
	Evidence     string // what in the document says so, and how it is polled
}

// PagedOp is one method of the report's pagination listing.
type PagedOp struct {
	Pos          Pos
	Method, Path string
	Name         string // the Go method
	Paginator    string // the kit paginator, as Go; "" when one page
	Evidence     string // what in the document (or the -config file) says so
}

// Run imports the document, writes the package and returns the report.
// Nothing is left half written: on an error the files are as they were.
func Run(cfg Config) (*Report, error) {
	var doc *Doc
	var err error
	if cfg.Remote {
		doc, err = LoadRemote(context.Background(), cfg.Spec, nil, cfg.Overlays...)
	} else {
		doc, err = Load(cfg.Spec, cfg.Overlays...)
	}
	if err != nil {
		return nil, err
	}
	if cfg.Env != "" && !envPrefixRE.MatchString(cfg.Env) {
		return nil, fmt.Errorf("kitgen openapi: -env %s: not an environment variable prefix (letters, digits and _)", strconv.Quote(cfg.Env))
	}
	var conf *ConfigFile
	if cfg.Config != "" {
		if conf, err = LoadConfig(cfg.Config); err != nil {
			return nil, err
		}
		if err := checkConfig(doc, conf); err != nil {
			return nil, err
		}
	}
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	pkg := cfg.Package
	if pkg == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		pkg = packageName(filepath.Base(abs))
	}
	if !token.IsIdentifier(pkg) || pkg == "_" {
		return nil, fmt.Errorf("kitgen openapi: -package %q: not a Go package name", pkg)
	}
	files := []string{Output, gen.DefaultOutput, "client.go", APIDoc}
	saved := map[string][]byte{}
	for _, f := range files {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			saved[f] = b
		}
	}
	restore := func() {
		for _, f := range files {
			if b, ok := saved[f]; ok {
				os.WriteFile(filepath.Join(dir, f), b, 0o644)
			} else {
				os.Remove(filepath.Join(dir, f))
			}
		}
	}
	rep, written, err := generate(doc, conf, cfg, dir, pkg, saved["client.go"])
	if err != nil {
		restore()
		return rep, err
	}
	if cfg.Check {
		restore()
		var stale []string
		for _, f := range files {
			if b, ok := written[f]; ok && !bytes.Equal(b, saved[f]) {
				stale = append(stale, filepath.Join(dir, f))
			}
		}
		if len(stale) > 0 {
			return rep, fmt.Errorf("%s: %w (run go generate)", strings.Join(stale, ", "), ErrStale)
		}
	}
	return rep, nil
}

func generate(doc *Doc, conf *ConfigFile, cfg Config, dir, pkg string, client []byte) (*Report, map[string][]byte, error) {
	written := map[string][]byte{}
	write := func(name string, b []byte) error {
		written[name] = b
		return os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	// The client.go of the first run: kitgen's pass needs the package to
	// exist; later runs leave it to the user but for its go:generate line,
	// which says how the package is regenerated: the flags of this run.
	if client == nil {
		if err := write("client.go", clientFile(doc, cfg, dir, pkg)); err != nil {
			return nil, nil, err
		}
	} else if b, ok := rewriteGenerateLine(client, generateLine(cfg, dir, pkg)); ok {
		if err := write("client.go", b); err != nil {
			return nil, nil, err
		}
	}
	drop := map[*Operation]string{}
	for round := 0; ; round++ {
		g := newGenerator(doc, pkg, cfg.Spec)
		g.opsGlob, g.tags, g.drop, g.config = cfg.Ops, cfg.Tags, drop, conf
		g.setEnv(cfg.Env)
		g.embed = cfg.Embed
		g.build()
		src, lines, err := g.file()
		if err != nil {
			return nil, nil, err
		}
		if err := write(Output, src); err != nil {
			return nil, nil, err
		}
		kitSrc, diags, err := gen.Generate(dir, gen.DefaultOutput, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("kitgen %s: %w", dir, err)
		}
		if len(diags) == 0 {
			if kitSrc != nil {
				if err := write(gen.DefaultOutput, kitSrc); err != nil {
					return nil, nil, err
				}
			}
			if cfg.Docs {
				if err := write(APIDoc, g.apiDoc()); err != nil {
					return nil, nil, err
				}
			}
			return g.report(doc), written, nil
		}
		// Each problem kitgen finds in a method skips that operation, with
		// kitgen's words; one it finds elsewhere is this importer's bug.
		progress := false
		for _, d := range diags {
			m := methodAt(lines, d.Position.Filename, d.Position.Line)
			if m == nil {
				return nil, nil, fmt.Errorf("kitgen openapi: the generated %s does not check (a bug; please report it with the document): %s:%d:%d: %s",
					Output, filepath.Base(d.Position.Filename), d.Position.Line, d.Position.Column, d.Msg)
			}
			if _, done := drop[m.op]; !done {
				drop[m.op] = "kitgen: " + d.Msg
				progress = true
			}
		}
		if !progress || round > len(doc.Ops) {
			return nil, nil, fmt.Errorf("kitgen openapi: no progress dropping operations kitgen refuses")
		}
	}
}

func methodAt(lines map[*method][2]int, file string, line int) *method {
	if filepath.Base(file) != Output {
		return nil
	}
	for m, r := range lines {
		if line >= r[0] && line <= r[1] {
			return m
		}
	}
	return nil
}

func (g *generator) report(doc *Doc) *Report {
	r := &Report{Paginated: map[string]int{}}
	seen := map[*Operation]bool{}
	for _, m := range g.methods {
		r.Emitted = append(r.Emitted, m.op.Method+" "+m.op.Path+" "+m.name)
		if m.paginator != "" {
			r.Paginated[m.paginator]++
		}
		seen[m.op] = true
	}
	r.Skipped = append(append(r.Skipped, doc.Skipped...), g.skipped...)
	r.Notes = append(append([]Note(nil), doc.Notes...), g.notes...)
	for _, m := range g.methods {
		if w := g.paging[m]; w != nil {
			r.Pagination = append(r.Pagination, PagedOp{Pos: m.op.Pos, Method: m.op.Method, Path: m.op.Path, Name: m.name, Paginator: w.paginator, Evidence: w.evidence})
			if w.note != "" {
				r.Notes = append(r.Notes, Note{Pos: m.op.Pos, Msg: w.note})
			}
		}
	}
	for _, m := range g.methods {
		if l := m.poller; l != nil {
			res := strings.TrimSuffix(strings.TrimPrefix(m.result, "(*kit.Poller["), "], error)")
			r.Pollers = append(r.Pollers, PolledOp{Pos: m.op.Pos, Method: m.op.Method, Path: m.op.Path, Name: m.name, Result: res, Evidence: strings.Join(l.evidence, "; ")})
			if l.note != "" {
				r.Notes = append(r.Notes, Note{Pos: m.op.Pos, Msg: l.note})
			}
		}
	}
	r.Operations = len(doc.Ops) + len(doc.Skipped)
	return r
}

// Print writes the report: a summary line, then one line per skipped
// operation, file:line:col first, then the notes. Line breaks and other
// characters a terminal does not print are written as Go escapes (\n).
func (r *Report) Print(w io.Writer, spec string) {
	var names []string
	for k := range r.Paginated {
		names = append(names, k)
	}
	sort.Strings(names)
	var kinds []string
	for _, k := range names {
		kinds = append(kinds, fmt.Sprintf("%d %s", r.Paginated[k], k))
	}
	pag := "none"
	if len(kinds) > 0 {
		pag = strings.Join(kinds, ", ")
	}
	// Each line is the document's text as much as kitgen's: written with
	// its line breaks and controls escaped, it is one line on a terminal.
	line := func(format string, args ...any) {
		fmt.Fprintln(w, safetext.Terminal(fmt.Sprintf(format, args...)))
	}
	pollers := ""
	if len(r.Pollers) > 0 {
		pollers = fmt.Sprintf("; pollers: %d", len(r.Pollers))
	}
	line("kitgen openapi: %s: %d operations, %d methods, %d skipped; paginated: %s%s",
		filepath.Base(spec), r.Operations, len(r.Emitted), len(r.Skipped), pag, pollers)
	for _, s := range r.Skipped {
		line("%s: skipped %s %s: %s", s.Pos, s.Method, s.Path, s.Reason)
	}
	for _, n := range r.Notes {
		line("%s: note: %s", n.Pos, n.Msg)
	}
}

// PrintPagination writes the pagination listing (-v): one line per
// paginated method, file:line:col first, with its paginator and the
// evidence, and one per method that looks paged but is one page.
func (r *Report) PrintPagination(w io.Writer) {
	for _, p := range r.Pagination {
		s := fmt.Sprintf("%s: paginated %s %s (%s) by %s: %s", p.Pos, p.Method, p.Path, p.Name, p.Paginator, p.Evidence)
		if p.Paginator == "" {
			s = fmt.Sprintf("%s: one page %s %s (%s): %s", p.Pos, p.Method, p.Path, p.Name, p.Evidence)
		}
		fmt.Fprintln(w, safetext.Terminal(s))
	}
}

// PrintPollers writes the long-running operations (-v): one line per
// method that starts one and returns its poller, file:line:col first,
// with the poller's result and the evidence.
func (r *Report) PrintPollers(w io.Writer) {
	for _, p := range r.Pollers {
		fmt.Fprintln(w, safetext.Terminal(fmt.Sprintf("%s: poller %s %s (%s) of %s: %s", p.Pos, p.Method, p.Path, p.Name, p.Result, p.Evidence)))
	}
}

// packageName makes a package name of a directory name.
func packageName(base string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' && b.Len() > 0 {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "api"
	}
	return b.String()
}

// relativeTo returns file as a slash path relative to dir when it can.
func relativeTo(dir, file string) string {
	if absFile, err := filepath.Abs(file); err == nil {
		if absDir, err := filepath.Abs(dir); err == nil {
			if rel, err := filepath.Rel(absDir, absFile); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.ToSlash(file)
}

// generatePrefix starts the go:generate line of client.go that runs
// kitgen openapi.
const generatePrefix = "//go:generate go tool kitgen openapi "

// rewriteGenerateLine replaces client.go's line that starts with
// generatePrefix with line, and reports whether that changed the file. A
// client.go without such a line (the user wrote their own) is left alone.
func rewriteGenerateLine(client []byte, line string) ([]byte, bool) {
	lines := strings.SplitAfter(string(client), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, generatePrefix) {
			continue
		}
		nl := ""
		if strings.HasSuffix(l, "\n") {
			nl = "\n"
		}
		if strings.TrimRight(l, "\r\n") == line {
			return client, false
		}
		lines[i] = line + nl
		return []byte(strings.Join(lines, "")), true
	}
	return client, false
}

// generateLine is the go:generate line that runs kitgen openapi as cfg
// does, from the package directory.
func generateLine(cfg Config, dir, pkg string) string {
	spec := cfg.Spec
	if !isRemote(spec) {
		spec = relativeTo(dir, spec)
	}
	args := []string{"-package", pkg}
	if cfg.Ops != "" {
		args = append(args, "-ops", cfg.Ops)
	}
	if len(cfg.Tags) > 0 {
		args = append(args, "-tags", strings.Join(cfg.Tags, ","))
	}
	if cfg.Config != "" {
		args = append(args, "-config", relativeTo(dir, cfg.Config))
	}
	for _, o := range cfg.Overlays {
		args = append(args, "-overlay", relativeTo(dir, o))
	}
	if cfg.Remote {
		args = append(args, "-remote")
	}
	if cfg.Env != "" {
		args = append(args, "-env", cfg.Env)
	}
	if cfg.Docs {
		args = append(args, "-docs")
	}
	if cfg.Embed {
		args = append(args, "-embed")
	}
	if strings.HasPrefix(spec, "-") {
		args = append(args, "--") // the spec is not a flag
	}
	args = append(args, spec)
	return generatePrefix + safetext.GenerateArgs(args...)
}

func clientFile(doc *Doc, cfg Config, dir, pkg string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	fmt.Fprintf(&b, "// This file is yours: kitgen openapi writes it once, and afterwards\n// rewrites only its go:generate line, to the flags of the last run.\n\n")
	fmt.Fprintf(&b, "%s\n//go:generate go tool kitgen\n\n", generateLine(cfg, dir, pkg))
	b.WriteString("import \"github.com/kithttp/kit\"\n\n")
	base := ""
	if len(doc.Servers) > 0 {
		base = doc.Servers[0]
	}
	fmt.Fprintf(&b, "// DefaultBaseURL is the first server the document names.\nconst DefaultBaseURL = %s\n\n", strconv.Quote(base))
	if cfg.Env != "" {
		// The base URL: $PREFIX_BASE_URL, else the document's; the
		// secrets: the caller's options, else the environment's.
		fmt.Fprintf(&b, "// New returns a client of $%s_BASE_URL, or of DefaultBaseURL when it is\n// unset, with the options the environment gives (OptionsFromEnv) and then\n// opts, which win over them: an option the caller gives, then the\n// environment, then the document.\n", envComment(cfg.Env))
		b.WriteString("func New(opts ...kit.Option) (*Client, error) {\n\treturn NewClient(BaseURLFromEnv(DefaultBaseURL), append(OptionsFromEnv(), opts...)...)\n}\n")
		return []byte(b.String())
	}
	b.WriteString("// New returns a client of DefaultBaseURL; pass kit.WithAuth for the API's")
	var schemes []string
	for name := range doc.Security {
		schemes = append(schemes, name)
	}
	sort.Strings(schemes)
	if len(schemes) == 0 {
		b.WriteString("\n// credentials, if it has any.\n")
	} else {
		b.WriteString("\n// credentials. The document's security schemes:\n//\n")
		for _, name := range schemes {
			s := doc.Security[name]
			fmt.Fprintf(&b, "//   - %s: %s\n", safetext.Comment(name), safetext.Comment(authHint(s)))
		}
	}
	b.WriteString("func New(opts ...kit.Option) (*Client, error) {\n\treturn NewClient(DefaultBaseURL, opts...)\n}\n")
	return []byte(b.String())
}

// envComment is an -env prefix as a comment shows it (Run has checked it).
func envComment(prefix string) string { return safetext.Comment(prefix) }

func authHint(s *SecurityScheme) string {
	switch {
	case s.Type == "http" && s.Scheme == "bearer":
		return "kit.WithAuth(kit.Bearer(token))"
	case s.Type == "http" && s.Scheme == "basic":
		return "kit.WithAuth(kit.Basic(user, password))"
	case s.Type == "apiKey" && s.In == "header":
		return fmt.Sprintf("kit.WithAuth(kit.APIKey(%q, key))", s.Param)
	case s.Type == "apiKey" && s.In == "query":
		return fmt.Sprintf("kit.WithAuth(kit.APIKeyQuery(%q, key))", s.Param)
	case s.Type == "oauth2" && s.TokenURL != "":
		return fmt.Sprintf("kit.WithAuth(kitoauth2.Auth(cc.TokenSource(ctx))) with cc a clientcredentials.Config{TokenURL: %q, ...} (github.com/kithttp/kit/kitoauth2, golang.org/x/oauth2/clientcredentials)", s.TokenURL)
	case s.Type == "oauth2":
		return "kit.WithAuth(kitoauth2.Auth(tokenSource)) (github.com/kithttp/kit/kitoauth2)"
	}
	return s.Type + " (no kit helper: write a kit.Auth)"
}

package gen

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// loadMode is what kitgen needs of a package: its syntax and types, not
// those of its dependencies (they come from export data).
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo

// load loads the package in dir (an absolute path) without its tests. The
// output file, if present, is replaced by a bare package clause, so that a
// stale or broken generated file never blocks loading. Errors that make the
// package unusable (no package, syntax errors, go list failures) come back as
// diagnostics; type errors are left in pkg.TypeErrors for the caller to judge.
func load(fset *token.FileSet, dir, output string, tags []string) (*packages.Package, []Diag, error) {
	cfg := &packages.Config{
		Mode:  loadMode,
		Dir:   dir,
		Fset:  fset,
		Tests: false,
	}
	if len(tags) > 0 {
		cfg.BuildFlags = []string{"-tags=" + strings.Join(tags, ",")}
	}
	outPath := filepath.Join(dir, output)
	if _, err := os.Stat(outPath); err == nil {
		name, err := packageName(dir, output)
		if err != nil {
			return nil, nil, err
		}
		cfg.Overlay = map[string][]byte{outPath: []byte("package " + name + "\n")}
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("loading %s: %w", dir, err)
	}
	if len(pkgs) != 1 {
		// go/packages says nothing when go list itself fails (a go.mod in
		// need of go mod tidy, say): ask go list for its message.
		cmd := exec.Command("go", "list", ".")
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		return nil, nil, fmt.Errorf("loading %s: found %d packages, want 1: %s", dir, len(pkgs), strings.TrimSpace(string(out)))
	}
	pkg := pkgs[0]
	// Syntax errors stop kitgen: a declaration may be cut short. go list
	// errors matter only when they left nothing to read (its errors from
	// compiling the package repeat the type errors, which the caller
	// judges by position).
	var diags []Diag
	for _, e := range pkg.Errors {
		if e.Kind == packages.ParseError || (e.Kind != packages.TypeError && len(pkg.Syntax) == 0) {
			diags = append(diags, diagFromPackageError(fset, dir, e))
		}
	}
	if len(diags) == 0 && pkg.Types == nil {
		return nil, nil, fmt.Errorf("loading %s: no type information", dir)
	}
	return pkg, diags, nil
}

// diagFromPackageError turns a go list or parse error into a diagnostic.
// Its position is "file:line:col", "file:line", "file" or "-".
func diagFromPackageError(fset *token.FileSet, dir string, e packages.Error) Diag {
	d := Diag{Msg: e.Msg}
	if e.Pos == "" || e.Pos == "-" {
		d.Position.Filename = dir
		return d
	}
	parts := strings.Split(e.Pos, ":")
	// The file name may itself contain ':'; line and column are the last
	// numeric parts.
	nums := 0
	for i := len(parts) - 1; i > 0 && nums < 2; i-- {
		n := 0
		if _, err := fmt.Sscanf(parts[i], "%d", &n); err != nil || fmt.Sprint(n) != parts[i] {
			break
		}
		nums++
	}
	d.Position.Filename = strings.Join(parts[:len(parts)-nums], ":")
	if nums >= 1 {
		fmt.Sscanf(parts[len(parts)-nums], "%d", &d.Position.Line)
	}
	if nums == 2 {
		fmt.Sscanf(parts[len(parts)-1], "%d", &d.Position.Column)
	}
	return d
}

// packageName reads the package clause of a Go file in dir other than the
// output and test files; with none, that of the output itself.
func packageName(dir, output string) (string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	var fallback string
	for _, name := range names {
		base := filepath.Base(name)
		if strings.HasSuffix(base, "_test.go") {
			continue
		}
		if base == output {
			fallback = name
			continue
		}
		if pkg, err := clause(name); err == nil {
			return pkg, nil
		}
	}
	if fallback != "" {
		if pkg, err := clause(fallback); err == nil {
			return pkg, nil
		}
	}
	return "", errors.New("cannot tell the package name of " + dir)
}

func clause(path string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly)
	if err != nil {
		return "", err
	}
	return f.Name.Name, nil
}

package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

// loadMode asks go list for the package's files, the compiled export data
// of its dependencies and their modules (to check kit's version), nothing
// more: kitgen type-checks the package itself (see load).
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedExportFile | packages.NeedModule

// loaded is the package kitgen reads: its files, without the output, type
// checked.
type loaded struct {
	types      *types.Package
	info       *types.Info
	files      []*ast.File
	typeErrors []types.Error
}

// load loads the package in dir (an absolute path) without its tests, and
// type-checks its files except the output, so that a stale or missing
// output never blocks the load. (An overlay replacing the output with a
// bare package clause does the same through go/packages, but an overlay
// makes it type-check every dependency from source: seconds instead of
// tens of milliseconds.) Dependencies come from their export data, as the
// compiler sees them. Errors that make the package unusable (no package,
// syntax errors, go list failures) come back as diagnostics; type errors
// are left in loaded.typeErrors for the caller to judge.
func load(fset *token.FileSet, dir, output string, tags []string) (*loaded, []Diag, error) {
	cfg := &packages.Config{
		Mode:  loadMode,
		Dir:   dir,
		Fset:  fset,
		Tests: false,
	}
	if len(tags) > 0 {
		cfg.BuildFlags = []string{"-tags=" + strings.Join(tags, ",")}
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
	if err := checkKitVersion(pkg); err != nil {
		return nil, nil, err
	}

	var files []string
	for _, name := range pkg.GoFiles {
		if filepath.Base(name) != output {
			files = append(files, name)
		}
	}
	// go list's own errors matter only when they left nothing to read: its
	// errors from compiling the package (the output may be stale) are
	// replaced by the type check below.
	var diags []Diag
	if len(pkg.GoFiles) == 0 {
		for _, e := range pkg.Errors {
			diags = append(diags, diagFromPackageError(dir, e))
		}
		if len(diags) == 0 {
			diags = append(diags, Diag{Position: token.Position{Filename: dir}, Msg: "no Go files"})
		}
		return nil, diags, nil
	}

	l := &loaded{info: &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Instances:  map[*ast.Ident]types.Instance{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes:     map[ast.Node]*types.Scope{},
	}}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			// Syntax errors stop kitgen: a declaration may be cut short.
			if el, ok := err.(scanner.ErrorList); ok {
				for _, e := range el {
					diags = append(diags, Diag{Position: e.Pos, Msg: e.Msg})
				}
				continue
			}
			return nil, nil, err
		}
		l.files = append(l.files, f)
	}
	if len(diags) > 0 {
		return nil, diags, nil
	}
	conf := types.Config{
		Importer:    &exportImporter{fset: fset, deps: pkg.Imports, pkgs: map[string]*types.Package{}},
		Error:       func(err error) { l.typeErrors = append(l.typeErrors, err.(types.Error)) },
		FakeImportC: true,
	}
	l.types, _ = conf.Check(pkg.PkgPath, fset, l.files, l.info)
	return l, nil, nil
}

// exportImporter imports the dependencies of the package from the export
// data go list compiled for them.
type exportImporter struct {
	fset *token.FileSet
	deps map[string]*packages.Package // by import path, as written
	pkgs map[string]*types.Package    // shared by every Read
}

func (im *exportImporter) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	dep := im.deps[path]
	if dep == nil {
		return nil, fmt.Errorf("package %s is not a dependency (go list did not list it)", path)
	}
	if p := im.pkgs[dep.PkgPath]; p != nil && p.Complete() {
		return p, nil
	}
	if dep.ExportFile == "" {
		return nil, fmt.Errorf("no export data for %s (it does not compile?)", path)
	}
	f, err := os.Open(dep.ExportFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// go list -export still hands over the compiler's archive (Go 1.26),
	// which only NewReader opens; Read alone takes cmd/export's files.
	//lint:ignore SA1019 needed until go list -export writes cmd/export files
	r, err := gcexportdata.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("reading export data for %s: %w", path, err)
	}
	return gcexportdata.Read(r, im.fset, im.pkgs, dep.PkgPath)
}

// diagFromPackageError turns a go list error into a diagnostic. Its
// position is "file:line:col", "file:line", "file" or "" / "-".
func diagFromPackageError(dir string, e packages.Error) Diag {
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

package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// imports names the packages the generated file refers to. An import takes
// the package's own name unless that name is taken in the file's scope (a
// package-level name of the package, a name kitgen generates, or another
// import), in which case it gets a numeric suffix: kit2, context2.
type imports struct {
	self     *types.Package
	reserved map[string]bool
	byPath   map[string]string
	pkgs     map[string]*types.Package
}

func newImports(self *types.Package, reserved map[string]bool) *imports {
	return &imports{self: self, reserved: reserved, byPath: map[string]string{}, pkgs: map[string]*types.Package{}}
}

// name returns the file's name for package p, importing it.
func (im *imports) name(p *types.Package) string {
	if n, ok := im.byPath[p.Path()]; ok {
		return n
	}
	base := p.Name()
	n := base
	for i := 2; im.reserved[n] || strings.HasPrefix(n, "_kit_"); i++ {
		n = fmt.Sprintf("%s%d", base, i)
	}
	im.reserved[n] = true
	im.byPath[p.Path()] = n
	im.pkgs[p.Path()] = p
	return n
}

// kit returns the name of kit in the file.
func (im *imports) kit() string {
	return im.name(types.NewPackage(kitPath, "kit"))
}

// qualifier qualifies the names of other packages with their import names.
func (im *imports) qualifier(p *types.Package) string {
	if p == im.self || p.Path() == im.self.Path() {
		return ""
	}
	return im.name(p)
}

// typeString prints t for the generated file.
func (im *imports) typeString(t types.Type) string {
	return types.TypeString(t, im.qualifier)
}

// expr prints a //kit:option expression for the generated file: package
// names are those of the file's imports, whatever the declaring file calls
// them, and names reached through a dot import are qualified.
func (im *imports) expr(fset *token.FileSet, o *Option) string {
	orig := map[*ast.Ident]string{}
	for id, p := range o.pkgs {
		orig[id] = id.Name
		if o.dot[id] {
			id.Name = im.name(p) + "." + id.Name
		} else {
			id.Name = im.name(p)
		}
	}
	var b bytes.Buffer
	printer.Fprint(&b, fset, o.Expr)
	for id, name := range orig {
		id.Name = name
	}
	return b.String()
}

// block returns the import declaration: the standard library first, each
// group sorted by path, a name given only where it differs from the
// package's.
func (im *imports) block() string {
	var std, other []string
	for path, name := range im.byPath {
		spec := strconv.Quote(path)
		if name != im.pkgs[path].Name() {
			spec = name + " " + spec
		}
		if isStd(path) {
			std = append(std, spec)
		} else {
			other = append(other, spec)
		}
	}
	byPath := func(specs []string) {
		sort.Slice(specs, func(i, j int) bool { return specPath(specs[i]) < specPath(specs[j]) })
	}
	byPath(std)
	byPath(other)
	var b strings.Builder
	b.WriteString("import (\n")
	for _, s := range std {
		b.WriteString("\t" + s + "\n")
	}
	if len(std) > 0 && len(other) > 0 {
		b.WriteString("\n")
	}
	for _, s := range other {
		b.WriteString("\t" + s + "\n")
	}
	b.WriteString(")\n")
	return b.String()
}

func specPath(spec string) string {
	return spec[strings.IndexByte(spec, '"'):]
}

// isStd reports whether path is a standard library package: its first
// element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

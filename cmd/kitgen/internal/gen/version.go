package gen

import (
	"fmt"

	"github.com/kithttp/kit"
	"golang.org/x/mod/semver"
	"golang.org/x/tools/go/packages"
)

// VersionError reports that the package's module builds with another kit
// than the one this kitgen belongs to: kitgen routes parameters by the
// rules of its own kit and writes code for it only.
type VersionError struct {
	Module string // the module of the package, "" when unknown
	Kit    string // the kit version it selects: "v0.2.0"
	Own    string // this kitgen's kit version: "v0.4.0"
}

func (e *VersionError) Error() string {
	mod := "the package's module"
	if e.Module != "" {
		mod = e.Module
	}
	upgrade := fmt.Sprintf("`go get %s@%s` to build with this kitgen's kit", kitPath, e.Own)
	same := fmt.Sprintf("`go run %s/cmd/kitgen@%s` to run the kitgen of your kit", kitPath, e.Kit)
	first, second := upgrade, same
	if semver.Compare(e.Kit, e.Own) > 0 {
		first, second = same, upgrade // this kitgen is the older one
	}
	return fmt.Sprintf("%s builds with %s %s, and this kitgen is kit %s's, which writes code for its own kit only: run %s, or %s (`go get -tool %s/cmd/kitgen` makes `go tool kitgen` follow the module's kit)",
		mod, kitPath, e.Kit, e.Own, first, second, kitPath)
}

// checkKitVersion fails when pkg builds with a published kit other than
// kit.Version, or imports kit and cannot load it. A kit from a local checkout (a directory replace, the main
// module, a "(devel)" build) is not checked.
func checkKitVersion(pkg *packages.Package) error {
	var kitPkg *packages.Package
	packages.Visit([]*packages.Package{pkg}, func(p *packages.Package) bool {
		if p.PkgPath == kitPath {
			kitPkg = p
		}
		return kitPkg == nil
	}, nil)
	if kitPkg == nil {
		return nil
	}
	if err := kitMissing(pkg, kitPkg); err != nil {
		return err
	}
	return versionSkew(pkg.Module, kitPkg.Module, "v"+kit.Version)
}

// versionSkew compares the kit module the user's module selects with own,
// this kitgen's kit version.
func versionSkew(user, kitMod *packages.Module, own string) error {
	if kitMod == nil || kitMod.Main {
		return nil
	}
	v := kitMod.Version
	if r := kitMod.Replace; r != nil {
		if r.Version == "" {
			return nil // replaced by a directory: a local checkout
		}
		v = r.Version
	}
	if v == "" || v == "(devel)" || v == own {
		return nil
	}
	e := &VersionError{Kit: v, Own: own}
	if user != nil {
		e.Module = user.Path
	}
	return e
}

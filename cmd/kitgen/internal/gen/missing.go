package gen

import (
	"fmt"
	"strings"

	"github.com/kithttp/kit"
	"golang.org/x/tools/go/packages"
)

// KitMissingError reports that the package imports kit and its module
// cannot load it: kit is not required, or required and not downloaded or
// not in go.sum. The message names the command that fixes it.
type KitMissingError struct {
	Module string // the module of the package, "" when unknown
	Reason string // go list's words
}

func (e *KitMissingError) Error() string {
	mod := "the package's module"
	if e.Module != "" {
		mod = e.Module
	}
	return fmt.Sprintf("%s cannot load %s (%s): run `go get %s@v%s`, then kitgen again", mod, kitPath, e.Reason, kitPath, kit.Version)
}

// kitMissing returns a *KitMissingError when kitPkg, the kit package pkg
// imports, did not load.
func kitMissing(pkg, kitPkg *packages.Package) error {
	if kitPkg == nil || len(kitPkg.Errors) == 0 {
		return nil
	}
	// go list's first line; its own advice (go get without a version)
	// is replaced by the command with this kitgen's.
	reason, _, _ := strings.Cut(kitPkg.Errors[0].Msg, "\n")
	reason = strings.TrimSuffix(strings.TrimSpace(reason), "; to add it:")
	e := &KitMissingError{Reason: reason}
	if pkg.Module != nil {
		e.Module = pkg.Module.Path
	}
	return e
}

package main

import (
	"strings"
)

// funcCount counts the functions compiled into a package's archive.
type funcCount struct {
	total        int // functions (text symbols) the archive defines
	instantiated int // those that are instantiations of generic code
}

// countFuncs reads `go tool nm` output for one archive: every defined text
// symbol (type T or t) is a function; one whose name has a type-argument
// list (`kit.Endpoint[go.shape.struct {...}].Call`,
// `kit.(*Pager[...]).Next.func1`) is an instantiation. Undefined symbols
// (U), data and the compiler's own type functions (`type:.eq.[2]string`)
// are not counted as instantiations.
func countFuncs(nm string) funcCount {
	var c funcCount
	for line := range strings.Lines(nm) {
		kind, name, ok := nmSymbol(strings.TrimRight(line, "\r\n"))
		if !ok || kind != "T" && kind != "t" {
			continue
		}
		c.total++
		if isInstantiation(name) {
			c.instantiated++
		}
	}
	return c
}

// nmSymbol splits a line of `go tool nm` ("  4f2a0 T name", or
// "         U name" for an undefined symbol) into its type and name; a
// name may hold spaces (`go.shape.struct { X int }`).
func nmSymbol(line string) (kind, name string, ok bool) {
	s := strings.TrimLeft(line, " ")
	first, rest, found := strings.Cut(s, " ")
	if !found {
		return "", "", false
	}
	if len(first) == 1 { // no address: "U name"
		return first, rest, rest != ""
	}
	kind, name, found = strings.Cut(rest, " ")
	if !found || len(kind) != 1 || name == "" {
		return "", "", false
	}
	return kind, name, true
}

// isInstantiation reports whether a function's name holds a type-argument
// list: a "[" right after an identifier that does not open an array
// length ("[2]") or a slice ("[]").
func isInstantiation(name string) bool {
	if strings.HasPrefix(name, "type:") {
		return false
	}
	for i := 1; i < len(name); i++ {
		if name[i] != '[' || !isIdentByte(name[i-1]) {
			continue
		}
		j := i + 1
		for j < len(name) && name[j] >= '0' && name[j] <= '9' {
			j++
		}
		if j < len(name) && name[j] != ']' {
			return true
		}
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

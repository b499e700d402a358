package openapi

import (
	"go/token"
	"strconv"
	"strings"
	"unicode"
)

// initialisms are the words Go writes in one case (ID, URL), as golint
// taught: "user_id" becomes UserID.
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true, "EOF": true,
	"GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true, "JSON": true,
	"LHS": true, "QPS": true, "RAM": true, "RHS": true, "RPC": true, "SLA": true, "SMTP": true,
	"SQL": true, "SSH": true, "TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true,
	"UID": true, "UUID": true, "URI": true, "URL": true, "UTF8": true, "VM": true, "XML": true,
	"XMPP": true, "XSRF": true, "XSS": true, "SSO": true, "OS": true,
}

// words splits a wire name into words: at every character that is not a
// letter or digit, and where case changes (fooBar, HTTPServer).
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, string(rs[start:end]))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsLower(prev) && unicode.IsUpper(r):
			flush(i)
			start = i
		case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}

// exported turns a wire name into an exported Go identifier: "user_id" →
// UserID, "list-for-repo" → ListForRepo, "+1" → Plus1. It never returns
// "" (an empty name gives fallback).
func exported(s, fallback string) string {
	s = strings.NewReplacer("+", " plus ", "-", " ").Replace(s)
	var b strings.Builder
	for _, w := range words(s) {
		up := strings.ToUpper(w)
		if initialisms[up] {
			b.WriteString(up)
			continue
		}
		rs := []rune(w)
		b.WriteString(strings.ToUpper(string(rs[0])) + string(rs[1:]))
	}
	out := b.String()
	if out == "" {
		out = fallback
	}
	if !token.IsExported(out) { // a digit, or a letter with no upper case (名前)
		out = "X" + out
	}
	return out
}

// local turns a wire name into an unexported Go identifier that is not a
// keyword or a predeclared name: "per_page" → perPage, "type" → typ_.
func local(s string) string {
	e := exported(s, "v")
	rs := []rune(e)
	// Lower the leading word: an initialism whole (ID → id, URLPath → urlPath).
	n := 1
	for n < len(rs) && unicode.IsUpper(rs[n]) && (n+1 == len(rs) || unicode.IsUpper(rs[n+1])) {
		n++
	}
	out := strings.ToLower(string(rs[:n])) + string(rs[n:])
	if token.IsKeyword(out) || predeclared[out] || out == "ctx" || out == "opts" {
		out += "_"
	}
	return out
}

var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true, "complex128": true,
	"error": true, "float32": true, "float64": true, "int": true, "int8": true, "int16": true, "int32": true,
	"int64": true, "rune": true, "string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true,
	"uint64": true, "uintptr": true, "true": true, "false": true, "iota": true, "nil": true, "append": true,
	"cap": true, "clear": true, "close": true, "complex": true, "copy": true, "delete": true, "imag": true,
	"len": true, "make": true, "max": true, "min": true, "new": true, "panic": true, "print": true,
	"println": true, "real": true, "recover": true, "kit": true, "context": true, "iter": true, "io": true,
	"json": true, "time": true,
}

// namer hands out names that never collide: the first to ask gets the
// plain name, later ones a numeric suffix, in the order they ask (the
// document's order, so names are deterministic).
type namer struct{ taken map[string]bool }

func newNamer(reserved ...string) *namer {
	n := &namer{taken: map[string]bool{}}
	for _, r := range reserved {
		n.taken[r] = true
	}
	return n
}

func (n *namer) name(want string) string {
	if !n.taken[want] {
		n.taken[want] = true
		return want
	}
	for i := 2; ; i++ {
		c := want + strconv.Itoa(i)
		if !n.taken[c] {
			n.taken[c] = true
			return c
		}
	}
}

// jsonTag returns the struct tag of a JSON member name with options
// (",omitempty"), as Go source: "-" is "-," so that it is not skipped. ok
// is false for a name no json tag can hold (the empty name, or one with a
// comma, a quote, a backslash or a backquote: encoding/json and kit's
// codec read none of them).
func jsonTag(name, opts string) (tag string, ok bool) {
	switch {
	case name == "-":
		name, opts = "-,", strings.TrimPrefix(opts, ",")
	case name == "" || strings.ContainsAny(name, ",\\'\"`"):
		return "`json:\"-\"`", false
	}
	return "`json:" + strconv.Quote(name+opts) + "`", true
}

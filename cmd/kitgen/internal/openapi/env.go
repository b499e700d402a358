package openapi

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// envNames are the functions -env declares, which the client.go of a
// first run calls.
var envNames = []string{"BaseURLFromEnv", "OptionsFromEnv"}

// envPrefixRE is what an -env prefix may be: an environment variable's
// name as a shell writes it.
var envPrefixRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// envVar returns the environment variable of a scheme's secret:
// PREFIX_SCHEME_NAME, its words upper case and joined with "_".
func envVar(prefix, scheme, suffix string) string {
	var ws []string
	for _, w := range words(scheme) {
		ws = append(ws, strings.ToUpper(w))
	}
	if len(ws) == 0 {
		ws = []string{"AUTH"}
	}
	if suffix != "" {
		ws = append(ws, suffix)
	}
	return prefix + "_" + strings.Join(ws, "_")
}

// envDecls declares, with -env, BaseURLFromEnv and OptionsFromEnv: the
// base URL in PREFIX_BASE_URL, and the secret of the first security
// scheme (by name) whose variable is set, as its option. New (client.go)
// passes them before the caller's options, so the caller's win; the
// document's server is the base URL when the environment names none.
func (g *generator) envDecls() string {
	if g.env == "" {
		return ""
	}
	g.types.imports["os"] = true
	var b strings.Builder
	base := g.env + "_BASE_URL"
	writeDoc(&b, "", fmt.Sprintf("BaseURLFromEnv returns the environment variable %s, or def when it is unset or empty.", base), "")
	fmt.Fprintf(&b, "func BaseURLFromEnv(def string) string {\n\tif u := os.Getenv(%s); u != \"\" {\n\t\treturn u\n\t}\n\treturn def\n}\n\n", strconv.Quote(base))
	var body strings.Builder
	var vars []string
	for _, o := range g.secOpts {
		switch o.params {
		case "token string", "key string":
			v := envVar(g.env, o.scheme, "")
			vars = append(vars, v)
			fmt.Fprintf(&body, "\tif v := os.Getenv(%s); v != \"\" {\n\t\treturn []kit.Option{%s(v)}\n\t}\n", strconv.Quote(v), o.option)
		case "user, password string":
			u, p := envVar(g.env, o.scheme, "USER"), envVar(g.env, o.scheme, "PASSWORD")
			vars = append(vars, u+" and "+p)
			fmt.Fprintf(&body, "\tif u := os.Getenv(%s); u != \"\" {\n\t\treturn []kit.Option{%s(u, os.Getenv(%s))}\n\t}\n", strconv.Quote(u), o.option, strconv.Quote(p))
		}
	}
	lead := "OptionsFromEnv returns the options the environment gives: none, the document naming no security scheme whose secret is a string."
	if len(vars) > 0 {
		lead = fmt.Sprintf("OptionsFromEnv returns the options the environment gives: the option of the first security scheme whose variables are set, in this order: %s; none when none is.", strings.Join(vars, "; "))
	}
	writeDoc(&b, "", lead, "", "New passes them before its own options, so that an option the caller gives wins over the environment.")
	fmt.Fprintf(&b, "func OptionsFromEnv() []kit.Option {\n%s\treturn nil\n}\n\n", body.String())
	return b.String()
}

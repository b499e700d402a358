package openapi

import (
	"fmt"
	"strconv"
	"strings"
)

// serverDecls declares a constant per server the document names, named
// after its description (ServerProduction) or, without one, its place
// (Server1), holding its URL with each variable's default; and, for a
// server whose URL has variables, a function of the same name and URL
// that fills them: ServerProductionURL(region string) string.
func (g *generator) serverDecls() string {
	servers := g.doc.ServerList
	if len(servers) == 0 {
		for _, u := range g.doc.Servers {
			servers = append(servers, Server{URL: u})
		}
	}
	var b strings.Builder
	for i, s := range servers {
		base := "Server" + strconv.Itoa(i+1)
		if s.Description != "" {
			w := strings.TrimSuffix(strings.TrimPrefix(exported(s.Description, ""), "Server"), "Server")
			if w != "" && len(w) <= 40 && !strings.HasPrefix(w, "X") {
				base = "Server" + w
			}
		}
		name := g.names.name(base)
		def := s.URL
		for _, v := range s.Variables {
			def = strings.ReplaceAll(def, "{"+v.Name+"}", v.Default)
		}
		lead := fmt.Sprintf("%s is server %d of the document", name, i+1)
		if s.Description != "" {
			lead += ", " + firstSentence(s.Description)
		}
		lead += "."
		var extra []string
		if len(s.Variables) > 0 {
			extra = append(extra, fmt.Sprintf("Its URL is %s with each variable's default; %sURL fills them with others.", s.URL, name))
		}
		writeDoc(&b, "", lead, "", extra...)
		fmt.Fprintf(&b, "const %s = %s\n\n", name, strconv.Quote(def))
		if len(s.Variables) == 0 {
			continue
		}
		fn := g.names.name(name + "URL")
		locals := newNamer()
		var params, fill []string
		var vdoc []string
		for _, v := range s.Variables {
			p := locals.name(local(v.Name))
			params = append(params, p+" string")
			fill = append(fill, strconv.Quote("{"+v.Name+"}"), p)
			line := fmt.Sprintf("%s fills {%s} (default %s", p, v.Name, strconv.Quote(v.Default))
			if len(v.Enum) > 0 {
				var qs []string
				for _, e := range v.Enum {
					qs = append(qs, strconv.Quote(e))
				}
				line += "; one of " + strings.Join(qs, ", ")
			}
			line += ")"
			if d := strings.TrimSuffix(firstSentence(v.Description), "."); d != "" {
				line += ": " + d
			}
			vdoc = append(vdoc, line+".")
		}
		writeDoc(&b, "", fmt.Sprintf("%s returns the URL of server %s with its variables filled, as they are given.", fn, name), "", vdoc...)
		fmt.Fprintf(&b, "func %s(%s) string {\n\treturn strings.NewReplacer(%s).Replace(%s)\n}\n\n", fn, strings.Join(params, ", "), strings.Join(fill, ", "), strconv.Quote(s.URL))
		g.types.imports["strings"] = true
	}
	return b.String()
}

package openapi

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestJSONPath: the selectors overlays use, on one document.
func TestJSONPath(t *testing.T) {
	doc := `paths:
  /a:
    get: {operationId: getA, x-safe: true, parameters: [{name: filter, in: query}, {name: id, in: path}]}
    post: {operationId: postA}
  /b:
    get: {operationId: getB, x-oai-traits: {paged: true}, parameters: [{name: filter, in: header}, {name: n, in: query, required: true}]}
`
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	ids := func(ms []match) []string {
		var out []string
		for _, m := range ms {
			if v := str(get(m.n, "operationId")); v != "" {
				out = append(out, v)
			} else if v := str(get(m.n, "name")); v != "" {
				out = append(out, v+"/"+str(get(m.n, "in")))
			} else {
				out = append(out, "?")
			}
		}
		return out
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{"$.paths['/a'].get", []string{"getA"}},
		{`$.paths["/a"]["get","post"]`, []string{"getA", "postA"}},
		{"$.paths.*.get", []string{"getA", "getB"}},
		{"$.paths[*].*", []string{"getA", "postA", "getB"}},
		{"$..get", []string{"getA", "getB"}},
		{"$..parameters[0]", []string{"filter/query", "filter/header"}},
		{"$..parameters[-1]", []string{"id/path", "n/query"}},
		{"$.paths.*.get.parameters[?@.name=='filter' && @.in=='query']", []string{"filter/query"}},
		{`$.paths.*.get.parameters[?(@.name != "filter")]`, []string{"id/path", "n/query"}},
		{"$..parameters[?@.required]", []string{"n/query"}},
		{"$..parameters[?@.required == true]", []string{"n/query"}},
		{"$..parameters[?!@.required && @.in == 'path' || @.in == 'header']", []string{"id/path", "filter/header"}},
		{"$.paths['/b'][?@.x-oai-traits.paged]", []string{"getB"}},
		{"$.paths.*[?@.x-safe]", []string{"getA"}},
		{"$.paths.nope", nil},
	} {
		p, err := parseJSONPath(c.path)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if got := ids(p.apply(root.Content[0])); !slices.Equal(got, c.want) {
			t.Errorf("%s selects %v, want %v", c.path, got, c.want)
		}
	}
	for _, bad := range []string{"paths", "$.", "$[", "$.a[1:2]", "$[?@.a == ]", "$['a", "$[?(@.a]"} {
		if _, err := parseJSONPath(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestOverlay: an overlay's actions apply in order before the document
// is read; a target that selects nothing is a note (the specification
// makes it no error); what cannot apply is an error at file:line:col.
func TestOverlay(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	spec := write("spec.yaml", `openapi: 3.0.0
info: {title: Old}
paths:
  /a:
    get:
      operationId: getA
      parameters: [{name: debug, in: query, schema: {type: boolean}}]
      responses: {"200": {description: ok}}
  /internal:
    get: {operationId: secret, responses: {"200": {description: ok}}}
`)
	ov := write("overlay.yaml", `overlay: 1.0.0
info: {title: fix, version: "1"}
actions:
  - target: $.info
    update: {title: New}
  - target: $.paths['/internal']
    remove: true
  - target: $.paths.*.get.parameters[?@.name == 'debug']
    remove: true
  - target: $.paths.*.get.parameters
    update: {name: limit, in: query, schema: {type: integer}}
  - target: $.paths['/gone']
    remove: true
`)
	d, err := Load(spec, ov)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "New" {
		t.Errorf("title %q, want New", d.Title)
	}
	if len(d.Ops) != 1 || d.Ops[0].ID != "getA" || len(d.Ops[0].Params) != 1 || d.Ops[0].Params[0].Name != "limit" {
		t.Fatalf("operations %+v, want getA with limit only", d.Ops)
	}
	want := filepath.Join(dir, "overlay.yaml") + ":12:5: overlay action 5: target $.paths['/gone'] selects nothing: the action changes nothing"
	if len(d.Notes) != 1 || d.Notes[0].Pos.String()+": "+d.Notes[0].Msg != want {
		t.Errorf("notes %v, want %s", d.Notes, want)
	}
	for _, c := range []struct{ overlay, want string }{
		{"overlay: 1.0.0\nactions:\n  - target: $.info.title\n    update: {x: 1}\n", "overlay.yaml:3:13: overlay action 1: target $.info.title selects a value (Old), not an object or an array"},
		{"overlay: 1.0.0\nactions:\n  - target: paths\n    remove: true\n", `overlay.yaml:3:13: overlay action 1: target "paths": does not start with $`},
		{"overlay: 1.0.0\nactions:\n  - target: $\n    remove: true\n", "overlay.yaml:3:13: overlay action 1: target $: the document itself cannot be removed"},
		{"overlay: 1.0.0\nactions:\n  - target: $.info\n    update: [1]\n", "overlay.yaml:4:13: overlay action 1: target $.info selects an object: the update must be one"},
		{"openapi: 3.0.0\n", "overlay.yaml:1:1: not an Overlay document: no overlay field at the top"},
		{"overlay: 2.0.0\nactions: []\n", "overlay.yaml:1:10: Overlay 2.0.0: only version 1 is read"},
	} {
		ov := write("overlay.yaml", c.overlay)
		_, err := Load(spec, ov)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("error %v, want it to end with %q", err, c.want)
		}
	}
}

package gen

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestGroupFields reads the declarations of testdata/golden/group_fields:
// a named field holding an endpoint interface is bound (not embedded), and
// a named field of another interface (the caller's Logger, io.Writer) is
// left alone.
func TestGroupFields(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "golden", "group_fields.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	g, diags, err := analyze(extract(t, ar), DefaultOutput, nil)
	if err != nil || len(diags) > 0 {
		t.Fatalf("analyze: %v %v", err, diags)
	}
	bound := func(b *structBody) string {
		var s []string
		for _, f := range b.Ifaces {
			how := "named"
			if f.Embedded {
				how = "embedded"
			}
			s = append(s, fmt.Sprintf("%s %s %s", f.Field, f.Iface.Name, how))
		}
		return strings.Join(s, "; ")
	}
	if len(g.model.Roots) != 1 {
		t.Fatalf("%d roots, want 1", len(g.model.Roots))
	}
	want := "Meta Meta embedded; Repos ReposAPI named; Issues IssuesAPI named; Stars StarsAPI named"
	if got := bound(g.model.Roots[0].Body); got != want {
		t.Errorf("Client binds %q, want %q", got, want)
	}
	if len(g.model.Structs) != 1 {
		t.Fatalf("%d resource structs, want 1", len(g.model.Structs))
	}
	if got, want := bound(g.model.Structs[0].Body), "Members MembersAPI named"; got != want {
		t.Errorf("Org binds %q, want %q", got, want)
	}
	var ifaces []string
	for _, it := range g.model.Ifaces {
		ifaces = append(ifaces, it.Name)
	}
	if got, want := strings.Join(ifaces, " "), "Meta ReposAPI IssuesAPI StarsAPI MembersAPI"; got != want {
		t.Errorf("endpoint interfaces %q, want %q (Logger and io.Writer are the caller's)", got, want)
	}
	if m := g.model.Ifaces[3].Methods; len(m) != 1 || m[0].Name != "Star" {
		t.Errorf("StarsAPI's methods: %v, want Star, from the interface it embeds", m)
	}
}

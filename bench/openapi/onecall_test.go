package main

import (
	"go/format"
	"strings"
	"testing"
)

func TestOneCallProgram(t *testing.T) {
	src := oneCallProgram("example.com/compare/github", "NewClientWithResponses", "MetaRootWithResponse(ctx)")
	formatted, err := format.Source([]byte(src))
	if err != nil {
		t.Fatalf("the program does not parse: %v\n%s", err, src)
	}
	if string(formatted) != src {
		t.Errorf("the program is not gofmt'ed:\n%s", src)
	}
	for _, want := range []string{
		"package main\n",
		"\tapi \"example.com/compare/github\"\n",
		"c, err := api.NewClientWithResponses(\"https://example.com\")\n",
		"res, err := c.MetaRootWithResponse(ctx)\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the program lacks %q:\n%s", want, src)
		}
	}
}

// TestCorpusCalls checks that every corpus document names the one-call
// operation for every generator.
func TestCorpusCalls(t *testing.T) {
	for _, d := range append(corpusDocs[:len(corpusDocs):len(corpusDocs)], graphDoc) {
		for _, tl := range allTools {
			if d.pkg == "graph" && tl.name != "kitgen" {
				continue
			}
			if d.calls[tl.name] == "" || tl.newClient == "" {
				t.Errorf("%s with %s: no one-call operation", d.file, tl.name)
			}
		}
	}
}

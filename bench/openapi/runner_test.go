package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestErrorSummary(t *testing.T) {
	exit := errors.New("exit status 1")
	for _, tc := range []struct {
		name, out string
		n         int
		want      string
	}{
		{"ogen parse error", readTestdata(t, "ogen-openai-fail.txt"), 1,
			`- openai_openapi.yaml:27796:3 -> parse path "/responses/compact?beta=true": path MUST NOT contain a query string`},
		{"ogen not implemented", readTestdata(t, "ogen-github-fail.txt"), 1,
			`Feature "complex anyOf" is not implemented yet.`},
		{"oapi-codegen", "error generating code: error generating code for type definitions: duplicate typename 'Actor' detected\n", 1,
			"error generating code: error generating code for type definitions: duplicate typename 'Actor' detected"},
		{"go build, directories removed", "# example.com/compare/github\n/tmp/run/ogen-github/github/a.go:3:1: undefined: x\n/tmp/run/ogen-github/github/a.go:4:1: undefined: y\n", 2,
			"# example.com/compare/github / ogen-github/github/a.go:3:1: undefined: x"},
		{"no output", "INFO\tall is well\n\n", 3, "exit status 1"},
	} {
		if got := errorSummary(tc.out, exit, tc.n, "/tmp/run"); got != tc.want {
			t.Errorf("%s: errorSummary =\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
	err := exec.Command("false").Run()
	if err == nil {
		t.Skip("no false command")
	}
	if got := errorSummary("", err, 1); !strings.HasPrefix(got, "exit status 1, no output") {
		t.Errorf("errorSummary of a silent exit = %q", got)
	}
}

func TestIsSourceLine(t *testing.T) {
	for s, want := range map[string]bool{
		"27795 |             }":                     true,
		"→ 27796 |   /responses/compact?beta=true:": true,
		"27800 |":               true,
		"a | b":                 false,
		"- x.yaml:1:2 -> parse": false,
	} {
		if got := isSourceLine(s); got != want {
			t.Errorf("isSourceLine(%q) = %v, want %v", s, got, want)
		}
	}
}

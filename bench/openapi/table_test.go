package main

import (
	"bytes"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	s := time.Second
	results := []result{
		{doc: "api.github.com.json", tool: "kitgen", generated: true, skipped: 1,
			reasons:  map[string]int{"a map body": 1},
			lines:    lineCount{files: 3, total: 32891, nonBlank: 30001},
			generate: timing{1900 * time.Millisecond, 2500 * time.Millisecond},
			compiles: []timing{{45 * s, 60 * s}, {41 * s, 58 * s}, {43 * s, 59 * s}}},
		{doc: "api.github.com.json", tool: "ogen", generated: true, option: `ignore_not_implemented: ["all"]`, skipped: 28,
			failures: []failure{{text: `Feature "complex anyOf" is not implemented yet.`}},
			reasons:  map[string]int{"complex anyOf not implemented": 27, "b": 1},
			lines:    lineCount{files: 11, total: 496250, nonBlank: 450000},
			generate: timing{3700 * time.Millisecond, 4 * s},
			compiles: []timing{{200 * s, 380 * s}}},
		{doc: "openai_openapi.yaml", tool: "ogen", skipped: -1,
			failures: []failure{{text: "parse error"}, {option: "x: y", text: "parse error"}}},
		{doc: "openai_openapi.yaml", tool: "oapi-codegen", generated: true, skipped: -1,
			lines:    lineCount{files: 1, total: 710, nonBlank: 605},
			generate: timing{40 * time.Millisecond, 30 * time.Millisecond},
			err:      "go build: undefined: x"},
	}
	var b bytes.Buffer
	writeTable(&b, results)
	writeNotes(&b, results)
	want := "| document | generator | generated | operations skipped | Go lines: non-blank (all) | files | generate: wall (CPU) | compile: wall, fastest–slowest (CPU) |\n" +
		"|---|---|---|---|---|---|---|---|\n" +
		"| api.github.com.json | kitgen | yes | 1 | 30,001 (32,891) | 3 | 1.9 s (2.5 s) | 41 s–45 s (58 s) |\n" +
		"| api.github.com.json | ogen | with `ignore_not_implemented: [\"all\"]` (note 1) | 28 | 450,000 (496,250) | 11 | 3.7 s (4.0 s) | 200 s–200 s (380 s) |\n" +
		"| openai_openapi.yaml | ogen | **no** (note 2) | — | — | — | — | — |\n" +
		"| openai_openapi.yaml | oapi-codegen | yes | not reported | 605 (710) | 1 | 0.04 s (0.03 s) | **failed** (note 3) |\n" +
		"\n" +
		"1. ogen on api.github.com.json: as configured it failed: Feature \"complex anyOf\" is not implemented yet.\n" +
		"2. ogen on openai_openapi.yaml: as configured it failed: parse error; with `x: y` it failed: parse error.\n" +
		"3. oapi-codegen on openai_openapi.yaml: go build: undefined: x.\n" +
		"\n" +
		"- kitgen skipped on api.github.com.json: 1 × a map body\n" +
		"- ogen skipped on api.github.com.json: 27 × complex anyOf not implemented; 1 × b\n"
	if got := b.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestFormats(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 496250: "496,250", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{40 * time.Millisecond: "0.04 s", 1900 * time.Millisecond: "1.9 s", 41400 * time.Millisecond: "41 s"} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%v) = %q, want %q", d, got, want)
		}
	}
}

package main

import (
	"bytes"
	"strings"
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
			compiles: []timing{{45 * s, 60 * s}, {41 * s, 58 * s}, {43 * s, 59 * s}},
			compiler: []toolRun{{Tool: "compile", CPU: 55 * s, MaxRSS: 2_093_400_000}, {Tool: "compile", CPU: 53300 * time.Millisecond, MaxRSS: 2_000_000_000}},
			funcs:    funcCount{total: 35880, instantiated: 30248}, ops: 767, binary: 332 * (1 << 20) / 10},
		{doc: "api.github.com.json", tool: "ogen", generated: true, option: `ignore_not_implemented: ["all"]`, skipped: 28,
			failures: []failure{{text: `Feature "complex anyOf" is not implemented yet.`}},
			reasons:  map[string]int{"complex anyOf not implemented": 27, "b": 1},
			lines:    lineCount{files: 11, total: 496250, nonBlank: 450000},
			generate: timing{3700 * time.Millisecond, 4 * s},
			compiles: []timing{{200 * s, 380 * s}},
			compiler: []toolRun{{Tool: "compile", CPU: 77200 * time.Millisecond, MaxRSS: 2_752_000_000}},
			funcs:    funcCount{total: 40000, instantiated: 100}, ops: 739, binary: 71 * (1 << 20) / 10},
		{doc: "openai_openapi.yaml", tool: "ogen", skipped: -1,
			failures: []failure{{text: "parse error"}, {option: "x: y", text: "parse error"}}},
		{doc: "openai_openapi.yaml", tool: "oapi-codegen", generated: true, skipped: -1,
			lines:    lineCount{files: 1, total: 710, nonBlank: 605},
			generate: timing{40 * time.Millisecond, 30 * time.Millisecond},
			err:      "go build: undefined: x"},
		{doc: "petstore.yaml", tool: "kitgen", generated: true, skipped: 0,
			lines:    lineCount{files: 3, total: 158, nonBlank: 125},
			generate: timing{140 * time.Millisecond, 310 * time.Millisecond},
			compiles: []timing{{200 * time.Millisecond, 310 * time.Millisecond}},
			compiler: []toolRun{{Tool: "compile", CPU: 250 * time.Millisecond, MaxRSS: 80_000_000}},
			funcs:    funcCount{total: 120, instantiated: 90}, ops: 3,
			err: "linking the one-call program: undefined: api.ListPets"},
	}
	var b bytes.Buffer
	writeTable(&b, results)
	writeRatios(&b, results)
	writeNotes(&b, results)
	want := "| document | generator | generated | operations (skipped) | Go lines: non-blank (all) | files | generate: wall (CPU) | compile: wall, fastest–slowest | compiler: CPU, peak RSS | functions: all (instantiated) | per operation: all (instantiated) | one-call binary |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n" +
		"| api.github.com.json | kitgen | yes | 767 (1) | 30,001 (32,891) | 3 | 1.9 s (2.5 s) | 41 s–45 s | 53 s, 2,093 MB | 35,880 (30,248) | 46.8 (39.4) | 33.2 MiB |\n" +
		"| api.github.com.json | ogen | with `ignore_not_implemented: [\"all\"]` (note 1) | 739 (28) | 450,000 (496,250) | 11 | 3.7 s (4.0 s) | 200 s–200 s | 77 s, 2,752 MB | 40,000 (100) | 54.1 (0.1) | 7.1 MiB |\n" +
		"| openai_openapi.yaml | ogen | **no** (note 2) | — | — | — | — | — | — | — | — | — |\n" +
		"| openai_openapi.yaml | oapi-codegen | yes | — | 605 (710) | 1 | 0.04 s (0.03 s) | **failed** (note 3) | — | — | — | — |\n" +
		"| petstore.yaml | kitgen | yes | 3 (0) | 125 (158) | 3 | 0.14 s (0.31 s) | 0.20 s–0.20 s | 0.25 s, 80 MB | 120 (90) | 40.0 (30.0) | **failed** (note 4) |\n" +
		"\n" +
		"- api.github.com.json, kitgen / ogen: compiler CPU 0.69×, peak RSS 0.76×, one-call binary 4.68×, functions 0.90×, Go lines 0.067×, compiler CPU per line 10.36×.\n" +
		"\n" +
		"1. ogen on api.github.com.json: as configured it failed: Feature \"complex anyOf\" is not implemented yet.\n" +
		"2. ogen on openai_openapi.yaml: as configured it failed: parse error; with `x: y` it failed: parse error.\n" +
		"3. oapi-codegen on openai_openapi.yaml: go build: undefined: x.\n" +
		"4. kitgen on petstore.yaml: linking the one-call program: undefined: api.ListPets.\n" +
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

func TestGrowth(t *testing.T) {
	point := func(ops int, cpu time.Duration, rss int64) result {
		return result{ops: ops, lines: lineCount{nonBlank: 40 * ops}, compiler: []toolRun{{CPU: cpu, MaxRSS: rss}},
			funcs: funcCount{total: 47 * ops, instantiated: 39 * ops}}
	}
	// 2 s + 65 ms per operation; 300 MB + 2.5 MB per operation.
	points := []result{
		point(100, 8500*time.Millisecond, 550_000_000),
		point(200, 15*time.Second, 800_000_000),
		{ops: 300}, // not compiled: left out
		point(400, 28*time.Second, 1_300_000_000),
		point(767, 51855*time.Millisecond, 2_217_500_000),
	}
	var b bytes.Buffer
	writeGrowth(&b, points)
	want := "| operations | Go lines (non-blank) | compiler CPU | compiler peak RSS | functions (instantiated) |\n" +
		"|---|---|---|---|---|\n" +
		"| 100 | 4,000 | 8.5 s | 550 MB | 4,700 (3,900) |\n" +
		"| 200 | 8,000 | 15 s | 800 MB | 9,400 (7,800) |\n" +
		"| 400 | 16,000 | 28 s | 1,300 MB | 18,800 (15,600) |\n" +
		"| 767 | 30,680 | 52 s | 2,218 MB | 36,049 (29,913) |\n" +
		"\n" +
		"Least-squares lines over 4 points: compiler CPU 65.0 ms per operation (intercept 2.0 s; R² 1.000), peak RSS 2.50 MB per operation (intercept 300 MB; R² 1.000), 47.0 functions per operation (39.0 instantiated).\n"
	if got := b.String(); got != want {
		t.Errorf("growth:\n%s\nwant:\n%s", got, want)
	}
	b.Reset()
	writeGrowth(&b, points[:1])
	if !strings.Contains(b.String(), "No line through 1 points") {
		t.Errorf("growth of one point:\n%s", b.String())
	}
}

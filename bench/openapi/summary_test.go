package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestSummary(t *testing.T) {
	s := time.Second
	results := []result{
		{doc: "api.github.com.json", tool: "kitgen", generated: true, ops: 767,
			compiler: []toolRun{{CPU: 9 * s, MaxRSS: 450_000_000}}, funcs: funcCount{total: 9000, instantiated: 300}, binary: 10 << 20},
		{doc: "api.github.com.json", tool: "ogen", generated: true, ops: 739,
			compiler: []toolRun{{CPU: 80 * s, MaxRSS: 2_800_000_000}}, funcs: funcCount{total: 49000, instantiated: 4}, binary: 7 << 20},
		{doc: "api.github.com.json", tool: "oapi-codegen", generated: true, ops: 767, err: "go build: undefined: N0"},
		{doc: "openai_openapi.yaml", tool: "ogen", failures: []failure{{text: "x"}}},
	}
	points := []result{
		{ops: 100, compiler: []toolRun{{CPU: 2 * s, MaxRSS: 150_000_000}}, funcs: funcCount{total: 1400, instantiated: 100}},
		{ops: 200, compiler: []toolRun{{CPU: 3 * s, MaxRSS: 200_000_000}}, funcs: funcCount{total: 2400, instantiated: 120}},
		results[0],
	}
	var b bytes.Buffer
	writeSummary(&b, "load 2.0 to 3.0", results, points)
	want := "Summary (load 2.0 to 3.0):\n\n" +
		"| document | generator | ops | compiler CPU | peak RSS | functions (instantiated) | one-call binary |\n" +
		"|---|---|---|---|---|---|---|\n" +
		"| api.github.com.json | kitgen | 767 | 9.0 s | 450 MB | 9,000 (300) | 10.0 MiB |\n" +
		"| api.github.com.json | ogen | 739 | 80 s | 2,800 MB | 49,000 (4) | 7.0 MiB |\n" +
		"| api.github.com.json | oapi-codegen | 767 | build failed | — | — | — |\n" +
		"| openai_openapi.yaml | ogen | — | generation failed | — | — | — |\n" +
		"\n" +
		"- api.github.com.json, kitgen / ogen: CPU 0.11× (target ≤ 0.15×: met), RSS 0.16× (target ≤ 0.2×: met), binary 1.43× (target ≤ 1.5×: met).\n"
	got := b.String()
	if !strings.HasPrefix(got, want) {
		t.Errorf("summary:\n%s\nwant it to begin:\n%s", got, want)
	}
	if !strings.Contains(got, "Growth over 100/200/767 operations: 10.5 ms CPU (target ≤ 10: **missed**)") ||
		!strings.Contains(got, "0.45 MB peak RSS (target ≤ 0.6: met)") {
		t.Errorf("growth line:\n%s", got)
	}
}

package main

import "testing"

func TestCountFuncs(t *testing.T) {
	nm := "" +
		"   1a2b0 T example.com/compare/github.(*Client).MetaRoot\n" +
		"   1a400 t example.com/compare/github.init.0.func1\n" +
		"   1b000 T github.com/kithttp/kit.(*Endpoint[go.shape.struct { Owner string; Repo string },go.shape.struct { ID int64 }]).Call\n" +
		"   1c000 T github.com/kithttp/kit.walk[go.shape.int].func3\n" +
		"   1d000 T type:.eq.[2]interface {}\n" +
		"   1e000 T example.com/compare/github.(*Items).Slice\n" +
		"   2f000 R github.com/kithttp/kit..dict.Endpoint[example.com/compare/github.P,example.com/compare/github.R]\n" +
		"   30000 D example.com/compare/github.table\n" +
		"         U github.com/kithttp/kit.NewEndpoint[go.shape.int]\n" +
		"         U fmt.Sprintf\n" +
		"\n" +
		"garbage\n"
	got := countFuncs(nm)
	want := funcCount{total: 6, instantiated: 2}
	if got != want {
		t.Errorf("countFuncs = %+v, want %+v", got, want)
	}
}

func TestNmSymbol(t *testing.T) {
	for _, tc := range []struct {
		line, kind, name string
		ok               bool
	}{
		{"   1a2b0 T pkg.F", "T", "pkg.F", true},
		{"         U fmt.Sprintf", "U", "fmt.Sprintf", true},
		{"   1b000 T kit.F[go.shape.struct { A int }]", "T", "kit.F[go.shape.struct { A int }]", true},
		{"", "", "", false},
		{"garbage", "", "", false},
		{"   1a2b0 TT pkg.F", "", "", false},
	} {
		kind, name, ok := nmSymbol(tc.line)
		if kind != tc.kind || name != tc.name || ok != tc.ok {
			t.Errorf("nmSymbol(%q) = %q, %q, %v; want %q, %q, %v", tc.line, kind, name, ok, tc.kind, tc.name, tc.ok)
		}
	}
}

func TestIsInstantiation(t *testing.T) {
	for name, want := range map[string]bool{
		"kit.Map[go.shape.int,go.shape.string]":                 true,
		"kit.(*Pager[go.shape.struct {}]).Next.func1":           true,
		"kit.(*Endpoint[example.com/p.P,example.com/p.R]).Call": true,
		"type:.eq.[2]string":                                    false,
		"type:.hash.map[string]int":                             false,
		"pkg.F":                                                 false,
		"pkg.glob..func1":                                       false,
		"pkg.(*T).M":                                            false,
		"pkg.f[2]":                                              false,
		"pkg.f[]":                                               false,
		"[":                                                     false,
		"x[":                                                    false,
	} {
		if got := isInstantiation(name); got != want {
			t.Errorf("isInstantiation(%q) = %v, want %v", name, got, want)
		}
	}
}

package main

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestKitgenSkipped(t *testing.T) {
	n, reasons, ok := kitgenSkipped(readTestdata(t, "kitgen-openai.txt"))
	want := map[string]int{
		"query parameter metadata: a map[string]string (style deepObject) has no form kit sends yet":      1,
		"query parameter effective_at: a ListAuditLogsEffectiveAt (style form) has no form kit sends yet": 1,
	}
	if !ok || n != 2 || !maps.Equal(reasons, want) {
		t.Errorf("kitgenSkipped = %d, %v, %v; want 2, %v, true", n, reasons, ok, want)
	}
	n, reasons, ok = kitgenSkipped("kitgen openapi: petstore.yaml: 3 operations, 3 methods, 0 skipped; paginated: none\n")
	if !ok || n != 0 || len(reasons) != 0 {
		t.Errorf("no skips: kitgenSkipped = %d, %v, %v; want 0, none, true", n, reasons, ok)
	}
	if n, _, ok := kitgenSkipped("kitgen openapi: reading x.yaml: no such file\n"); ok {
		t.Errorf("a report without counts: kitgenSkipped = %d, true; want false", n)
	}
}

func TestOgenSkipped(t *testing.T) {
	n, reasons, ok := ogenSkipped(readTestdata(t, "ogen-github-skips.txt"))
	want := map[string]int{"complex anyOf not implemented": 2, "unsupported content types": 1}
	if !ok || n != 3 || !maps.Equal(reasons, want) {
		t.Errorf("ogenSkipped = %d, %v, %v; want 3, %v, true", n, reasons, ok, want)
	}
}

func TestSelect(t *testing.T) {
	docs, err := selectDocs(corpusDocs, "api.github.com.json, petstore.yaml")
	if err != nil || len(docs) != 2 || docs[0].pkg != "github" || docs[1].pkg != "petstore" {
		t.Errorf("selectDocs = %v, %v", docs, err)
	}
	if _, err := selectDocs(corpusDocs, "swagger.json"); err == nil {
		t.Error("selectDocs of an unknown document: no error")
	}
	tools, err := selectTools(allTools, "ogen")
	if err != nil || len(tools) != 1 || tools[0].name != "ogen" {
		t.Errorf("selectTools = %v, %v", tools, err)
	}
	if _, err := selectTools(allTools, "openapi-generator"); err == nil {
		t.Error("selectTools of an unknown tool: no error")
	}
}

func TestDocCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "petstore.yaml")
	if err := os.WriteFile(path, []byte("openapi: 3.0.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := corpusDocs[0].check(path); err == nil {
		t.Error("check of a document with another checksum: no error")
	}
	if err := corpusDocs[0].check(path + ".absent"); err == nil {
		t.Error("check of an absent document: no error")
	}
}

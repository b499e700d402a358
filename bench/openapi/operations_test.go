package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tenOps = `{"openapi":"3.0.3","info":{"title":"t","version":"1"},
"paths":{
 "/a":{"parameters":[{"name":"x","in":"query","schema":{"type":"integer","maximum":9007199254740993}}],"get":{"operationId":"a-get"},"post":{"operationId":"a-post"}},
 "/b":{"get":{"operationId":"b-get"},"put":{"operationId":"b-put"},"delete":{"operationId":"b-delete"}},
 "/c":{"summary":"c","patch":{"operationId":"c-patch"}},
 "/d":{"get":{"operationId":"d-get"},"head":{"operationId":"d-head"},"options":{"operationId":"d-options"},"trace":{"operationId":"d-trace"}}
},
"components":{"schemas":{"S":{"type":"string","description":"<b>&"}}}}`

func TestCountOperations(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "doc.json")
	ym := filepath.Join(dir, "doc.yaml")
	if err := os.WriteFile(js, []byte(tenOps), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := "openapi: 3.1.0\npaths:\n  /pets:\n    parameters: []\n    get: {operationId: list}\n    post: {operationId: create}\n  /pets/{id}:\n    get: {operationId: show}\n"
	if err := os.WriteFile(ym, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{js: 10, ym: 3} {
		if n, err := countOperations(path); err != nil || n != want {
			t.Errorf("countOperations(%s) = %d, %v; want %d", filepath.Base(path), n, err, want)
		}
	}
	if _, err := countOperations(filepath.Join(dir, "absent.json")); err == nil {
		t.Error("countOperations of an absent file: no error")
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := countOperations(bad); err == nil {
		t.Error("countOperations of a broken document: no error")
	}
}

func TestSubsetDocument(t *testing.T) {
	// In path order, each path's methods in httpMethods's order, the
	// operations are a-get a-post b-get b-put b-delete c-patch d-get
	// d-options d-head d-trace; 4 of 10 are the 0th, 2nd, 5th and 7th.
	out, kept, err := subsetDocument([]byte(tenOps), 4)
	if err != nil || kept != 4 {
		t.Fatalf("subsetDocument = %d, %v; want 4", kept, err)
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Description string `json:"description"`
			} `json:"schemas"`
		} `json:"components"`
		Info struct{ Title string } `json:"info"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"/a": {"get", "parameters"}, "/b": {"get"}, "/c": {"patch", "summary"}, "/d": {"options"}}
	if len(doc.Paths) != len(want) {
		t.Errorf("paths kept: %v, want %v", doc.Paths, want)
	}
	for p, keys := range want {
		if len(doc.Paths[p]) != len(keys) {
			t.Errorf("%s keeps %d keys, want %v", p, len(doc.Paths[p]), keys)
		}
		for _, k := range keys {
			if _, ok := doc.Paths[p][k]; !ok {
				t.Errorf("%s lost %s", p, k)
			}
		}
	}
	if doc.Info.Title != "t" || doc.Components.Schemas["S"].Description != "<b>&" {
		t.Errorf("the rest of the document changed: %s", out)
	}
	// A large integer keeps its digits.
	if !json.Valid(out) || !strings.Contains(string(doc.Paths["/a"]["parameters"]), "9007199254740993") {
		t.Errorf("parameters changed: %s", doc.Paths["/a"]["parameters"])
	}

	if _, kept, err := subsetDocument([]byte(tenOps), 50); err != nil || kept != 10 {
		t.Errorf("subsetDocument of more than all = %d, %v; want 10", kept, err)
	}
	if _, _, err := subsetDocument([]byte("[]"), 4); err == nil {
		t.Error("subsetDocument of a document that is not an object: no error")
	}
	if _, _, err := subsetDocument([]byte(`{"paths":[]}`), 4); err == nil {
		t.Error("subsetDocument of paths that are not an object: no error")
	}
}

package openapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestLoadRemote: with -remote, a document served over HTTP is read, its
// relative $refs resolve against its URL, a local document's $ref to a URL
// is followed, each document is fetched once, and a 404, a document too
// large or an unknown scheme skips only the operations that need it, with
// the URL (never its user information) in the reason.
func TestLoadRemote(t *testing.T) {
	var fetches atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/api/spec.yaml", func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Write([]byte(`openapi: 3.1.0
info: {title: Remote, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "models/pet.yaml#/Pet"}}}}
  /owners:
    get:
      operationId: listOwners
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "models/pet.yaml#/Owner"}}}}
  /gone:
    get:
      operationId: gone
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "missing.yaml#/X"}}}}
`))
	})
	mux.HandleFunc("/api/models/pet.yaml", func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Write([]byte("Pet: {type: object, properties: {name: {type: string}, owner: {$ref: '#/Owner'}}}\nOwner: {type: object, properties: {login: {type: string}}}\n"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	doc, err := LoadRemote(context.Background(), srv.URL+"/api/spec.yaml", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Ops) != 2 || len(doc.Skipped) != 1 {
		t.Fatalf("ops %d, skipped %+v", len(doc.Ops), doc.Skipped)
	}
	if s := doc.Skipped[0]; !strings.Contains(s.Reason, srv.URL+"/api/missing.yaml") || !strings.Contains(s.Reason, "404") {
		t.Errorf("the missing document: %+v", s)
	}
	if n := fetches.Load(); n != 2 {
		t.Errorf("fetched %d times, want 2 (each document once)", n)
	}
	pet := doc.Ops[0].Responses[0].Content[0].Schema
	if len(pet.Properties) != 2 || pet.Properties[1].Schema != doc.Ops[1].Responses[0].Content[0].Schema {
		t.Errorf("Pet's owner is not the Owner schema: %+v", pet.Properties)
	}

	// A local document's $ref to a URL: followed with LoadRemote, an error
	// naming the flag with Load; credentials in the URL are never shown.
	dir := t.TempDir()
	local := filepath.Join(dir, "spec.yaml")
	ref := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1) + "/api/models/pet.yaml#/Pet"
	os.WriteFile(local, []byte(`openapi: 3.0.3
info: {title: Local, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "`+ref+`"}}}}
  /ftp:
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "ftp://example.com/x.yaml#/X"}}}}
`), 0o644)
	doc, err = LoadRemote(context.Background(), local, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Ops) != 1 || len(doc.Skipped) != 1 || !strings.Contains(doc.Skipped[0].Reason, "only http and https") {
		t.Fatalf("ops %d, skipped %+v", len(doc.Ops), doc.Skipped)
	}
	doc, err = Load(local)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Skipped) != 2 || !strings.Contains(doc.Skipped[0].Reason, "-remote") {
		t.Fatalf("without -remote: %+v", doc.Skipped)
	}
	for _, s := range doc.Skipped {
		if strings.Contains(s.Reason, "s3cret") {
			t.Errorf("a credential in a reason: %s", s.Reason)
		}
	}

	// The spec itself at a URL that fails.
	if _, err := LoadRemote(context.Background(), srv.URL+"/nope.yaml", srv.Client()); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a missing remote spec: %v", err)
	}
}

// TestFetchRemoteLimits: a document larger than MaxRemoteSize is refused,
// and the error text never holds the URL's user information.
func TestFetchRemoteLimits(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 1<<20)
		for i := 0; i <= MaxRemoteSize>>20; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1) + "/big.yaml"
	_, err := fetchRemote(context.Background(), srv.Client(), u)
	if err == nil || !strings.Contains(err.Error(), "larger than") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a huge document: %v", err)
	}
	srv.Close()
	_, err = fetchRemote(context.Background(), http.DefaultClient, u)
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a closed server: %v", err)
	}
}

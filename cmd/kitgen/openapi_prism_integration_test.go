//go:build integration

package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
	users "github.com/kithttp/kit/examples/openapi"
)

// prismURL returns the URL of a Stoplight Prism mock that .ci/prism
// started for a document, or skips.
func prismURL(t *testing.T, env string) string {
	t.Helper()
	u := os.Getenv(env)
	if u == "" {
		t.Skipf("%s is not set: run .ci/prism, which starts Prism mocks of the documents", env)
	}
	return u
}

// TestOpenAPIPrismUsers calls the client generated from
// examples/openapi/spec.yaml against Prism serving that same document:
// Prism checks each request against the document (path, query, body,
// security) and answers from its schemas.
func TestOpenAPIPrismUsers(t *testing.T) {
	base := prismURL(t, "KIT_PRISM_USERS")
	ctx := context.Background()
	c, err := users.NewClient(base, kit.WithAuth(kit.Bearer("demo")))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.UsersAPI.GetUser(ctx, 1); err != nil {
		t.Errorf("GetUser: %v", err)
	}
	if _, err := c.UsersAPI.CreateUser(ctx, users.NewUser{Name: "Grace", Email: "grace@example.com"}); err != nil {
		t.Errorf("CreateUser: %v", err)
	}
	perPage := int64(10)
	for u, err := range c.UsersAPI.ListUsers(ctx, &users.ListUsersParams{PerPage: &perPage}) {
		if err != nil {
			t.Errorf("ListUsers, first page: %v", err)
		}
		_ = u
		break // Prism's pages are examples: the first is what it can check
	}
	for _, err := range c.UsersAPI.ScanUsers(ctx, nil) {
		if err != nil {
			t.Errorf("ScanUsers, first page: %v", err)
		}
		break
	}
	if _, err := c.API.Health(ctx); err != nil {
		t.Errorf("Health (security: [], sent without credentials): %v", err)
	}

	// Without credentials, Prism enforces the document's security.
	anon, err := users.NewClient(base)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	_, err = anon.UsersAPI.GetUser(ctx, 1)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Errorf("GetUser without a token: %v, want a 401 from Prism", err)
	}
	if _, err := anon.API.Health(ctx); err != nil {
		t.Errorf("Health without a token: %v", err)
	}
}

// TestOpenAPIPrismPetstore generates Petstore's client from the corpus
// document and runs calls of it against Prism serving the same document.
func TestOpenAPIPrismPetstore(t *testing.T) {
	t.Parallel() // the two cores build the generated packages side by side
	prismCorpus(t, "KIT_PRISM_PETSTORE", "petstore.yaml")
}

// TestOpenAPIPrismGitHub generates the client of GitHub's REST description
// and calls a GET with path parameters, the first page of a Link-paginated
// list, a POST with a JSON body, GET …/contents/{path...} and a 204 against
// Prism serving the document (see testdata/openapi-prism/github_test.go).
//
// Prism cannot start from the file as it is without network: it
// dereferences every "$ref" member, example values included, and six
// members of GitHub's SCIM group examples are SCIM's own "$ref" attribute,
// a URL on api.github.com. .ci/prism serves a copy without exactly those six
// members (.ci/prism-offline.js); the client is generated from the file
// itself.
func TestOpenAPIPrismGitHub(t *testing.T) {
	t.Parallel() // the two cores build the generated packages side by side
	prismCorpus(t, "KIT_PRISM_GITHUB", "api.github.com.json")
}

// TestOpenAPIPrismOpenAI generates the client of OpenAI's 3.1 document and
// calls a cursor-paginated list, a POST with a JSON body, a multipart
// upload and an error response against Prism serving the document, which
// enforces its bearer security: a call without the token gets 401 (see
// testdata/openapi-prism/openai_test.go).
func TestOpenAPIPrismOpenAI(t *testing.T) {
	t.Parallel() // the two cores build the generated packages side by side
	prismCorpus(t, "KIT_PRISM_OPENAI", "openai_openapi.yaml")
}

// prismCorpus generates the client of a corpus document as
// TestOpenAPICorpus does, adds the driver testdata/openapi-prism/PKG_test.go
// to its package, and runs it against the Prism mock named by env. .ci/prism
// starts the mocks with --errors: a request that the document does not
// allow gets a 422, which fails the driver.
func prismCorpus(t *testing.T, env, file string) {
	t.Helper()
	base := prismURL(t, env)
	dir, err := filepath.Abs(corpusDir())
	if err != nil {
		t.Fatal(err)
	}
	pkg := ""
	for _, d := range corpusDocs {
		if d.file == file {
			pkg = d.pkg
		}
	}
	driver, err := os.ReadFile(filepath.Join("testdata", "openapi-prism", pkg+"_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	mod := newModule(t, "example.com/prism")
	report := corpusClient(t, dir, mod, file)
	t.Logf("%s", strings.SplitN(report, "\n", 2)[0])
	testmod.WriteFile(t, filepath.Join(mod, pkg, "prism_test.go"), driver)
	// -vet=off: TestOpenAPICorpus vets the generated packages already.
	cmd := exec.Command("go", "test", "-count=1", "-vet=off", "-v", "./"+pkg)
	cmd.Dir = mod
	cmd.Env = append(testmod.Env(), env+"="+base)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the generated %s client against Prism: %v\n%s", pkg, err, out)
	}
	t.Logf("%s", out)
}

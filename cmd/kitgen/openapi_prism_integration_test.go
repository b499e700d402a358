//go:build integration

package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
	users "github.com/kithttp/kit/examples/openapi"
	"golang.org/x/tools/txtar"
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
	if _, err := c.GetUser(ctx, 1); err != nil {
		t.Errorf("GetUser: %v", err)
	}
	if _, err := c.CreateUser(ctx, users.NewUser{Name: "Grace", Email: "grace@example.com"}); err != nil {
		t.Errorf("CreateUser: %v", err)
	}
	perPage := int64(10)
	for u, err := range c.ListUsers(ctx, &users.ListUsersParams{PerPage: &perPage}) {
		if err != nil {
			t.Errorf("ListUsers, first page: %v", err)
		}
		_ = u
		break // Prism's pages are examples: the first is what it can check
	}
	for _, err := range c.ScanUsers(ctx, nil) {
		if err != nil {
			t.Errorf("ScanUsers, first page: %v", err)
		}
		break
	}
	if _, err := c.Health(ctx); err != nil {
		t.Errorf("Health (security: [], sent without credentials): %v", err)
	}

	// Without credentials, Prism enforces the document's security.
	anon, err := users.NewClient(base)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	_, err = anon.GetUser(ctx, 1)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Errorf("GetUser without a token: %v, want a 401 from Prism", err)
	}
	if _, err := anon.Health(ctx); err != nil {
		t.Errorf("Health without a token: %v", err)
	}
}

// TestOpenAPIPrismPetstore generates Petstore's client from the corpus
// document and runs calls of it against Prism serving the same document.
func TestOpenAPIPrismPetstore(t *testing.T) {
	base := prismURL(t, "KIT_PRISM_PETSTORE")
	spec, err := filepath.Abs(filepath.Join(corpusDir(), "petstore.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mod := newModule(t, "example.com/prism")
	testmod.Extract(t, &txtar.Archive{Files: []txtar.File{{Name: "petstore/prism_test.go", Data: []byte(petstoreTest)}}}, mod)
	if code, out := kitgen(t, mod, "openapi", "-o", "./petstore", spec); code != 0 {
		t.Fatalf("kitgen openapi: exit %d\n%s", code, out)
	}
	cmd := exec.Command("go", "test", "-count=1", "./petstore")
	cmd.Dir = mod
	cmd.Env = append(testmod.Env(), "KIT_PRISM_PETSTORE="+base)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the generated Petstore client against Prism: %v\n%s", err, out)
	}
}

const petstoreTest = `package petstore

import (
	"context"
	"os"
	"testing"
)

func TestAgainstPrism(t *testing.T) {
	c, err := NewClient(os.Getenv("KIT_PRISM_PETSTORE"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	limit := int32(2)
	pets, err := c.ListPets(ctx, &ListPetsParams{Limit: &limit})
	if err != nil || len(pets) == 0 {
		t.Errorf("ListPets: %v, %v", pets, err)
	}
	if _, err := c.ShowPetByID(ctx, "1"); err != nil {
		t.Errorf("ShowPetByID: %v", err)
	}
	if err := c.CreatePets(ctx, Pet{ID: 1, Name: "Rex"}); err != nil {
		t.Errorf("CreatePets: %v", err)
	}
}
`

package github

// The driver of TestOpenAPIPrismGitHub (cmd/kitgen): copied into the
// package generated from GitHub's document and run against Stoplight Prism
// serving that document with --errors, so a request the document does not
// allow fails (422) instead of passing unnoticed. Prism answers with the
// document's examples, which the assertions below name.

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/kithttp/kit"
)

func TestAgainstPrism(t *testing.T) {
	base := os.Getenv("KIT_PRISM_GITHUB")
	ctx := context.Background()
	c, err := NewClient(base)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// A GET with path parameters, decoded into the document's model.
	repo, err := c.ReposAPI.ReposGet(ctx, "octocat", "Hello-World")
	if err != nil {
		t.Fatalf("ReposGet: %v", err)
	}
	if repo.FullName != "octocat/Hello-World" || repo.Owner.Login != "octocat" || repo.ID != 1296269 {
		t.Errorf("ReposGet: %+v, want the document's octocat/Hello-World", repo)
	}

	// A list paginated by Link headers, with an enum and an integer in
	// the query: the first record of the first page. Prism's Link header
	// names https://api.github.com for the next page, which a test on
	// loopback does not ask for.
	typ, perPage := ReposListForOrgTypeAll, int64(2)
	n := 0
	for r, err := range c.ReposAPI.ReposListForOrg(ctx, "octokit", &ReposListForOrgParams{Type: &typ, PerPage: &perPage}) {
		if err != nil {
			t.Fatalf("ReposListForOrg, first page: %v", err)
		}
		if r.FullName != "octocat/Hello-World" || r.Owner.Login != "octocat" {
			t.Errorf("ReposListForOrg, first record: %+v", r)
		}
		n++
		break
	}
	if n != 1 {
		t.Errorf("ReposListForOrg gave %d records, want the first", n)
	}

	// A POST with a JSON body (201 and a model).
	private := true
	created, err := c.ReposAPI.ReposCreateForAuthenticatedUser(ctx, ReposCreateForAuthenticatedUserRequest{Name: "Hello-World", Private: &private})
	if err != nil {
		t.Fatalf("ReposCreateForAuthenticatedUser: %v", err)
	}
	if created.FullName != "octocat/Hello-World" || created.Owner.Login != "octocat" {
		t.Errorf("ReposCreateForAuthenticatedUser: %+v", created)
	}
	// Prism does check this body: one without the required name is refused.
	resp, err := http.Post(base+"/user/repos", "application/json", strings.NewReader(`{"private":true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(resp.Header.Get("sl-violations"), "name") {
		t.Errorf("POST /user/repos without a name: %d, violations %q; want 422 naming it (is Prism running with --errors?)", resp.StatusCode, resp.Header.Get("sl-violations"))
	}

	// GET /repos/{owner}/{repo}/contents/{path...}: a union result (oneOf
	// directory, file, symlink, submodule) decoded as the file it is.
	content, err := c.ReposAPI.ReposGetContent(ctx, "octokit", "octokit.rb", "README.md", nil)
	if err != nil {
		t.Fatalf("ReposGetContent: %v", err)
	}
	file, err := content.AsContentFile()
	if err != nil || file.Type != "file" || file.Encoding != "base64" || file.Name != "README.md" || file.Content == "" {
		t.Errorf("ReposGetContent as a file: %+v, %v", file, err)
	}
	// A value with slashes goes out as they are (x-multi-segment), which
	// Prism's router cannot match: it gives one segment to each template
	// parameter, and answers 404 "no path matched". An escaped %2F would
	// have matched the route.
	_, err = c.ReposAPI.ReposGetContent(ctx, "octokit", "octokit.rb", "lib/octokit.rb", nil)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound || !strings.HasSuffix(he.URL, "/contents/lib/octokit.rb") || !strings.Contains(string(he.Body), "NO_PATH_MATCHED") {
		t.Errorf("ReposGetContent of lib/octokit.rb: %v; want Prism's 404 for the unescaped path", err)
	}

	// A PUT without a body answered 204.
	if err := c.ActivityAPI.ActivityStarRepoForAuthenticatedUser(ctx, "octocat", "Hello-World"); err != nil {
		t.Errorf("ActivityStarRepoForAuthenticatedUser: %v", err)
	}

	// The document's error model: Prefer: code=404 makes Prism answer with
	// the 404 response the document declares (a basic-error).
	c404, err := NewClient(base, kit.WithHeader("Prefer", "code=404"))
	if err != nil {
		t.Fatal(err)
	}
	defer c404.Close()
	_, err = c404.ReposAPI.ReposGet(ctx, "octocat", "missing")
	var be *BasicError
	if !errors.As(err, &be) || be.Message == nil || !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
		t.Errorf("ReposGet of a missing repository: %v; want a 404 with a *BasicError", err)
	}
}

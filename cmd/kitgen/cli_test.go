package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
)

const cliDecl = `package api

import (
	"context"

	"github.com/kithttp/kit"
)

type User struct {
	ID int ` + "`json:\"id\"`" + `
}

//kit:client
type Client struct {
	*kit.Client
	API
}

type API interface {
	//kit:get /users/{id}
	GetUser(ctx context.Context, id int) (User, error)
}
`

// cliModule writes a module with the package api holding cliDecl.
func cliModule(t *testing.T) (mod, pkg string) {
	t.Helper()
	mod = newModule(t, "example.com/cli")
	pkg = filepath.Join(mod, "api")
	testmod.WriteFile(t, filepath.Join(pkg, "api.go"), []byte(cliDecl))
	return mod, pkg
}

func TestCheckAndRewrite(t *testing.T) {
	t.Parallel()
	mod, pkg := cliModule(t)
	out := filepath.Join(pkg, "kit_gen.go")

	// kitgen with no argument generates the current directory.
	if code, msg := kitgen(t, pkg); code != 0 {
		t.Fatalf("kitgen: exit %d\n%s", code, msg)
	}
	if code, msg := kitgen(t, mod, "-check", "./api"); code != 0 || msg != "" {
		t.Fatalf("kitgen -check on a fresh output: exit %d, %q", code, msg)
	}

	// Writes only when the bytes change: an unchanged output keeps its
	// modification time.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(out, old, old); err != nil {
		t.Fatal(err)
	}
	if code, msg := kitgen(t, pkg); code != 0 {
		t.Fatalf("kitgen: exit %d\n%s", code, msg)
	}
	if fi, err := os.Stat(out); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("an up-to-date output was rewritten (%v)", err)
	}

	// A changed declaration: -check fails and writes nothing.
	before, _ := os.ReadFile(out)
	testmod.WriteFile(t, filepath.Join(pkg, "api.go"), []byte(strings.Replace(cliDecl, "/users/{id}", "/people/{id}", 1)))
	code, msg := kitgen(t, mod, "-check", "./api")
	if code != 1 || msg != filepath.Join("api", "kit_gen.go")+" is out of date: run go generate\n" {
		t.Errorf("kitgen -check after a change: exit %d, %q", code, msg)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Error("kitgen -check changed the output")
	}
	if code, msg := kitgen(t, pkg); code != 0 {
		t.Fatalf("kitgen: exit %d\n%s", code, msg)
	}
	if after, _ := os.ReadFile(out); !strings.Contains(string(after), `"/people/{id}"`) {
		t.Error("the output was not regenerated")
	}
	if entries, _ := os.ReadDir(pkg); len(entries) != 2 {
		t.Errorf("%d files in the package, want 2 (no temporary file left)", len(entries))
	}
}

func TestRemoveWhenNoClientRemains(t *testing.T) {
	t.Parallel()
	_, pkg := cliModule(t)
	out := filepath.Join(pkg, "kit_gen.go")
	if code, msg := kitgen(t, pkg); code != 0 {
		t.Fatalf("kitgen: exit %d\n%s", code, msg)
	}
	noClient := strings.Replace(strings.Replace(cliDecl, "//kit:client\n", "", 1), "//kit:get /users/{id}\n", "", 1)
	testmod.WriteFile(t, filepath.Join(pkg, "api.go"), []byte(noClient))
	if code, msg := kitgen(t, pkg, "-check"); code != 1 || !strings.Contains(msg, "no //kit:client remains") {
		t.Errorf("kitgen -check: exit %d, %q", code, msg)
	}
	if code, msg := kitgen(t, pkg); code != 0 {
		t.Fatalf("kitgen: exit %d\n%s", code, msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the output of a package with no //kit:client is still there (%v)", err)
	}
	// A file of that name that kitgen did not write is left alone.
	testmod.WriteFile(t, out, []byte("package api\n"))
	if code, msg := kitgen(t, pkg); code != 0 {
		t.Fatalf("kitgen: exit %d\n%s", code, msg)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("a hand-written kit_gen.go was removed: %v", err)
	}
}

func TestDiagnosticsAndFlags(t *testing.T) {
	t.Parallel()
	mod, pkg := cliModule(t)
	testmod.WriteFile(t, filepath.Join(pkg, "api.go"), []byte(strings.Replace(cliDecl, "{id}", "{userID}", 1)))
	code, msg := kitgen(t, mod, "-o", "client_gen.go", "./api")
	want := filepath.Join("api", "api.go") + ":20:19: GetUser: placeholder {userID} has no parameter named userID\n"
	if code != 1 || msg != want {
		t.Errorf("kitgen: exit %d, %q; want 1, %q", code, msg, want)
	}
	if _, err := os.Stat(filepath.Join(pkg, "client_gen.go")); !os.IsNotExist(err) {
		t.Error("an output was written despite the errors")
	}
	for _, args := range [][]string{{"-o", "x/kit_gen.go"}, {"-o", "gen.txt"}, {"-o", "a_test.go"}, {"-nope"}} {
		if code, _ := kitgen(t, pkg, args...); code != 2 {
			t.Errorf("kitgen %s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}

func TestBuildTags(t *testing.T) {
	t.Parallel()
	_, pkg := cliModule(t)
	testmod.WriteFile(t, filepath.Join(pkg, "extra.go"), []byte(`//go:build special

package api

import "github.com/kithttp/kit"

//kit:client
type Extra struct {
	*kit.Client
}
`))
	out := filepath.Join(pkg, "kit_gen.go")
	for _, tc := range []struct {
		args      []string
		wantExtra bool
	}{{nil, false}, {[]string{"-tags", "special"}, true}} {
		if code, msg := kitgen(t, pkg, tc.args...); code != 0 {
			t.Fatalf("kitgen %v: exit %d\n%s", tc.args, code, msg)
		}
		src, _ := os.ReadFile(out)
		if got := strings.Contains(string(src), "func NewExtra("); got != tc.wantExtra {
			t.Errorf("kitgen %v: NewExtra generated: %v, want %v", tc.args, got, tc.wantExtra)
		}
	}
}

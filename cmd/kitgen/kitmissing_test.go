package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kithttp/kit"
)

// TestKitNotLoadable: in a module that does not require kit (or requires
// it and cannot load it), both front ends say the command that fixes it,
// go get github.com/kithttp/kit@<this kitgen's version>, not a
// diagnostic on the client struct or "a bug; please report it".
func TestKitNotLoadable(t *testing.T) {
	for _, c := range []struct {
		name  string
		gomod string
	}{
		{"not required", "module example.com/nokit\n\ngo 1.26.0\n"},
		{"required, not in the module cache", "module example.com/nokit\n\ngo 1.26.0\n\nrequire github.com/kithttp/kit v0.0.1-notpublished\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"go.mod":    c.gomod,
				"spec.yaml": "openapi: 3.0.0\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get:\n      operationId: getA\n      responses: {\"204\": {description: ok}}\n",
				"decl/c.go": "package decl\n\nimport (\n\t\"context\"\n\n\t\"github.com/kithttp/kit\"\n)\n\n//kit:client\ntype Client struct {\n\t*kit.Client\n\tAPI\n}\n\ntype API interface {\n\t//kit:get /a\n\tGetA(ctx context.Context) error\n}\n",
			}
			for name, data := range files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := "go get github.com/kithttp/kit@v" + kit.Version
			for _, args := range [][]string{{"openapi", "-o", "./api", "spec.yaml"}, {"./decl"}} {
				cmd := exec.Command(os.Args[0], args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "KITGEN_TEST_AS_KITGEN=1", "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=mod")
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				if err == nil {
					t.Fatalf("kitgen %s: no error:\n%s", strings.Join(args, " "), out.String())
				}
				if got := out.String(); !strings.Contains(got, want) || strings.Contains(got, "please report") || strings.Contains(got, "go mod tidy") {
					t.Errorf("kitgen %s:\n%s\nwant the command %q", strings.Join(args, " "), got, want)
				}
			}
		})
	}
}

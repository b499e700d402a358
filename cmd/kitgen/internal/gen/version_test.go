package gen

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/txtar"
)

func TestVersionSkew(t *testing.T) {
	t.Parallel()
	user := &packages.Module{Path: "example.com/api", Main: true}
	kitAt := func(v string) *packages.Module { return &packages.Module{Path: kitPath, Version: v} }
	for _, tt := range []struct {
		name  string
		kit   *packages.Module
		skew  string // the kit version reported; "" for none
		first string // the command the message says first
	}{
		{"no kit", nil, "", ""},
		{"the same version", kitAt("v0.3.0"), "", ""},
		{"kit's own module", &packages.Module{Path: kitPath, Main: true}, "", ""},
		{"a local checkout", &packages.Module{Path: kitPath, Version: "v0.0.0", Replace: &packages.Module{Path: "../kit"}}, "", ""},
		{"a devel build", kitAt("(devel)"), "", ""},
		{"no version", kitAt(""), "", ""},
		{"an older kit", kitAt("v0.2.0"), "v0.2.0", "go get github.com/kithttp/kit@v0.3.0"},
		{"a newer kit", kitAt("v0.4.1"), "v0.4.1", "go run github.com/kithttp/kit/cmd/kitgen@v0.4.1"},
		{"a pseudo-version", kitAt("v0.3.1-0.20260101000000-abcdefabcdef"), "v0.3.1-0.20260101000000-abcdefabcdef", "go run github.com/kithttp/kit/cmd/kitgen@v0.3.1-0.20260101000000-abcdefabcdef"},
		{"replaced by another version", &packages.Module{Path: kitPath, Version: "v0.3.0", Replace: &packages.Module{Path: kitPath, Version: "v0.2.5"}}, "v0.2.5", "go get github.com/kithttp/kit@v0.3.0"},
	} {
		err := versionSkew(user, tt.kit, "v0.3.0")
		if tt.skew == "" {
			if err != nil {
				t.Errorf("%s: %v, want no error", tt.name, err)
			}
			continue
		}
		var ve *VersionError
		if !errors.As(err, &ve) || ve.Kit != tt.skew || ve.Own != "v0.3.0" || ve.Module != "example.com/api" {
			t.Errorf("%s: %#v, want a *VersionError for kit %s", tt.name, err, tt.skew)
			continue
		}
		msg := err.Error()
		run := strings.Index(msg, "run `")
		if run < 0 || !strings.HasPrefix(msg[run+len("run `"):], tt.first+"`") {
			t.Errorf("%s: %q, want it to say first: run `%s`", tt.name, msg, tt.first)
		}
		for _, want := range []string{"example.com/api", tt.skew, "v0.3.0", "go get github.com/kithttp/kit@v0.3.0", "go run github.com/kithttp/kit/cmd/kitgen@" + tt.skew} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q, want it to name %q", tt.name, msg, want)
			}
		}
	}
}

// TestVersionSkewModule runs kitgen over a module that requires kit at
// another version, published (as a copy of this tree) in a module proxy on
// disk: kitgen must refuse with the message, before it reads a declaration.
func TestVersionSkewModule(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes kit into a file proxy and builds it")
	}
	const other = "v0.2.0"
	if "v"+kit.Version == other {
		t.Fatalf("kit.Version is %s: choose another version for the test", other)
	}
	proxy := t.TempDir()
	var z bytes.Buffer
	m := module.Version{Path: kitPath, Version: other}
	if err := zip.CreateFromDir(&z, m, testmod.Root(t)); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(testmod.Root(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// The proxy's layout (see go help goproxy): one version of one module.
	vdir := filepath.Join(proxy, "github.com", "kithttp", "kit", "@v")
	info := `{"Version":"` + other + `","Time":"2026-01-01T00:00:00Z"}`
	for name, data := range map[string][]byte{
		"list": []byte(other + "\n"), other + ".info": []byte(info), other + ".mod": gomod, other + ".zip": z.Bytes(),
	} {
		testmod.WriteFile(t, filepath.Join(vdir, name), data)
	}
	// kit's dependencies come from the module cache; nothing is fetched.
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")

	ar := txtar.Parse([]byte(`-- go.mod --
module example.com/skew

go 1.26.0

require github.com/kithttp/kit ` + other + `
-- api.go --
package api

import (
	"context"

	"github.com/kithttp/kit"
)

//kit:client
type Client struct {
	*kit.Client
	API
}

type API interface {
	//kit:get /users/{id}
	GetUser(ctx context.Context, id int) (*kit.Response, error)
}
`))
	dir := extract(t, ar)
	var stderr bytes.Buffer
	if Run(Config{Stderr: &stderr, WorkDir: dir}, []string{dir}) {
		t.Fatalf("kitgen succeeded against kit %s", other)
	}
	msg := stderr.String()
	for _, want := range []string{"example.com/skew builds with github.com/kithttp/kit " + other, "kit v" + kit.Version + "'s", "go get github.com/kithttp/kit@v" + kit.Version, "go run github.com/kithttp/kit/cmd/kitgen@" + other} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr %q, want it to say %q", msg, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, DefaultOutput)); err == nil {
		t.Errorf("%s was written", DefaultOutput)
	}
}

package gen

import (
	"bytes"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
	"github.com/kithttp/kit/internal/textdiff"
	"golang.org/x/tools/txtar"
)

// TestGolden generates the package of each testdata/golden archive and
// compares the output with its want/kit_gen.go byte for byte (go test
// -update rewrites the wants). The output must also type-check with the
// declarations it was generated from.
func TestGolden(t *testing.T) {
	for _, file := range cases(t, "golden") {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir := extract(t, ar)
			got, diags, err := Generate(dir, DefaultOutput, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(diags) > 0 {
				var b bytes.Buffer
				printDiags(&b, diags, dir)
				t.Fatalf("diagnostics:\n%s", b.String())
			}
			if *update {
				testmod.SetFile(ar, "want/kit_gen.go", got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if want, _ := testmod.File(ar, "want/kit_gen.go"); !bytes.Equal(got, want) {
				t.Errorf("generated file differs from want/kit_gen.go (go test -update rewrites it):\n%s", textdiff.Lines(string(want), string(got)))
			}
			testmod.WriteFile(t, filepath.Join(dir, DefaultOutput), got)
			typeCheck(t, dir)
		})
	}
}

// typeCheck type-checks the package in dir, generated file included, and
// fails on any error.
func typeCheck(t *testing.T, dir string) {
	t.Helper()
	pkg, diags, err := load(token.NewFileSet(), dir, "", nil)
	if err != nil || len(diags) > 0 {
		t.Fatalf("loading the generated package: %v %v", err, diags)
	}
	for _, e := range pkg.typeErrors {
		t.Errorf("generated package does not compile: %v", e)
	}
}

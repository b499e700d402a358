package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
	"golang.org/x/tools/txtar"
)

// TestErrors runs kitgen over the package of each testdata/errors archive
// and compares what it prints with want.stderr exactly (go test -update
// rewrites it): one check of a declaration (a directive, or a parameter's
// route) per archive, with its file:line:col. A failed run
// must leave an existing output untouched.
func TestErrors(t *testing.T) {
	for _, file := range cases(t, "errors") {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, ok := testmod.File(ar, "want.stderr")
			if !ok {
				t.Fatal("no want.stderr")
			}
			dir := extract(t, ar)
			old, hadOutput := testmod.File(ar, DefaultOutput)
			var stderr bytes.Buffer
			if Run(Config{Stderr: &stderr, WorkDir: dir}, []string{dir}) {
				t.Errorf("kitgen succeeded; want it to fail")
			}
			if *update {
				testmod.SetFile(ar, "want.stderr", stderr.Bytes())
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if got := stderr.String(); got != string(want) {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
			}
			got, err := os.ReadFile(filepath.Join(dir, DefaultOutput))
			switch {
			case hadOutput && (err != nil || !bytes.Equal(got, old)):
				t.Errorf("the existing %s was changed", DefaultOutput)
			case !hadOutput && err == nil:
				t.Errorf("%s was written", DefaultOutput)
			}
		})
	}
}

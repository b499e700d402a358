package gen

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want files of golden and error tests")

func TestMain(m *testing.M) {
	testmod.SetEnv()
	os.Exit(m.Run())
}

// extract writes the files of an archive into a new temporary directory
// and returns it.
func extract(t testing.TB, ar *txtar.Archive) string {
	t.Helper()
	dir := t.TempDir()
	testmod.Extract(t, ar, dir)
	return dir
}

// cases returns the txtar files of a testdata directory.
func cases(t *testing.T, dir string) []string {
	t.Helper()
	return testmod.Cases(t, filepath.Join("testdata", dir))
}

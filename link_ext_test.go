package kit_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestDefaultBuildKeepsMethodsDroppable links a program that calls one
// endpoint with the default options (the default validator included) and
// checks that nothing it links calls reflect.Value.MethodByName or Method
// with a name known only at run time. One such call anywhere makes the
// linker keep every exported method of every type a program converts to
// an interface: for a generated client, every operation of the API
// (go-playground/validator's validateFn, from v10.27.0, is one: kit
// requires v10.26.0, see the README's Dependencies).
func TestDefaultBuildKeepsMethodsDroppable(t *testing.T) {
	if testing.Short() {
		t.Skip("links a program")
	}
	cmd := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", t.TempDir()+"/linkcheck", "./testdata/linkcheck")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -ldflags=-dumpdep ./testdata/linkcheck: %v\n%.2000s", err, out)
	}
	var culprits []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		// The linker marks the functions that call Method/MethodByName
		// with a non-constant argument: "pkg.F <ReflectMethod> -> ...".
		if from, _, ok := strings.Cut(sc.Text(), " <ReflectMethod> "); ok {
			culprits = append(culprits, from)
		}
	}
	if len(culprits) > 0 {
		t.Fatalf("the linker keeps every exported method: reached from %v", culprits)
	}
	if !strings.Contains(string(out), "go-playground/validator") {
		t.Fatal("the program does not link go-playground/validator: it no longer shows the default build")
	}
}

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
)

// dockerEngineSHA256 is the sha256 of the Swagger 2.0 document the
// testdata's SOURCES.md names.
const dockerEngineSHA256 = "d3dd7ea891f84ed7676c865f55f707e86d047d17644bae192f76db52d04c3f78"

// TestOpenAPISwagger2 takes a real Swagger 2.0 document, Docker Engine's
// (internal/openapi/testdata/swagger2, see its SOURCES.md), through kitgen
// openapi, which converts it to OpenAPI 3.0 on load, then go build and go
// vet of the client, and compares the report with
// testdata/openapi-swagger2 (KITGEN_UPDATE=1 rewrites it).
func TestOpenAPISwagger2(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds a large generated package (not under -short or -race: the plain run covers it)")
	}
	spec, err := filepath.Abs(filepath.Join("internal", "openapi", "testdata", "swagger2", "docker-engine.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != dockerEngineSHA256 {
		t.Fatalf("%s: sha256 %x, want %s (its SOURCES.md)", spec, sum, dockerEngineSHA256)
	}
	mod := newModule(t, "example.com/swagger2")
	code, out := kitgen(t, mod, "openapi", "-o", "./docker", spec)
	if code != 0 {
		t.Fatalf("kitgen openapi exited with %d:\n%s", code, out)
	}
	got := corpusPathRE.ReplaceAllString(out, "")
	golden := filepath.Join("testdata", "openapi-swagger2", "docker-engine.report")
	if os.Getenv("KITGEN_UPDATE") == "1" {
		testmod.WriteFile(t, golden, []byte(got))
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the report differs from %s (KITGEN_UPDATE=1 rewrites it):\n%s", golden, got)
	}
	t.Logf("%s", strings.SplitN(got, "\n", 2)[0])
	for _, args := range [][]string{{"build"}, {"vet"}} {
		cmd := exec.Command("go", append(args, "./docker")...)
		cmd.Dir = mod
		cmd.Env = testmod.Env()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s of the generated client: %v\n%s", args[0], err, out)
		}
	}
}

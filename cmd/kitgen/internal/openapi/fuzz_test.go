package openapi

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzImport: no document makes the importer panic or hang; every error is
// an *Error with a position or names the file.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"petstore.yaml"} {
		if data, err := os.ReadFile(filepath.Join(corpusDir, name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("openapi: 3.1.0\npaths:\n  /a/{id}:\n    get:\n      parameters: [{name: id, in: path, schema: {type: [integer, \"null\"]}}]\n      responses: {\"200\": {content: {application/json: {schema: {$ref: \"#/components/schemas/A\"}}}}}\ncomponents:\n  schemas:\n    A: {allOf: [{$ref: \"#/components/schemas/A\"}], discriminator: {propertyName: k, mapping: {x: A}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := LoadBytes("spec.yaml", data)
		if err != nil {
			return
		}
		for _, op := range d.Ops {
			if op.Method == "" || op.Path == "" && op.Pos.Line == 0 {
				t.Fatalf("operation without a method or position: %+v", op)
			}
		}
	})
}

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
)

// doc is one document of the corpus (its SOURCES.md lists where each comes
// from); pkg names the generated package.
type doc struct{ file, pkg, sha256 string }

// corpusDocs are the documents kitgen's TestOpenAPICorpus generates, with
// the same checksums.
var corpusDocs = []doc{
	{"petstore.yaml", "petstore", "598136cb904e17e8eeead51ae33dd8d401fdff455d2d74f3869c4aa5f2742266"},
	{"api.github.com.json", "github", "74a329543c6c2454423151da7ba7ddd656e485ce771d21752b9164c68175fa73"},
	{"openai_openapi.yaml", "openai", "db5d7478feae10b4d331834c60d9765a8aa042e38419f9b1694288c11aa8ebc8"},
}

// check reads the document at path and compares its checksum with the
// corpus's.
func (d doc) check(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the document: %w", err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != d.sha256 {
		return fmt.Errorf("sha256 %x, want %s (the corpus's SOURCES.md)", sum, d.sha256)
	}
	return nil
}

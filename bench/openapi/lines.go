package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// lineCount is the size of a generated package.
type lineCount struct {
	files, total, nonBlank int
	bytes                  int64
}

// countLines counts the lines of the .go files directly in dir.
func countLines(dir string) (lineCount, error) {
	var c lineCount
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return c, fmt.Errorf("listing the generated files: %w", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return c, fmt.Errorf("counting the generated lines: %w", err)
		}
		c.add(data)
	}
	return c, nil
}

// add counts one file's lines; a last line without a newline counts.
func (c *lineCount) add(data []byte) {
	c.files++
	c.bytes += int64(len(data))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		c.total++
		if len(bytes.TrimSpace(line)) > 0 {
			c.nonBlank++
		}
	}
}

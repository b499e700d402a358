package main

// modproxy.go writes module versions into a directory laid out as a Go
// module proxy (<module>/@v/list, .info, .mod, .zip), for use as
// GOPROXY=file://dir.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"
)

// addVersion writes version m of a module, with its go.mod and its zip (as
// golang.org/x/mod/zip makes it), into the proxy directory dir, and lists
// the version beside those already there.
func addVersion(dir string, m module.Version, gomod, zip []byte, at time.Time) error {
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		return err
	}
	ev, err := module.EscapeVersion(m.Version)
	if err != nil {
		return err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, at.UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	var list []string
	if old, err := os.ReadFile(filepath.Join(vdir, "list")); err == nil {
		list = strings.Fields(string(old))
	}
	if !slices.Contains(list, m.Version) {
		list = append(list, m.Version)
	}
	for name, data := range map[string][]byte{
		ev + ".mod":  gomod,
		ev + ".zip":  zip,
		ev + ".info": info,
		"list":       []byte(strings.Join(list, "\n") + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

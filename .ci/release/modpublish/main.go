// Command modpublish publishes the modules of this repository, as committed
// at a git revision, into a file-based Go module proxy laid out as the go
// command expects (<module>/@v/list, .info, .mod, .zip), at kit.Version.
//
// CI puts that directory first in GOPROXY and installs kit from it the way
// a user would, from a module outside the checkout, to prove that every
// install command of the README works from a published version:
//
//	go run ./.ci/release/modpublish -o DIR [-rev HEAD]
//
// It lives beside the CI scripts, in a directory the go command leaves out
// of ./... (and which no import path can name), as the release tooling is
// no package of kit's. It publishes the root module and every nested
// module users import (all but those under bench/, examples/, testdata/
// and the directories the go command ignores, such as .ci/), and refuses to publish
// when a nested module requires kit at any version but kit.Version: a
// published go.mod that requires kit v0.0.0 or a pseudo-version cannot be
// installed, since a user's go command ignores its replace directives.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kithttp/kit"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

const kitPath = "github.com/kithttp/kit"

func main() {
	out := flag.String("o", "", "the proxy directory to write (required)")
	rev := flag.String("rev", "HEAD", "the git revision to publish")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: modpublish -o DIR [-rev REV]")
		os.Exit(2)
	}
	mods, err := publish(*out, *rev, "v"+kit.Version)
	if err != nil {
		fmt.Fprintln(os.Stderr, "modpublish:", err)
		os.Exit(1)
	}
	for _, m := range mods {
		fmt.Printf("published %s@%s\n", m.Path, m.Version)
	}
}

// publish writes every module of the repository at rev into the proxy
// directory out, at version.
func publish(out, rev, version string) ([]module.Version, error) {
	root, err := git("", "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	root = strings.TrimSpace(root)
	list, err := git(root, "ls-tree", "-r", "--name-only", rev)
	if err != nil {
		return nil, err
	}
	// The committed tree, unpacked: zips are made from it, so that
	// uncommitted files never go in, and git worktrees work too.
	tree, err := os.MkdirTemp("", "modpublish-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tree)
	if err := unpack(root, rev, tree); err != nil {
		return nil, err
	}
	var dirs []string
	for _, name := range strings.Split(strings.TrimSpace(list), "\n") {
		if path.Base(name) != "go.mod" {
			continue
		}
		dir := path.Dir(name)
		if dir != "." && skipped(dir) {
			continue
		}
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	var done []module.Version
	for _, dir := range dirs {
		m, err := publishModule(out, tree, dir, version)
		if err != nil {
			return nil, fmt.Errorf("publish %s: %w", dir, err)
		}
		done = append(done, m)
	}
	return done, nil
}

// skipped reports whether the module in dir is one users never import.
func skipped(dir string) bool {
	for _, elem := range strings.Split(dir, "/") {
		if elem == "testdata" || strings.HasPrefix(elem, ".") || strings.HasPrefix(elem, "_") {
			return true
		}
	}
	first, _, _ := strings.Cut(dir, "/")
	return first == "bench" || first == "examples"
}

func publishModule(out, tree, dir, version string) (module.Version, error) {
	subdir := dir != "."
	modDir := filepath.Join(tree, filepath.FromSlash(dir))
	data, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
	if err != nil {
		return module.Version{}, err
	}
	gomod := string(data)
	f, err := modfile.Parse(path.Join(dir, "go.mod"), []byte(gomod), nil)
	if err != nil {
		return module.Version{}, err
	}
	if f.Module == nil {
		return module.Version{}, errors.New("go.mod has no module line")
	}
	if subdir {
		if err := checkKitRequire(f, version); err != nil {
			return module.Version{}, err
		}
	}
	m := module.Version{Path: f.Module.Mod.Path, Version: version}
	var z bytes.Buffer
	if err := zip.CreateFromDir(&z, m, modDir); err != nil {
		return module.Version{}, err
	}
	if err := addVersion(out, m, []byte(gomod), z.Bytes(), time.Now()); err != nil {
		return module.Version{}, err
	}
	return m, nil
}

// checkKitRequire fails unless f requires kit at exactly version.
func checkKitRequire(f *modfile.File, version string) error {
	for _, r := range f.Require {
		if r.Mod.Path != kitPath {
			continue
		}
		if r.Mod.Version != version {
			return fmt.Errorf("go.mod requires %s %s, want %s (kit.Version): a published go.mod must require the version it is published with, since a user's go command ignores replace directives", kitPath, r.Mod.Version, version)
		}
		return nil
	}
	return nil
}

// unpack writes the tree of rev into dir, as git archive lays it out.
func unpack(root, rev, dir string) error {
	archive := exec.Command("git", "archive", "--format=tar", rev)
	archive.Dir = root
	untar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	var stderr bytes.Buffer
	archive.Stderr, untar.Stderr = &stderr, &stderr
	if err := untar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		untar.Wait()
		return fmt.Errorf("git archive %s: %v: %s", rev, err, strings.TrimSpace(stderr.String()))
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("unpack %s: %v: %s", rev, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// oapiRuntimeVersion is the github.com/oapi-codegen/runtime version that
// oapi-codegen's output is compiled against (its newest release when this
// comparison was written; oapi-codegen's module does not require it).
const oapiRuntimeVersion = "v1.9.0"

// tool is one generator. Its attempts run in order until one succeeds:
// the first is the tool's plain client-and-models configuration, the
// next ones add the option the tool's own error message or documentation
// names for what made the previous one fail.
type tool struct {
	name    string
	module  string // the tool's module, for its version; "" for kitgen
	command string // the command's package, built from bench's go.mod
	// newClient is the generated package's constructor, which takes the
	// server's URL and returns the client and an error.
	newClient string
	attempts  []attempt
	// gomod is the generated module's go.mod.
	gomod func(v versions) string
	// skipped reads the tool's output: the operations it says it skipped
	// and why. ok is false when the tool does not report skips.
	skipped func(out string) (n int, reasons map[string]int, ok bool)
}

// attempt is one way of running a tool.
type attempt struct {
	option string // what differs from the tool's plain configuration; "" for none
	// config is a configuration file's text, "" for none; "PKG" stands
	// for the package name.
	config string
	// args are the command's arguments, run in the generated module's
	// directory: spec is the document, pkg the package (and directory)
	// name, config the configuration file.
	args func(spec, pkg, config string) []string
}

// versions are the versions the comparison runs.
type versions struct {
	kitRoot                        string // the repository, which kitgen's modules replace kit by
	kit                            string // kit.Version and the tree's commit
	ogen, oapi, runtime, goVersion string
}

const ogenClientOnly = `generator:
  features:
    disable:
      - paths/server
      - webhooks/server
      - ogen/unimplemented
`

var allTools = []tool{
	{
		name:      "kitgen",
		newClient: "NewClient",
		attempts: []attempt{{
			args: func(spec, pkg, _ string) []string {
				return []string{"openapi", "-o", "./" + pkg, "-package", pkg, spec}
			},
		}},
		gomod: func(v versions) string {
			return "module example.com/compare\n\ngo 1.26.0\n\nrequire github.com/kithttp/kit v0.0.0\n\nreplace github.com/kithttp/kit => " + filepath.ToSlash(v.kitRoot) + "\n"
		},
		skipped: kitgenSkipped,
	},
	{
		name:      "ogen",
		newClient: "NewClient",
		module:    "github.com/ogen-go/ogen",
		command:   "github.com/ogen-go/ogen/cmd/ogen",
		attempts: []attempt{
			{config: ogenClientOnly, args: ogenArgs},
			{
				option: `ignore_not_implemented: ["all"]`,
				config: ogenClientOnly + "  ignore_not_implemented: [\"all\"]\n",
				args:   ogenArgs,
			},
		},
		gomod: func(v versions) string {
			return "module example.com/compare\n\ngo 1.26.0\n\nrequire github.com/ogen-go/ogen " + v.ogen + "\n"
		},
		skipped: ogenSkipped,
	},
	{
		name:      "oapi-codegen",
		newClient: "NewClientWithResponses",
		module:    "github.com/oapi-codegen/oapi-codegen/v2",
		command:   "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen",
		attempts: []attempt{
			{config: oapiConfig(""), args: oapiArgs},
			{
				option: "resolve-type-name-collisions: true",
				config: oapiConfig("output-options:\n  resolve-type-name-collisions: true\n"),
				args:   oapiArgs,
			},
		},
		gomod: func(v versions) string {
			return "module example.com/compare\n\ngo 1.26.0\n\nrequire github.com/oapi-codegen/runtime " + v.runtime + "\n"
		},
		skipped: func(string) (int, map[string]int, bool) { return 0, nil, false },
	},
}

func ogenArgs(spec, pkg, config string) []string {
	return []string{"-config", config, "-target", "./" + pkg, "-package", pkg, "-clean", spec}
}

func oapiConfig(extra string) string {
	return "package: PKG\ngenerate:\n  models: true\n  client: true\noutput: PKG/PKG_gen.go\n" + extra
}

func oapiArgs(spec, _, config string) []string {
	return []string{"-config", config, spec}
}

// kitgenSkipped reads kitgen openapi's report: its first line counts the
// skipped operations, and each skipped one has a line
// "file:line:col: skipped METHOD path: reason".
func kitgenSkipped(out string) (int, map[string]int, bool) {
	n, ok := -1, false
	reasons := map[string]int{}
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "kitgen openapi: ") && !ok {
			for f := range strings.SplitSeq(line, ",") {
				var k int
				if _, err := fmt.Sscanf(strings.TrimSpace(f), "%d skipped", &k); err == nil {
					n, ok = k, true
				}
			}
			continue
		}
		_, rest, found := strings.Cut(line, ": skipped ")
		if !found {
			continue
		}
		// rest is "METHOD path: reason"; a path holds no ": ".
		if _, reason, found := strings.Cut(rest, ": "); found {
			reasons[reason]++
		}
	}
	if !ok {
		return 0, nil, false
	}
	return n, reasons, true
}

// ogenSkipped counts ogen's "Skipping operation" log lines (logged when
// ignore_not_implemented lets it leave an operation out) and their
// reason_error fields.
func ogenSkipped(out string) (int, map[string]int, bool) {
	n := 0
	reasons := map[string]int{}
	for line := range strings.Lines(out) {
		if !strings.Contains(line, "\tSkipping operation\t") {
			continue
		}
		n++
		const key = `"reason_error": "`
		if _, rest, ok := strings.Cut(line, key); ok {
			if reason, _, ok := strings.Cut(rest, `"`); ok {
				reasons[reason]++
			}
		}
	}
	return n, reasons, true
}

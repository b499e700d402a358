package openapi

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kithttp/kit/internal/textdiff"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want_ files of testdata/rules from what the generator writes")

// specLineRE matches what differs between a document and its 3.0 twin by
// construction: the name and the lines its operations are on.
var specLineRE = regexp.MustCompile(`spec(30)?\.yaml(:\d+(:\d+)?)?`)

// TestRules: each archive of testdata/rules is one mapping rule: a
// document (spec.yaml), sometimes its OpenAPI 3.0 twin (spec30.yaml, which
// must give the same Go), a -config file (kitgen.yaml) and an -overlay
// file (overlay.yaml), and the
// openapi_gen.go and report it must give. go test -run TestRules -update
// rewrites them; the cmd/kitgen tests then build, vet and run each
// archive's wire tests in a module.
func TestRules(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "rules", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rules in testdata/rules: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			section := map[string][]byte{}
			for _, f := range ar.Files {
				section[f.Name] = f.Data
			}
			if section["spec.yaml"] == nil {
				t.Fatal("no spec.yaml")
			}
			src, report, client, apiDoc := renderRule(t, section, "spec.yaml", name)
			if section["spec30.yaml"] != nil {
				src30, report30, _, _ := renderRule(t, section, "spec30.yaml", name)
				norm := func(b []byte) string { return specLineRE.ReplaceAllString(string(b), "spec.yaml") }
				if norm(src) != norm(src30) || norm(report) != norm(report30) {
					t.Errorf("the 3.0 twin gives other Go:\n--- spec.yaml\n%s%s\n--- spec30.yaml\n%s%s", report, src, report30, src30)
				}
			}
			if *update {
				set := func(name string, data []byte) {
					for i := range ar.Files {
						if ar.Files[i].Name == name {
							ar.Files[i].Data = data
							return
						}
					}
					ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
				}
				set("want_report", report)
				set("want_openapi_gen.go", src)
				if section["want_client.go"] != nil {
					set("want_client.go", client)
				}
				if apiDoc != nil {
					set("want_api.md", apiDoc)
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := section["want_report"]; !bytes.Equal(report, want) {
				t.Errorf("report:\n%s\nwant:\n%s", report, want)
			}
			if want := section["want_openapi_gen.go"]; !bytes.Equal(src, want) {
				t.Errorf("openapi_gen.go (go test -run TestRules -update rewrites it):\n%s", textdiff.Lines(string(want), string(src)))
			}
			if want := section["want_client.go"]; want != nil && !bytes.Equal(client, want) {
				t.Errorf("client.go:\n%s", textdiff.Lines(string(want), string(client)))
			}
			if want := section["want_api.md"]; !bytes.Equal(apiDoc, want) {
				t.Errorf("api.md:\n%s", textdiff.Lines(string(want), string(apiDoc)))
			}
		})
	}
}

// renderRule generates openapi_gen.go of one document of an archive, as
// kitgen openapi writes it before kitgen's own pass, its report, the
// client.go of a first run, and api.md when the archive's flags section
// says -docs (it may say -env PREFIX too, -embed, and -v: the report
// lists the pagination).
func renderRule(t *testing.T, section map[string][]byte, spec, pkg string) (src, report, client, apiDoc []byte) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range section {
		if strings.HasSuffix(name, ".yaml") {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var overlays []string
	if section["overlay.yaml"] != nil {
		overlays = append(overlays, filepath.Join(dir, "overlay.yaml"))
	}
	doc, err := Load(filepath.Join(dir, spec), overlays...)
	if err != nil {
		t.Fatal(err)
	}
	var conf *ConfigFile
	cfg := Config{Spec: filepath.Join(dir, spec), Overlays: overlays}
	if section["kitgen.yaml"] != nil {
		cfg.Config = filepath.Join(dir, "kitgen.yaml")
		if conf, err = LoadConfig(filepath.Join(dir, "kitgen.yaml")); err != nil {
			t.Fatal(err)
		}
		if err := checkConfig(doc, conf); err != nil {
			t.Fatal(err)
		}
	}
	flags := strings.Fields(string(section["flags"]))
	verbose := false
	for i, f := range flags {
		switch {
		case f == "-docs":
			cfg.Docs = true
		case f == "-env" && i+1 < len(flags):
			cfg.Env = flags[i+1]
		case f == "-v":
			verbose = true
		case f == "-embed":
			cfg.Embed = true
		}
	}
	g := newGenerator(doc, packageName(pkg), spec)
	g.config = conf
	g.setEnv(cfg.Env)
	g.embed = cfg.Embed
	g.build()
	out, _, err := g.file()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var r bytes.Buffer
	rep := g.report(doc)
	rep.Print(&r, spec)
	if verbose {
		rep.PrintPagination(&r)
		rep.PrintPollers(&r)
	}
	if cfg.Docs {
		apiDoc = g.apiDoc()
	}
	return out, []byte(strings.ReplaceAll(r.String(), dir+string(filepath.Separator), "")), clientFile(doc, cfg, dir, packageName(pkg)), apiDoc
}

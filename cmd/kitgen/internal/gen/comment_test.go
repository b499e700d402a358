package gen

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
	"golang.org/x/tools/txtar"
)

// The text of the declarations that kit_gen.go's comments repeat (the
// files' names, an endpoint's path) went in as it was: a line break in a
// file's name broke the file ("a bug in kitgen"), and bidirectional
// controls in a path made the comment show otherwise than it reads. They
// go through safetext.Comment.
func TestCommentsHoldDeclarationText(t *testing.T) {
	api := "package api\n\nimport (\n\t\"context\"\n\n\t\"github.com/kithttp/kit\"\n)\n\n//kit:client\ntype Client struct {\n\t*kit.Client\n\tAPI\n}\n\n" +
		"type API interface {\n\t//kit:get /a\u2028b\u202ec\x1b\n\tGet(ctx context.Context) error\n}\n"
	dir := extract(t, &txtar.Archive{Files: []txtar.File{
		{Name: "go.mod", Data: []byte(testmod.GoMod("example.com/api"))},
		{Name: "x\nfunc init() { panic(1) }\n.go", Data: []byte(api)},
	}})
	src, diags, err := Generate(dir, DefaultOutput, nil)
	if err != nil || len(diags) > 0 {
		t.Fatalf("%v %v", err, diags)
	}
	f, err := parser.ParseFile(token.NewFileSet(), DefaultOutput, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if strings.Contains(string(src[d.Pos()-1:d.End()-1]), "func init()") {
			t.Errorf("an init function:\n%s", src)
		}
	}
	for _, r := range string(src) {
		if r == '\u2028' || r == '\u202e' || r == '\x1b' {
			t.Errorf("%U in\n%s", r, src)
		}
	}
	for _, want := range []string{"// Source: x func init() { panic(1) } .go\n", "// Get: GET /a bc (x func init() { panic(1) } .go:17).\n"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("no %q in\n%s", want, src)
		}
	}
}

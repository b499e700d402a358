package gen

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
	"github.com/kithttp/kit/internal/routing"
	"golang.org/x/tools/txtar"
)

// agreeTypes are the parameter types of TestAgree: for each, a value to
// call with, and where it goes (written by hand from kit's documented
// routing rules) as a query
// parameter, as a {placeholder}, as //kit:header X-V: {v}, as //kit:body
// {v} and as //kit:query v: {v}: q query, p path, h header, b JSON body, f
// raw File body, m query entries of a map, o in brackets under its name
// (v[key]=...), d decided by the value held (here an int, so query or
// path), x refused.
var agreeTypes = []struct {
	typ, value string
	want       string // query path header body named-query
}{
	{"string", `"a b/c"`, "q p h b q"},
	{"int", "5", "q p h b q"},
	{"int64", "-6", "q p h b q"},
	{"uint8", "7", "q p h b q"},
	{"uintptr", "8", "q p h b q"},
	{"float64", "1.5", "q p h b q"},
	{"bool", "true", "q p h b q"},
	{"complex128", "1i", "x x x x x"},
	{"time.Time", "time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)", "q p h b q"},
	{"*time.Time", "&when", "q p h b q"},
	{"time.Duration", "time.Second", "q p h b q"},
	{"json.Number", `json.Number("12")`, "q p h b q"},
	{"*string", "&text", "q p h b q"},
	{"**int", "&numPtr", "q p h b q"},
	{"[]string", `[]string{"a", "b"}`, "q x h b q"},
	{"[]int", "[]int{1, 2}", "q x h b q"},
	{"[2]string", `[2]string{"a", "b"}`, "q x h b q"},
	{"[]*int", "[]*int{&num}", "q x h b q"},
	{"[]time.Time", "[]time.Time{when}", "q x h b q"},
	{"[]any", `[]any{1, "a"}`, "q x h b q"},
	{"Level", "Level(3)", "q p h b q"},
	{"*Level", "&level", "q p h b q"},
	{"Color", "Color(2)", "q p h b q"},
	{"net.IP", "net.IPv4(10, 0, 0, 1)", "q p h b q"},
	{"TextStruct", "TextStruct{N: 4}", "q p h b q"},
	{"fmt.Stringer", "stringer", "q p h x q"},
	{"url.Values", `url.Values{"k": {"1"}}`, "m x x b o"},
	{"map[string]string", `map[string]string{"k": "1"}`, "m x x b o"},
	{"map[string]any", `map[string]any{"k": 1}`, "m x x b o"},
	{"map[Level][]int", `map[Level][]int{1: {2}}`, "m x x b x"},
	{"map[User]string", `map[User]string{}`, "x x x x x"},
	{"map[string]User", `map[string]User{"a": {ID: 1}}`, "x x x b o"},
	{"map[string]map[string]int", `map[string]map[string]int{"created": {"gte": 1}}`, "m x x b o"},
	{"map[string]map[int]int", `map[string]map[int]int{}`, "x x x b x"},
	{"kit.Nullable[string]", `kit.Value("n v")`, "q p h b q"},
	{"kit.Nullable[[]int]", `kit.Value([]int{1})`, "x x x b x"},
	{"any", "7", "d d h b x"},
	{"User", `User{ID: 1, Name: "u"}`, "b x x b o"},
	{"*User", `&User{ID: 2}`, "b x x b o"},
	{"[]User", `[]User{{ID: 3}}`, "b x x b o"},
	{"[]*User", `[]*User{{ID: 4}}`, "b x x b o"},
	{"[2]User", `[2]User{{ID: 5}}`, "b x x b o"},
	{"Stringish", `Stringish{Name: "s"}`, "b p h b o"},
	{"kit.File", `kit.FileFromBytes("f.txt", []byte("file content"))`, "f x x f x"},
	{"*kit.File", `&file`, "f x x f x"},
	{"[]byte", `[]byte("raw")`, "x x h x x"},
	{"[4]byte", `[4]byte{1, 2, 3, 4}`, "x x h x x"},
	{"[]kit.File", `nil`, "x x x x x"},
	{"io.Reader", `nil`, "x x x x x"},
	{"ReaderStruct", `ReaderStruct{}`, "x x x x x"},
	{"error", `nil`, "x x x x x"},
	{"chan int", `nil`, "x x x x x"},
	{"func()", `nil`, "x x x x x"},
}

// agreeDecls are the types and variables the agreeTypes values use.
const agreeDecls = `package agree

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/kithttp/kit"
)

var (
	_ = []any{json.Number(""), fmt.Sprint, io.EOF, net.IP{}, url.Values{}, time.Time{}}

	when   = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	text   = "t"
	num    = 9
	numPtr = &num
	level  = Level(2)
	color2 = Color(5)
	stringer = &color2
	file   = kit.FileFromBytes("f.txt", []byte("file content"))
)

type User struct {
	ID   int    ` + "`json:\"id\"`" + `
	Name string ` + "`json:\"name\"`" + `
}

// Level marshals itself as text.
type Level int

func (l Level) MarshalText() ([]byte, error) { return []byte(fmt.Sprintf("L%d", int(l))), nil }

// Color is a fmt.Stringer through its pointer.
type Color uint32

func (c *Color) String() string { return fmt.Sprintf("color-%d", uint32(*c)) }

// TextStruct is a struct with a text form: not a data model.
type TextStruct struct{ N int }

func (t *TextStruct) MarshalText() ([]byte, error) { return []byte(fmt.Sprintf("ts%d", t.N)), nil }

// Stringish is a struct with a String method: a data model whose text
// fills a placeholder.
type Stringish struct {
	Name string ` + "`json:\"name\"`" + `
}

func (s Stringish) String() string { return "str-" + s.Name }

// ReaderStruct is an io.Reader.
type ReaderStruct struct{}

func (*ReaderStruct) Read([]byte) (int, error) { return 0, io.EOF }
`

// agreeAPIHeader starts the declarations of TestAgree's package.
const agreeAPIHeader = `package agree

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/kithttp/kit"
)

var _ = []any{json.Number(""), fmt.Sprint, io.EOF, net.IP{}, url.Values{}, time.Time{}}

//kit:client
type Client struct {
	*kit.Client
	API
}

type API interface {
`

// placements of a parameter in TestAgree: the path template and the
// directive of the method, and the P field kit would get for it.
var placements = []struct {
	name, path, directive, tag string
}{
	{"query", "/agree/q", "", "v"},
	{"path", "/agree/p/{v}", "", "v"},
	{"header", "/agree/h", "//kit:header X-V: {v}\n\t", "X-V,header"},
	{"body", "/agree/b", "//kit:body {v}\n\t", ",body"},
	{"object", "/agree/o", "//kit:query v: {v}\n\t", "v,query"},
}

// TestAgree checks that kitgen's classifier and kit's router agree, so
// they cannot drift apart: each parameter type of agreeTypes is declared in
// each placement and classified by kitgen; the generated methods are called
// through a kittest.RecordingEngine, and each request must carry the value
// where kitgen said; a placement kitgen refuses must make kit.NewEndpoint
// refuse the field kitgen would have written.
func TestAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test module")
	}
	t.Parallel()
	dir := t.TempDir()
	testmod.Extract(t, &txtar.Archive{Files: []txtar.File{{Name: "go.mod", Data: []byte(testmod.GoMod("example.com/agree"))}}}, dir)
	testmod.WriteFile(t, filepath.Join(dir, "types.go"), []byte(agreeDecls))

	type method struct {
		name, typ, value, want, placement, tag string
	}
	var methods []method
	api := func(ms []method) []byte {
		var b strings.Builder
		b.WriteString(agreeAPIHeader)
		for _, m := range ms {
			fmt.Fprintf(&b, "\t//kit:put %s\n\t%s%s(ctx context.Context, v %s) (*kit.Response, error)\n", pathOf(m.placement), directiveOf(m.placement), m.name, m.typ)
		}
		b.WriteString("}\n")
		return []byte(b.String())
	}
	for i, at := range agreeTypes {
		wants := strings.Fields(at.want)
		for j, pl := range placements {
			methods = append(methods, method{fmt.Sprintf("M%02d%s", i, pl.name[:1]), at.typ, at.value, wants[j], pl.name, pl.tag})
		}
	}
	testmod.WriteFile(t, filepath.Join(dir, "api.go"), api(methods))

	g, _, err := analyze(dir, DefaultOutput, nil)
	if err != nil {
		t.Fatal(err)
	}
	said := map[string]string{} // method -> kitgen's route, "x" when refused
	for _, it := range g.model.Ifaces {
		for _, m := range it.Methods {
			said[m.Name] = "x"
			if m.ok {
				said[m.Name] = routeCode(m.Params[0].Route)
			}
		}
	}
	var accepted []method
	var table strings.Builder
	for _, m := range methods {
		got, ok := said[m.name]
		if !ok {
			t.Fatalf("kitgen did not read method %s", m.name)
		}
		if got != m.want {
			t.Errorf("%s %s: kitgen says %s, the documented rule says %s", m.typ, m.placement, got, m.want)
		}
		if got == "x" {
			fmt.Fprintf(&table, "\t{%q, %q, \"x\", func() error {\n\t\t_, err := kit.NewEndpoint[struct {\n\t\t\tV %s `kit:%q`\n\t\t}, *kit.Response](\"PUT\", %q)\n\t\treturn err\n\t}},\n",
				m.name, m.typ+" "+m.placement, m.typ, m.tag, pathOf(m.placement))
			continue
		}
		accepted = append(accepted, m)
		fmt.Fprintf(&table, "\t{%q, %q, %q, func() error { _, err := c.%s(ctx, %s); return err }},\n", m.name, m.typ+" "+m.placement, got, m.name, m.value)
	}
	if t.Failed() {
		return
	}
	testmod.WriteFile(t, filepath.Join(dir, "api.go"), api(accepted))
	src, diags, err := Generate(dir, DefaultOutput, nil)
	if err != nil || len(diags) > 0 {
		var b bytes.Buffer
		printDiags(&b, diags, dir)
		t.Fatalf("generating the accepted methods: %v\n%s", err, b.String())
	}
	testmod.WriteFile(t, filepath.Join(dir, DefaultOutput), src)
	testmod.WriteFile(t, filepath.Join(dir, "agree_test.go"), []byte(strings.Replace(agreeInnerTest, "\t// TABLE\n", table.String(), 1)))

	cmd := exec.Command("go", "test", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = testmod.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test in the generated module: %v\n%s", err, out)
	}
	t.Logf("%d parameter types in %d placements: %d accepted, %d refused by kitgen and kit alike",
		len(agreeTypes), len(placements), len(accepted), len(methods)-len(accepted))
}

func pathOf(placement string) string {
	for _, p := range placements {
		if p.name == placement {
			return p.path
		}
	}
	return ""
}

func directiveOf(placement string) string {
	for _, p := range placements {
		if p.name == placement {
			return p.directive
		}
	}
	return ""
}

// routeCode is the letter of a route in agreeTypes.
func routeCode(r routing.Route) string {
	switch r {
	case routing.Query:
		return "q"
	case routing.Path:
		return "p"
	case routing.Header:
		return "h"
	case routing.Body:
		return "b"
	case routing.RawFile:
		return "f"
	case routing.QueryMap:
		return "m"
	case routing.Dynamic:
		return "d"
	case routing.QueryDeep:
		return "o"
	}
	return r.String()
}

// agreeInnerTest runs in the generated module: each accepted method is
// called through a RecordingEngine and its request checked against the
// route kitgen said; each refused one must be refused by kit too.
const agreeInnerTest = `package agree

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

var _ = []any{json.Number(""), fmt.Sprint, io.EOF, net.IP{}, time.Time{}}

type agreeCase struct {
	method, what, route string
	call                func() error
}

func TestAgree(t *testing.T) {
	rec := &kittest.RecordingEngine{}
	c, err := NewClient("https://api.example.com", kit.WithEngine(rec))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []agreeCase{
	// TABLE
	} {
		rec.Reset()
		err := tc.call()
		if tc.route == "x" {
			if err == nil {
				t.Errorf("%s: kitgen refuses it, kit.NewEndpoint accepts it", tc.what)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s (%s): %v", tc.what, tc.method, err)
			continue
		}
		reqs := rec.Requests()
		if len(reqs) != 1 {
			t.Errorf("%s: %d requests", tc.what, len(reqs))
			continue
		}
		r := reqs[0]
		u, _ := url.Parse(r.URL)
		q := u.Query()
		inQuery, inHeader, hasBody := len(q["v"]) > 0, r.Header.Get("X-V") != "", len(r.Body) > 0
		var ok bool
		switch tc.route {
		case "q", "d":
			ok = inQuery && !inHeader && !hasBody && !strings.HasPrefix(u.Path, "/agree/p/")
			if tc.route == "d" && strings.HasSuffix(tc.what, " path") { // an int held: the path
				ok = strings.HasPrefix(u.Path, "/agree/p/") && len(u.Path) > len("/agree/p/") && !inQuery && !hasBody
			}
		case "p":
			ok = strings.HasPrefix(u.Path, "/agree/p/") && len(u.Path) > len("/agree/p/") && !inQuery && !inHeader && !hasBody
		case "h":
			ok = inHeader && !inQuery && !hasBody
		case "b":
			ok = hasBody && r.Header.Get("Content-Type") == "application/json" && !inQuery && !inHeader
		case "f":
			ok = string(r.Body) == "file content" && !inQuery && !inHeader
		case "m":
			ok = len(q) > 0 && !inQuery && !inHeader && !hasBody
		case "o":
			ok = len(q) > 0 && !inHeader && !hasBody
			for k := range q {
				ok = ok && strings.HasPrefix(k, "v[")
			}
		}
		if !ok {
			t.Errorf("%s: kitgen says %s, kit sent %s %s header X-V=%q body %q", tc.what, tc.route, r.Method, r.URL, r.Header.Get("X-V"), r.Body)
		}
	}
}
`

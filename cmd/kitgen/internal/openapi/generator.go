package openapi

import (
	"bytes"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kithttp/kit/cmd/kitgen/internal/safetext"
	"golang.org/x/tools/go/ast/astutil"
)

// generator maps a Doc onto kitgen's input: models, one interface per tag
// with //kit: directives, and the //kit:client root.
type generator struct {
	doc     *Doc
	pkg     string
	spec    string // the document's name as positions show it
	names   *namer // top-level Go names
	types   *typer
	methods []*method
	skipped []Skip
	ifaces  map[string]string // tag → interface name
	order   []string          // interface names, first use first
	drop    map[*Operation]string
	opsGlob string
	tags    []string
	// errSchema is the client's error model (kit.WithErrorModel on the
	// root), nil when the operations share none.
	errSchema *Schema
	// config is the -config file, nil when none.
	config *ConfigFile
	// notes are what the report says of the document beside what it
	// skipped: names changed to avoid a collision, impossible schemas.
	notes []Note
	// sharedParams counts, per parameter schema, the selected operations
	// whose parameters have it (paramHint).
	sharedParams map[*Schema]int
	// env is the -env prefix of the environment variables
	// OptionsFromEnv and BaseURLFromEnv read; "" for none.
	env string
	// secOpts are the options declared per security scheme, by name.
	secOpts []secOpt
	// hooks are the webhooks generated, and hookKey the payload member
	// that routes them ("" when one webhook or none tells them apart).
	hooks     []*hook
	hookKey   string
	hookIface string // the interface's name: Webhooks unless a type has it
	hookCtor  string // its handler's constructor: NewWebhooksHandler
	// paging is how each method's pages are walked and why, or why it
	// looks paged but is one page (pagedetect.go), for the report.
	paging map[*method]*pagingWhy
	// lros are the long-running operations (lro.go), and doneFunc the
	// name of the terminal-state rule by HTTP status, "" until used.
	lros     map[*Operation]*lro
	doneFunc string
	// embed writes the interfaces embedded in Client (-embed, deprecated)
	// rather than as named fields.
	embed bool
}

// Note is a remark on the document at a position: kitgen went on, but
// the document's author may want to know.
type Note struct {
	Pos Pos
	Msg string
}

func (g *generator) note(at Pos, msg string) {
	g.notes = append(g.notes, Note{Pos: at, Msg: msg})
}

// reservedNames are the top-level names kitgen and client.go write.
var reservedNames = []string{"Client", "NewClient", "BindClient", "DefaultBaseURL", "New", "API"}

// methodsOfClient are the methods of *kit.Client, which the root embeds,
// and the name of that embedded field, which would hide a method of the
// same name.
var methodsOfClient = []string{"Close", "BaseURL", "Client"}

// stdMethods are the method names go vet's stdmethods check holds to the
// signature of a standard interface (golang.org/x/tools/go/analysis/
// passes/stdmethods), with that interface: an operation's method has
// another signature, which vet refuses.
var stdMethods = map[string]string{
	"As": "errors.As", "Format": "fmt.Formatter", "GobDecode": "gob.GobDecoder", "GobEncode": "gob.GobEncoder",
	"Is": "errors.Is", "MarshalJSON": "json.Marshaler", "MarshalXML": "xml.Marshaler", "ReadByte": "io.ByteReader",
	"ReadFrom": "io.ReaderFrom", "ReadRune": "io.RuneReader", "Scan": "fmt.Scanner", "Seek": "io.Seeker",
	"UnmarshalJSON": "json.Unmarshaler", "UnmarshalXML": "xml.Unmarshaler", "UnreadByte": "io.ByteScanner",
	"UnreadRune": "io.RuneScanner", "Unwrap": "errors.Unwrap", "WriteByte": "io.ByteWriter", "WriteTo": "io.WriterTo",
}

func newGenerator(doc *Doc, pkg, spec string) *generator {
	names := newNamer(reservedNames...)
	g := &generator{doc: doc, pkg: pkg, spec: spec, names: names, types: newTyper(names),
		ifaces: map[string]string{}, drop: map[*Operation]string{}}
	g.types.note = g.note
	return g
}

// setEnv sets the -env prefix, reserving the names of the functions it
// declares.
func (g *generator) setEnv(prefix string) {
	g.env = prefix
	if prefix != "" {
		for _, n := range envNames {
			g.names.taken[n] = true
		}
	}
}

func (g *generator) ifaceOf(op *Operation) string {
	tag := ""
	if len(op.Tags) > 0 {
		tag = op.Tags[0]
	}
	if name, ok := g.ifaces[tag]; ok {
		return name
	}
	name := "API"
	if tag != "" {
		name = g.names.name(exported(tag, "Tag") + "API")
	} else {
		g.names.taken["API"] = true
	}
	g.ifaces[tag] = name
	g.order = append(g.order, name)
	return name
}

// selected reports whether the -ops and -tags filters keep op.
func (g *generator) selected(op *Operation) bool {
	if g.opsGlob != "" {
		ok := false
		for _, pat := range strings.Split(g.opsGlob, ",") {
			if m, _ := path.Match(pat, op.ID); m {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	if len(g.tags) > 0 {
		for _, t := range op.Tags {
			if slices.Contains(g.tags, t) {
				return true
			}
		}
		return false
	}
	return true
}

// build maps every operation not dropped.
func (g *generator) build() {
	g.markTextualOps()
	if g.errSchema = g.errorModel(); g.errSchema != nil {
		g.types.errorModel = g.errSchema
		g.types.goType(g.errSchema, "Error") // declared first: its name is the plain one
		if e := g.types.err; e != nil {
			g.note(e.Pos, fmt.Sprintf("the error model %s is left out: %s", g.types.declared[g.errSchema], e.Msg))
			g.errSchema, g.types.errorModel, g.types.err = nil, nil, nil
		}
	}
	g.types.opErrors = map[*Schema]bool{}
	for _, op := range g.doc.Ops {
		if g.selected(op) {
			for _, r := range op.Responses {
				if s := errorSchema(r); s != nil && s != g.errSchema && r.Range == "" {
					g.types.opErrors[s] = true
				}
			}
		}
	}
	g.sharedParams = map[*Schema]int{}
	for _, op := range g.doc.Ops {
		if !g.selected(op) {
			continue
		}
		seen := map[*Schema]bool{}
		for _, p := range op.Params {
			if !seen[p.Schema] {
				seen[p.Schema] = true
				g.sharedParams[p.Schema]++
			}
		}
	}
	mnames := newNamer(methodsOfClient...)
	for name := range stdMethods {
		mnames.taken[name] = true
	}
	named := map[string]*Operation{} // a method name → the operation that has it
	for _, op := range g.doc.Ops {
		if !g.selected(op) {
			continue
		}
		if why, ok := g.drop[op]; ok {
			g.skipped = append(g.skipped, Skip{Method: op.Method, Path: op.Path, Pos: op.Pos, Reason: why})
			continue
		}
		base := op.ID
		if base == "" {
			base = strings.ToLower(op.Method) + " " + op.Path
		}
		want := exported(base, "Op")
		l := g.longRunning(op)
		if l != nil {
			// Azure's Go SDK's name: the method starts the operation.
			want = "Begin" + want
			if g.lros == nil {
				g.lros = map[*Operation]*lro{}
			}
			g.lros[op] = l
		}
		name := mnames.name(want)
		if name != want {
			if first, ok := named[want]; ok {
				g.note(op.Pos, fmt.Sprintf("%s %s: its name %s is %s's already (%s); this one is %s", op.Method, op.Path, want, first.Method+" "+first.Path, first.Pos, name))
			} else if iface, ok := stdMethods[want]; ok {
				g.note(op.Pos, fmt.Sprintf("%s %s: %s is the method of %s, whose signature go vet checks; this one is %s", op.Method, op.Path, want, iface, name))
			} else {
				g.note(op.Pos, fmt.Sprintf("%s %s: %s is a name kitgen or *kit.Client uses; this one is %s", op.Method, op.Path, want, name))
			}
		}
		if _, ok := named[want]; !ok {
			named[want] = op
		}
		hasJSON, hasStream := responseKinds(op)
		variants := []bool{false}
		if hasJSON && hasStream && l == nil {
			variants = []bool{false, true}
		}
		for _, stream := range variants {
			n := name
			if stream {
				n = mnames.name(name + "Stream")
			}
			g.types.err = nil
			m, err := g.methodFor(op, n, stream)
			if err != nil {
				g.skipped = append(g.skipped, Skip{Method: op.Method, Path: op.Path, Pos: op.Pos, Reason: err.Error()})
				continue
			}
			if e := g.types.err; e != nil {
				// A schema it needs has no Go type: where that schema is.
				g.skipped = append(g.skipped, Skip{Method: op.Method, Path: op.Path, Pos: e.Pos, Reason: e.Msg})
				continue
			}
			g.methods = append(g.methods, m)
		}
	}
	g.buildWebhooks()
}

func responseKinds(op *Operation) (hasJSON, hasStream bool) {
	for _, r := range op.Responses {
		if r.Status < 200 || r.Status >= 300 {
			continue
		}
		for _, mt := range r.Content {
			hasJSON = hasJSON || jsonType(mt.Type)
			hasStream = hasStream || streamType(mt.Type)
		}
		break
	}
	return
}

func (g *generator) paged(m *method, kind, paginator, elem string) string {
	m.paginator = kind
	m.directives = append(m.directives, "//kit:option kit.PagedBy("+paginator+")")
	g.types.imports["iter"] = true
	return "iter.Seq2[" + elem + ", error]"
}

// nameCallParts names each method's last parameter, opts ...kit.CallOption
// (unlike its other parameters), and the page walk of each paginated
// method, <Name>Pages (unlike every method of the client).
func (g *generator) nameCallParts() {
	taken := map[string]bool{}
	for _, m := range g.methods {
		taken[m.name] = true
	}
	for _, m := range g.methods {
		params := map[string]bool{"ctx": true}
		for _, p := range m.params {
			n, _, _ := strings.Cut(p, " ")
			params[n] = true
		}
		m.opts = "opts"
		for i := 2; params[m.opts]; i++ {
			m.opts = fmt.Sprintf("opts%d", i)
		}
		if m.paginator == "" || !strings.HasPrefix(m.result, "iter.Seq2[") {
			continue
		}
		m.pages = m.name + "Pages"
		for i := 2; taken[m.pages]; i++ {
			m.pages = fmt.Sprintf("%sPages%d", m.name, i)
		}
		taken[m.pages] = true
	}
}

// pagesResult is the result of a paginated method's page walk:
// iter.Seq2[*kit.Page[T], error] for iter.Seq2[T, error].
func pagesResult(result string) string {
	elem := strings.TrimSuffix(strings.TrimPrefix(result, "iter.Seq2["), ", error]")
	return "iter.Seq2[*kit.Page[" + elem + "], error]"
}

// Header is the first line of openapi_gen.go.
const Header = "// Code generated by kitgen openapi; DO NOT EDIT."

// file returns openapi_gen.go and, per method, the lines it spans.
func (g *generator) file() ([]byte, map[*method][2]int, error) {
	var b bytes.Buffer
	// The servers' and the security schemes' declarations, first: they
	// may need an import.
	clientDecls := g.serverDecls() + g.securityDecls() + g.envDecls()
	imports := map[string]bool{"context": true, "github.com/kithttp/kit": true}
	for _, im := range g.types.sortedImports() {
		imports[im] = true
	}
	if len(g.hooks) > 0 {
		imports["github.com/kithttp/kit/kitwebhook"] = true
	}
	fmt.Fprintf(&b, "%s\n\npackage %s\n\nimport (\n", Header, g.pkg)
	var std, other []string
	for im := range imports {
		if strings.Contains(im, ".") {
			other = append(other, im)
		} else {
			std = append(std, im)
		}
	}
	sort.Strings(std)
	sort.Strings(other)
	for _, im := range std {
		fmt.Fprintf(&b, "\t%q\n", im)
	}
	b.WriteString("\n")
	for _, im := range other {
		fmt.Fprintf(&b, "\t%q\n", im)
	}
	b.WriteString(")\n\n")
	title := g.doc.Title
	if title == "" {
		title = "the API"
	}
	specName := safetext.Comment(path.Base(g.spec))
	byIface := map[string][]*method{}
	for _, m := range g.methods {
		byIface[m.iface] = append(byIface[m.iface], m)
	}
	var ifaces []string
	for _, name := range g.order {
		if len(byIface[name]) > 0 {
			ifaces = append(ifaces, name)
		}
	}
	fmt.Fprintf(&b, "// Client is a client of %s, generated from %s.\n//\n", firstSentence(title), specName)
	if !g.embed && len(ifaces) > 0 {
		first := ifaces[0]
		text := fmt.Sprintf("Its operations are in groups, one field each: call one through its group, as in c.%s.%s(ctx, ...). A test replaces a group with its own implementation of the interface: &Client{%s: fake}.", first, byIface[first][0].name, first)
		if len(ifaces) == 1 {
			text = fmt.Sprintf("Its operations are in its field %s: call one as c.%s.%s(ctx, ...). A test replaces them with its own implementation of the interface: &Client{%s: fake}.", first, first, byIface[first][0].name, first)
		}
		// The literal stays on one line: its space is not a break.
		text = strings.Replace(text, ": fake}", ":\x00fake}", 1)
		for _, l := range wrapWidth(text, 76) {
			b.WriteString("// " + strings.Replace(l, "\x00", " ", 1) + "\n")
		}
		b.WriteString("//\n")
	}
	b.WriteString("//kit:client\n")
	if g.errSchema != nil {
		fmt.Fprintf(&b, "//kit:option kit.WithErrorModel[%s]()\n", g.types.goType(g.errSchema, "Error"))
	}
	b.WriteString("type Client struct {\n\t*kit.Client\n")
	for _, name := range ifaces {
		if g.embed {
			fmt.Fprintf(&b, "\t%s\n", name)
			continue
		}
		fmt.Fprintf(&b, "\n\t// %s holds %s.\n\t%s %s\n", name, g.groupOps(name), name, name)
	}
	b.WriteString("}\n")
	if clientDecls != "" {
		b.WriteString("\n" + strings.TrimSuffix(clientDecls, "\n"))
	}
	g.nameCallParts()
	lines := map[*method][2]int{}
	for _, name := range ifaces {
		fmt.Fprintf(&b, "\n// %s is %s.\ntype %s interface {\n", name, g.groupOps(name), name)
		for i, m := range byIface[name] {
			if i > 0 {
				b.WriteString("\n")
			}
			start := bytes.Count(b.Bytes(), []byte("\n")) + 1
			g.methodDoc(&b, m)
			fmt.Fprintf(&b, "\t// openapi: %s:%d\n", specName, m.op.Pos.Line)
			for _, d := range m.directives {
				fmt.Fprintf(&b, "\t%s\n", d)
			}
			params := append([]string{"ctx context.Context"}, m.params...)
			params = append(params, m.opts+" ...kit.CallOption")
			fmt.Fprintf(&b, "\t%s(%s) %s\n", m.name, strings.Join(params, ", "), m.result)
			if m.pages != "" {
				fmt.Fprintf(&b, "\n\t// %s is %s page by page: each page with its records and its\n", m.pages, m.name)
				fmt.Fprintf(&b, "\t// response (status and headers, such as totals or rate limits).\n")
				fmt.Fprintf(&b, "\t// openapi: %s:%d\n", specName, m.op.Pos.Line)
				for _, d := range m.directives {
					fmt.Fprintf(&b, "\t%s\n", d)
				}
				fmt.Fprintf(&b, "\t%s(%s) %s\n", m.pages, strings.Join(params, ", "), pagesResult(m.result))
			}
			end := bytes.Count(b.Bytes(), []byte("\n"))
			lines[m] = [2]int{start, end}
		}
		b.WriteString("}\n")
	}
	g.webhookDecls(&b, specName)
	for _, m := range g.methods {
		for _, d := range m.decls {
			b.WriteString("\n" + d)
		}
	}
	for _, d := range g.types.decls {
		b.WriteString("\n" + d)
	}
	if d := g.doneByStatusDecl(); d != "" {
		b.WriteString("\n" + d)
	}
	src, err := pruneImports(b.Bytes())
	if err != nil {
		return b.Bytes(), lines, fmt.Errorf("format openapi_gen.go: %w", err)
	}
	return src, lines, nil
}

// groupOps says which operations the interface name holds: the API's
// operations tagged "repos", or those without a tag.
func (g *generator) groupOps(name string) string {
	for tag, n := range g.ifaces {
		switch {
		case n != name:
		case tag != "":
			return fmt.Sprintf("the API's operations tagged %q", tag)
		case len(g.ifaces) > 1 && !g.embed: // -embed writes what earlier versions did
			return "the API's operations without a tag"
		}
	}
	return "the API's operations"
}

// pruneImports formats src without the imports it does not use: the
// types of an operation skipped late (or of a document whose every
// operation is skipped) may leave one unused.
func pruneImports(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, Output, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var unused []string
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); !astutil.UsesImport(f, p) {
			unused = append(unused, p)
		}
	}
	for _, p := range unused {
		astutil.DeleteImport(fset, f, p)
	}
	var out bytes.Buffer
	if err := format.Node(&out, fset, f); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// errorModel returns the error schema most of the selected operations
// share (their default, 4XX or 5XX JSON response), to decode every non-2xx
// answer into: nil when none is shared by at least half of the operations
// that declare one.
func (g *generator) errorModel() *Schema {
	count := map[*Schema]int{}
	var order []*Schema
	declaring := 0
	for _, op := range g.doc.Ops {
		if !g.selected(op) {
			continue
		}
		var found *Schema
		for _, r := range op.Responses {
			if r.Status != 0 && r.Status < 400 {
				continue
			}
			for _, mt := range r.Content {
				if jsonType(mt.Type) && mt.Schema != nil && isObject(mt.Schema) {
					found = mt.Schema
					break
				}
			}
			if found != nil {
				break
			}
		}
		if found == nil {
			continue
		}
		declaring++
		if count[found] == 0 {
			order = append(order, found)
		}
		count[found]++
	}
	var best *Schema
	for _, s := range order {
		if best == nil || count[s] > count[best] {
			best = s
		}
	}
	if best == nil || 2*count[best] < declaring {
		return nil
	}
	return best
}

// methodDoc writes a method's doc comment: its name and the summary (the
// description's first paragraph when there is none), the description,
// a Deprecated: paragraph and the externalDocs URL.
func (g *generator) methodDoc(b *bytes.Buffer, m *method) {
	lead, desc := firstSentence(m.op.Summary), strings.TrimSpace(m.op.Description)
	if lead == "" {
		first, rest, _ := strings.Cut(desc, "\n\n")
		lead, desc = firstSentence(first), rest
	} else if strings.EqualFold(strings.TrimSuffix(lead, "."), strings.TrimSuffix(firstSentence(desc), ".")) {
		desc = "" // the description says the summary again
	}
	var extra []string
	if m.op.Deprecated {
		extra = append(extra, "Deprecated: the API marks this operation deprecated.")
	}
	if u := m.op.ExternalDocs; u != "" {
		extra = append(extra, "See "+u+".")
	}
	if m.poller != nil {
		extra = append(extra, fmt.Sprintf("It starts a long-running operation and returns its poller: Wait gives the result once the operation ends; Resume%s takes the poller's Token back.", strings.TrimPrefix(m.name, "Begin")))
	}
	if lead == "" && desc == "" && len(extra) == 0 {
		return
	}
	if lead != "" {
		lead = m.name + ": " + lead
	} else {
		lead = m.name + " is " + m.op.Method + " " + m.op.Path + "."
	}
	var sb strings.Builder
	writeDoc(&sb, "\t", lead, desc, extra...)
	b.WriteString(sb.String())
	b.WriteString("\t//\n")
}

// errorSchema is the JSON object schema of an error response (a 4xx or
// 5xx status, a range of them, or default); nil for any other.
func errorSchema(r *Response) *Schema {
	if r.Status != 0 && r.Status < 400 || r.Range == "2XX" || r.Range == "1XX" || r.Range == "3XX" {
		return nil
	}
	for _, mt := range r.Content {
		if jsonType(mt.Type) && mt.Schema != nil && isObject(mt.Schema) {
			return mt.Schema
		}
	}
	return nil
}

// opErrorModels returns the //kit:option directives of an operation whose
// error responses have other schemas than the client's error model: its
// statuses' own models (kit.WithErrorModelFor), and its default's
// (kit.WithErrorModel, over the client's for the statuses it does not
// name; the statuses that name the client's model then name it again). A status range (4XX) of its own is noted and left to the
// client's model.
func (g *generator) opErrorModels(op *Operation, name string) []string {
	var order []*Schema
	statuses := map[*Schema][]string{}
	var def *Schema
	var rootStatuses []string // statuses the client's model answers
	for _, r := range op.Responses {
		s := errorSchema(r)
		if s == nil {
			continue
		}
		if s == g.errSchema {
			if r.Status != 0 {
				rootStatuses = append(rootStatuses, strconv.Itoa(r.Status))
			}
			continue
		}
		switch {
		case r.Range != "":
			g.note(r.Pos, fmt.Sprintf("operation %s: the %s response has its own error model, which kit cannot give a range of statuses; its bodies are decoded into the client's model", name, r.Range))
		case r.Status == 0:
			def = s
		default:
			if statuses[s] == nil {
				order = append(order, s)
			}
			statuses[s] = append(statuses[s], strconv.Itoa(r.Status))
		}
	}
	var dirs []string
	for _, s := range order {
		dirs = append(dirs, fmt.Sprintf("//kit:option kit.WithErrorModelFor[%s](%s)", g.types.goType(s, name+"Error"), strings.Join(statuses[s], ", ")))
	}
	if def != nil {
		dirs = append(dirs, fmt.Sprintf("//kit:option kit.WithErrorModel[%s]()", g.types.goType(def, name+"Error")))
		if len(rootStatuses) > 0 {
			// The declaration's default would win over the client's model
			// for the statuses that name it.
			dirs = append(dirs, fmt.Sprintf("//kit:option kit.WithErrorModelFor[%s](%s)", g.types.goType(g.errSchema, "Error"), strings.Join(rootStatuses, ", ")))
		}
	}
	return dirs
}

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
	if g.errSchema = g.errorModel(); g.errSchema != nil {
		g.types.errorModel = g.errSchema
		g.types.goType(g.errSchema, "Error") // declared first: its name is the plain one
		if e := g.types.err; e != nil {
			g.note(e.Pos, fmt.Sprintf("the error model %s is left out: %s", g.types.declared[g.errSchema], e.Msg))
			g.errSchema, g.types.errorModel, g.types.err = nil, nil, nil
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
		if hasJSON && hasStream {
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

// itemsKeys are the keys of a page object's records, most likely first.
var itemsKeys = []string{"data", "items", "results", "records", "entries", "values", "value", "list", "objects"}
var cursorParams = []string{"starting_after", "after", "cursor", "page_token", "pageToken", "next_token", "continuation_token", "start_cursor", "marker", "page"}
var nextKeys = []string{"next_cursor", "nextCursor", "next_page_token", "nextPageToken", "last_id", "next_token", "cursor", "marker", "next_page", "next"}
var hasMoreKeys = []string{"has_more", "hasMore", "has_next", "hasNext", "has_next_page", "more"}
var nextLinkKeys = []string{"next", "next_page_uri", "next_page_url", "nextLink", "@odata.nextLink", "next_url", "nextPage", "next_page"}
var sizeParams = []string{"per_page", "page_size", "pageSize", "limit", "size"}

// paginate returns an iter.Seq2 result and adds the paginator option when
// the operation is a paged list, as configured (p, nil when the config and
// the document name none) or detected; "" otherwise.
func (g *generator) paginate(m *method, op *Operation, ok *Response, s *Schema, typ string, p *Paging) (string, error) {
	if p != nil {
		return g.pagedAs(m, p, s, typ)
	}
	return g.detect(m, op, ok, s, typ), nil
}

// pagedAs applies the pagination a config or an extension names: the
// records are at p.ItemsKey of the page (the page itself when "").
func (g *generator) pagedAs(m *method, p *Paging, s *Schema, typ string) (string, error) {
	if p.Type == "none" {
		return "", nil
	}
	elem := ""
	if p.ItemsKey == "" {
		if !strings.HasPrefix(typ, "[]") {
			return "", fmt.Errorf("%s: no itemsKey, and the page (%s) is not an array", p.from, typ)
		}
		elem = typ[2:]
	} else {
		at := s
		for _, k := range strings.Split(p.ItemsKey, ".") {
			var next *Schema
			if at != nil {
				props, _ := flatten(at, map[*Schema]bool{})
				for _, q := range props {
					if q.Name == k {
						next = q.Schema
					}
				}
			}
			if next == nil {
				return "", fmt.Errorf("%s: itemsKey %q: the page has no field %q", p.from, p.ItemsKey, k)
			}
			at = next
		}
		if at.Type != "array" {
			return "", fmt.Errorf("%s: itemsKey %q is not an array in the page", p.from, p.ItemsKey)
		}
		elem = strings.TrimPrefix(g.types.goType(at, ""), "[]")
	}
	return g.paged(m, pagingKinds[p.Type], p.literal(), elem), nil
}

// detect returns an iter.Seq2 result when the operation looks like a paged
// list: "" otherwise.
func (g *generator) detect(m *method, op *Operation, ok *Response, s *Schema, typ string) string {
	query := map[string]*Parameter{}
	for _, p := range op.Params {
		if p.In == "query" {
			query[p.Name] = p
		}
	}
	itemsKey, elem := "", ""
	if strings.HasPrefix(typ, "[]") {
		elem = typ[2:]
	} else if s != nil && isObject(s) {
		props, _ := flatten(s, map[*Schema]bool{})
		var arrays []*Property
		for _, p := range props {
			if p.Schema.Type == "array" {
				arrays = append(arrays, p)
			}
		}
		for _, k := range itemsKeys {
			for _, p := range arrays {
				if p.Name == k && itemsKey == "" {
					itemsKey = k
					elem = strings.TrimPrefix(g.types.goType(p.Schema, ""), "[]")
				}
			}
		}
		if itemsKey == "" && len(arrays) == 1 {
			itemsKey = arrays[0].Name
			elem = strings.TrimPrefix(g.types.goType(arrays[0].Schema, ""), "[]")
		}
		if itemsKey != "" {
			if p := g.cursorPaginator(op, query, props, itemsKey); p != "" {
				return g.paged(m, "Cursor", p, elem)
			}
			if k := nextLinkKey(props); k != "" {
				return g.paged(m, "NextLink", fmt.Sprintf("kit.NextLink{Key: %q, ItemsKey: %q}", k, itemsKey), elem)
			}
		}
	}
	if elem == "" {
		return ""
	}
	for h := range ok.Headers {
		if strings.EqualFold(h, "Link") {
			lh := "kit.LinkHeader{}"
			if itemsKey != "" {
				lh = fmt.Sprintf("kit.LinkHeader{ItemsKey: %q}", itemsKey)
			}
			return g.paged(m, "LinkHeader", lh, elem)
		}
	}
	if query["offset"] != nil && query["limit"] != nil {
		return g.paged(m, "Offset", fmt.Sprintf("kit.Offset{OffsetParam: \"offset\", LimitParam: \"limit\", ItemsKey: %q}", itemsKey), elem)
	}
	if p := query["page"]; p != nil && p.Schema.Type == "integer" {
		for _, sp := range sizeParams {
			if p := query[sp]; p != nil {
				size := 0
				if d, ok := p.Schema.Default.(int); ok && d > 0 {
					size = d
				}
				return g.paged(m, "PageNumber", fmt.Sprintf("kit.PageNumber{PageParam: \"page\", SizeParam: %q, PageSize: %d, ItemsKey: %q}", sp, size, itemsKey), elem)
			}
		}
	}
	return ""
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
	fmt.Fprintf(&b, "// Client is a client of %s, generated from %s.\n//\n//kit:client\n", firstSentence(title), specName)
	if g.errSchema != nil {
		fmt.Fprintf(&b, "//kit:option kit.WithErrorModel[%s]()\n", g.types.goType(g.errSchema, "Error"))
	}
	b.WriteString("type Client struct {\n\t*kit.Client\n")
	byIface := map[string][]*method{}
	for _, m := range g.methods {
		byIface[m.iface] = append(byIface[m.iface], m)
	}
	var ifaces []string
	for _, name := range g.order {
		if len(byIface[name]) > 0 {
			ifaces = append(ifaces, name)
			fmt.Fprintf(&b, "\t%s\n", name)
		}
	}
	b.WriteString("}\n")
	if clientDecls != "" {
		b.WriteString("\n" + strings.TrimSuffix(clientDecls, "\n"))
	}
	g.nameCallParts()
	lines := map[*method][2]int{}
	for _, name := range ifaces {
		fmt.Fprintf(&b, "\n// %s is the API's operations", name)
		for tag, n := range g.ifaces {
			if n == name && tag != "" {
				fmt.Fprintf(&b, " tagged %q", tag)
			}
		}
		fmt.Fprintf(&b, ".\ntype %s interface {\n", name)
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
	for _, m := range g.methods {
		for _, d := range m.decls {
			b.WriteString("\n" + d)
		}
	}
	for _, d := range g.types.decls {
		b.WriteString("\n" + d)
	}
	src, err := pruneImports(b.Bytes())
	if err != nil {
		return b.Bytes(), lines, fmt.Errorf("format openapi_gen.go: %w", err)
	}
	return src, lines, nil
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

// cursorPaginator returns a kit.Cursor literal when the operation walks a
// cursor: a string cursor parameter (in the query, or in a POST's JSON
// body) and a field of the page that holds the next cursor, or, for
// Stripe's shape (starting_after), the last record's id with a has-more
// flag. "" when it does not.
func (g *generator) cursorPaginator(op *Operation, query map[string]*Parameter, props []*Property, itemsKey string) string {
	prop := func(name string) *Property {
		for _, p := range props {
			if p.Name == name {
				return p
			}
		}
		return nil
	}
	hasMore := ""
	for _, k := range hasMoreKeys {
		if p := prop(k); p != nil && p.Schema.Type == "boolean" {
			hasMore = k
			break
		}
	}
	inBody := ""
	var bodyProps []*Property
	if op.Method == "POST" && op.Body != nil {
		for _, mt := range op.Body.Content {
			if jsonType(mt.Type) && mt.Schema != nil && isObject(mt.Schema) {
				bodyProps, _ = flatten(mt.Schema, map[*Schema]bool{})
			}
		}
	}
	for _, c := range cursorParams {
		isCursor := query[c] != nil && query[c].Schema.Type == "string"
		if !isCursor && len(bodyProps) > 0 {
			for _, bp := range bodyProps {
				if bp.Name == c && bp.Schema.Type == "string" {
					isCursor, inBody = true, ", InBody: true"
				}
			}
		}
		if !isCursor {
			continue // a page number is not a cursor
		}
		extra := inBody
		if hasMore != "" {
			extra = fmt.Sprintf(", HasMoreKey: %q", hasMore) + extra
		}
		for _, k := range nextKeys {
			if p := prop(k); p != nil && p.Schema.Type != "array" && p.Schema.Type != "object" && p.Schema.Type != "boolean" {
				return fmt.Sprintf("kit.Cursor{CursorParam: %q, NextKey: %q, ItemsKey: %q%s}", c, k, itemsKey, extra)
			}
		}
		// Stripe: the cursor is the last record's id, and has_more says
		// whether there is a page after.
		if (c == "starting_after" || c == "after") && hasMore != "" {
			if items := prop(itemsKey); items != nil && items.Schema.Items != nil {
				recProps, _ := flatten(items.Schema.Items, map[*Schema]bool{})
				for _, rp := range recProps {
					if rp.Name == "id" {
						return fmt.Sprintf("kit.Cursor{CursorParam: %q, RecordKey: \"id\", ItemsKey: %q%s}", c, itemsKey, extra)
					}
				}
			}
		}
	}
	return ""
}

// nextLinkKey returns the field of a page that holds the next page's URL,
// or "".
func nextLinkKey(props []*Property) string {
	for _, k := range nextLinkKeys {
		for _, p := range props {
			if p.Name == k && p.Schema.Type == "string" {
				return k
			}
		}
	}
	for _, p := range props {
		if p.Name == "links" || p.Name == "_links" {
			sub, _ := flatten(p.Schema, map[*Schema]bool{})
			for _, q := range sub {
				if q.Name == "next" && q.Schema.Type == "string" {
					return p.Name + ".next"
				}
			}
		}
	}
	return ""
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

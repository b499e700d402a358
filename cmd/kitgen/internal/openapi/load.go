// Package openapi reads OpenAPI 3.0 and 3.1 documents (JSON or YAML, one
// file or several joined by relative $refs) into a small model of their
// operations and schemas, for kitgen openapi to map onto kit declarations.
//
// It never fails a whole document because of one operation: an operation
// that cannot be read (a missing $ref, a cookie parameter, a schema it does
// not understand) is left out and listed in Doc.Skipped with the reason and
// its position, file:line:col. A Swagger 2.0 document is converted to the
// OpenAPI 3.0 document it stands for and read as one, with a note for
// what does not convert. Only a document that is not OpenAPI at all (not
// YAML or JSON, no openapi or swagger field) is an error.
package openapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxRefHops bounds a chain of $refs that lead to further $refs, so that a
// cycle of references is an error, not a hang.
const MaxRefHops = 64

// Load reads the document at path and the files its relative $refs name.
// A $ref to a URL is an error (the operations that use it are skipped):
// LoadRemote follows them.
// The overlays (OpenAPI Overlay 1.0 documents) are applied to it first,
// in order.
func Load(path string, overlays ...string) (*Doc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, wrap(err, "read OpenAPI document")
	}
	return load(path, data, &loader{disk: true, overlays: overlays})
}

// LoadRemote reads the document at spec, a path or an http(s) URL, and
// every document its $refs name, on disk or remote, with client (nil is
// http.DefaultClient). Each remote document is fetched once, within
// RemoteTimeout, and may be at most MaxRemoteSize; a relative $ref in a
// remote document is resolved against its URL.
// The overlays, files on disk, are applied to it first, in order.
func LoadRemote(ctx context.Context, spec string, client *http.Client, overlays ...string) (*Doc, error) {
	if client == nil {
		client = http.DefaultClient
	}
	l := &loader{disk: true, ctx: ctx, client: client, overlays: overlays}
	if isRemote(spec) {
		data, err := fetchRemote(ctx, client, spec)
		if err != nil {
			return nil, err
		}
		return load(spec, data, l)
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, wrap(err, "read OpenAPI document")
	}
	return load(spec, data, l)
}

// LoadBytes reads a document held in memory; name is used in positions.
// $refs to other files are errors (the operations that use them are
// skipped).
func LoadBytes(name string, data []byte) (*Doc, error) {
	return load(name, data, &loader{})
}

type loader struct {
	files   map[string]*yaml.Node // file name or URL → document's root mapping
	disk    bool                  // other files may be read
	schemas map[*yaml.Node]*Schema
	read    []*yaml.Node // the keys of schemas, in the order they were added
	// client fetches remote documents; nil: remote $refs are errors.
	client *http.Client
	ctx    context.Context
	notes  []Note // what was left out of a schema that is still read
	// overlays are applied to the document before it is read.
	overlays []string
}

// node is a YAML node and the file it is in.
type node struct {
	file string
	n    *yaml.Node
}

func (nd node) pos() Pos { return Pos{File: nd.file, Line: nd.n.Line, Col: nd.n.Column} }

func (nd node) errorf(format string, args ...any) error {
	return &Error{Pos: nd.pos(), Msg: fmt.Sprintf(format, args...)}
}

func load(name string, data []byte, l *loader) (*Doc, error) {
	l.files, l.schemas = map[string]*yaml.Node{}, map[*yaml.Node]*Schema{}
	root, err := l.parse(name, data)
	if err != nil {
		return nil, err
	}
	top := node{name, root}
	for _, o := range l.overlays {
		notes, err := applyOverlay(o, root)
		if err != nil {
			return nil, err
		}
		l.notes = append(l.notes, notes...)
	}
	d := &Doc{Security: map[string]*SecurityScheme{}}
	v := get(root, "openapi")
	if sw := get(root, "swagger"); sw != nil && v == nil {
		if sw.Value != "2.0" {
			return nil, node{name, sw}.errorf("Swagger %s: only Swagger 2.0 and OpenAPI 3 documents are read", sw.Value)
		}
		var notes []Note
		root, notes = swagger2(name, root)
		l.files[name] = root
		l.notes = append(l.notes, notes...)
		v = get(root, "openapi")
	}
	if v == nil {
		return nil, top.errorf("not an OpenAPI document: no openapi field at the top")
	}
	d.Version = v.Value
	if !strings.HasPrefix(d.Version, "3.0") && !strings.HasPrefix(d.Version, "3.1") && !strings.HasPrefix(d.Version, "3.2") {
		return nil, node{name, v}.errorf("OpenAPI %s: only versions 3.0, 3.1 and 3.2 are read", d.Version)
	}
	if top.n != root {
		d.Version = "2.0" // the Swagger document's, read as the OpenAPI 3.0 it converts to
	}
	if info := get(root, "info"); info != nil {
		d.Title = str(get(info, "title"))
	}
	for _, s := range items(get(root, "servers")) {
		if u := str(get(s, "url")); u != "" {
			d.Servers = append(d.Servers, u)
			d.ServerList = append(d.ServerList, server(s, u))
		}
	}
	comps := get(root, "components")
	if ss := get(comps, "securitySchemes"); ss != nil {
		for k, v := range pairs(ss) {
			sc, err := l.securityScheme(node{name, v}, k.Value)
			if err == nil {
				d.Security[k.Value] = sc
			}
		}
	}
	if sec := get(root, "security"); sec != nil {
		d.DefSecure = requirements(sec)
	}
	if cs := get(comps, "schemas"); cs != nil {
		for k, v := range pairs(cs) {
			s, err := l.schemaNamed(node{name, v}, k.Value)
			if err == nil {
				d.Schemas = append(d.Schemas, s)
			}
		}
	}
	paths := get(root, "paths")
	if paths != nil && paths.Kind != yaml.MappingNode {
		return nil, node{name, paths}.errorf("paths: want a mapping")
	}
	for k, v := range pairs(paths) {
		l.pathItem(d, node{name, v}, k.Value)
	}
	l.webhooks(d, name, node{name, root})
	d.Notes = l.notes
	return d, nil
}

// server reads a servers entry whose url is u.
func server(n *yaml.Node, u string) Server {
	s := Server{URL: u, Description: str(get(n, "description"))}
	for k, v := range pairs(get(n, "variables")) {
		sv := ServerVariable{Name: k.Value, Default: str(get(v, "default")), Description: str(get(v, "description"))}
		for _, e := range items(get(v, "enum")) {
			sv.Enum = append(sv.Enum, e.Value)
		}
		s.Variables = append(s.Variables, sv)
	}
	return s
}

// parse reads one file of the document and keeps it for $refs.
func (l *loader) parse(name string, data []byte) (*yaml.Node, error) {
	top, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	l.files[name] = top
	return top, nil
}

// parseDocument reads a file, JSON by a JSON reader, YAML by a YAML one,
// and returns its top mapping.
func parseDocument(name string, data []byte) (*yaml.Node, error) {
	var top *yaml.Node
	if looksJSON(data) {
		n, err := parseJSON(name, data)
		if err != nil {
			return nil, err
		}
		top = n
	} else {
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, wrap(err, fmt.Sprintf("%s: not YAML or JSON", name))
		}
		if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
			top = doc.Content[0]
		}
	}
	if top == nil || top.Kind != yaml.MappingNode {
		return nil, &Error{Pos: Pos{File: name, Line: 1, Col: 1}, Msg: "not an OpenAPI document: want a mapping at the top"}
	}
	return top, nil
}

// skip records an operation that cannot be read: at the position of the
// problem when the error has one, else at the operation's.
func skip(method, path string, at Pos, err error) Skip {
	s := Skip{Method: method, Path: path, Pos: at, Reason: err.Error()}
	var e *Error
	if errors.As(err, &e) {
		s.Pos, s.Reason = e.Pos, e.Msg
	}
	return s
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func (l *loader) pathItem(d *Doc, item node, path string) {
	resolved, err := l.deref(item)
	if err != nil {
		d.Skipped = append(d.Skipped, skip("*", path, item.pos(), err))
		return
	}
	item = resolved
	shared := get(item.n, "parameters")
	for _, m := range methods {
		key, opn := entry(item.n, m)
		if opn == nil {
			continue
		}
		on := node{item.file, opn}
		at := node{item.file, key}.pos()
		op, err := l.operation(on, at, strings.ToUpper(m), path, node{item.file, shared})
		if err != nil {
			d.Skipped = append(d.Skipped, skip(strings.ToUpper(m), path, at, err))
			continue
		}
		d.Ops = append(d.Ops, op)
	}
}

func (l *loader) operation(on node, at Pos, method, path string, shared node) (*Operation, error) {
	if on.n.Kind != yaml.MappingNode {
		return nil, on.errorf("%s %s: want a mapping", method, path)
	}
	op := &Operation{
		Method:      method,
		Path:        path,
		ID:          str(get(on.n, "operationId")),
		Summary:     str(get(on.n, "summary")),
		Description: str(get(on.n, "description")),
		Deprecated:  boolean(get(on.n, "deprecated")),
		Extensions:  extensions(on.n),
		Pos:         at,
	}
	if ed := get(on.n, "externalDocs"); ed != nil {
		op.ExternalDocs = str(get(ed, "url"))
	}
	for _, t := range items(get(on.n, "tags")) {
		op.Tags = append(op.Tags, t.Value)
	}
	var params []*Parameter
	for _, src := range []node{shared, {on.file, get(on.n, "parameters")}} {
		for _, pn := range items(src.n) {
			p, err := l.parameter(node{src.file, pn})
			if err != nil {
				return nil, err
			}
			replaced := false
			for i, q := range params {
				if q.Name == p.Name && q.In == p.In {
					params[i], replaced = p, true
				}
			}
			if !replaced {
				params = append(params, p)
			}
		}
	}
	op.Params = params
	if bk, bn := entry(on.n, "requestBody"); bn != nil {
		b, err := l.requestBody(node{on.file, bn})
		if err != nil {
			return nil, err
		}
		op.Body = b
		if method == "GET" && emptyBody(b) {
			// Stripe's document declares one on every GET: a GET sends no
			// body, and this one says nothing.
			op.Body = nil
			l.notes = append(l.notes, Note{Pos: node{on.file, bk}.pos(), Msg: fmt.Sprintf("GET %s: an empty request body on a GET is left out", path)})
		}
	}
	for k, v := range pairs(get(on.n, "responses")) {
		r, err := l.response(node{on.file, v}, node{on.file, k})
		if err != nil {
			return nil, err
		}
		op.Responses = append(op.Responses, r)
	}
	if sec := get(on.n, "security"); sec != nil {
		op.HasSecurity = true
		op.Security = requirements(sec)
	}
	return op, nil
}

func (l *loader) parameter(pn node) (*Parameter, error) {
	component := ""
	if r := get(pn.n, "$ref"); r != nil {
		if _, frag, _ := strings.Cut(r.Value, "#"); strings.HasPrefix(frag, "/components/parameters/") {
			component = strings.TrimPrefix(frag, "/components/parameters/")
		}
	}
	pn, err := l.deref(pn)
	if err != nil {
		return nil, err
	}
	p := &Parameter{
		Name:        str(get(pn.n, "name")),
		In:          str(get(pn.n, "in")),
		Description: str(get(pn.n, "description")),
		Required:    boolean(get(pn.n, "required")),
		Deprecated:  boolean(get(pn.n, "deprecated")),
		Style:       str(get(pn.n, "style")),
		Extensions:  extensions(pn.n),
		Component:   component,
		Pos:         pn.pos(),
	}
	if p.Name == "" {
		return nil, pn.errorf("a parameter without a name")
	}
	switch p.In {
	case "path", "query", "header", "cookie":
	default:
		return nil, pn.errorf("parameter %s: in: %q is not path, query, header or cookie", p.Name, p.In)
	}
	if p.Style == "" {
		p.Style = "simple"
		if p.In == "query" || p.In == "cookie" {
			p.Style = "form"
		}
	}
	p.Explode = p.Style == "form"
	if e := get(pn.n, "explode"); e != nil {
		p.Explode = boolean(e)
	}
	sn := get(pn.n, "schema")
	if sn == nil {
		// content: {media type: {schema}}: the parameter is serialised as that type.
		for _, v := range pairs(get(pn.n, "content")) {
			sn = get(v, "schema")
			break
		}
	}
	if sn == nil {
		p.Schema = Any
		return p, nil
	}
	s, err := l.schema(node{pn.file, sn})
	if err != nil {
		return nil, wrap(err, fmt.Sprintf("parameter %s", p.Name))
	}
	p.Schema = s
	return p, nil
}

func (l *loader) requestBody(bn node) (*RequestBody, error) {
	bn, err := l.deref(bn)
	if err != nil {
		return nil, err
	}
	b := &RequestBody{Description: str(get(bn.n, "description")), Required: boolean(get(bn.n, "required")), Pos: bn.pos()}
	b.Content, err = l.content(node{bn.file, get(bn.n, "content")})
	if err != nil {
		return nil, wrap(err, "request body")
	}
	return b, nil
}

func (l *loader) response(rn, key node) (*Response, error) {
	r := &Response{Pos: key.pos()}
	code := strings.ToUpper(key.n.Value)
	switch {
	case code == "DEFAULT":
	case len(code) == 3 && code[1:] == "XX" && code[0] >= '1' && code[0] <= '5':
		r.Range = code
		r.Status = int(code[0]-'0') * 100
	default:
		n, err := strconv.Atoi(code)
		if err != nil || n < 100 || n > 599 {
			return nil, key.errorf("response %q: not a status code, a range like 2XX, or default", key.n.Value)
		}
		r.Status = n
	}
	rn, err := l.deref(rn)
	if err != nil {
		return nil, err
	}
	r.Description = str(get(rn.n, "description"))
	for k, v := range pairs(get(rn.n, "headers")) {
		hn, err := l.deref(node{rn.file, v})
		if err != nil {
			return nil, err
		}
		s := Any
		if sn := get(hn.n, "schema"); sn != nil {
			if s, err = l.schema(node{hn.file, sn}); err != nil {
				return nil, wrap(err, fmt.Sprintf("response %s: header %s", key.n.Value, k.Value))
			}
		}
		if r.Headers == nil {
			r.Headers = map[string]*Schema{}
		}
		r.Headers[k.Value] = s
	}
	r.Content, err = l.content(node{rn.file, get(rn.n, "content")})
	if err != nil {
		return nil, wrap(err, fmt.Sprintf("response %s", key.n.Value))
	}
	return r, nil
}

func (l *loader) content(cn node) ([]*MediaType, error) {
	var out []*MediaType
	for k, v := range pairs(cn.n) {
		mt := &MediaType{Type: mediaType(k.Value), Pos: node{cn.file, k}.pos()}
		if sn := get(v, "schema"); sn != nil {
			s, err := l.schema(node{cn.file, sn})
			if err != nil {
				return nil, wrap(err, k.Value)
			}
			mt.Schema = s
		}
		if sn := get(v, "itemSchema"); sn != nil {
			s, err := l.schema(node{cn.file, sn})
			if err != nil {
				return nil, wrap(err, fmt.Sprintf("%s: itemSchema", k.Value))
			}
			mt.Item = s
		}
		for ek, ev := range pairs(get(v, "encoding")) {
			if mt.Encoding == nil {
				mt.Encoding = map[string]*FormEncoding{}
			}
			fe := &FormEncoding{ContentType: str(get(ev, "contentType")), Style: str(get(ev, "style"))}
			if e := get(ev, "explode"); e != nil {
				b := boolean(e)
				fe.Explode = &b
			}
			mt.Encoding[ek.Value] = fe
		}
		out = append(out, mt)
	}
	return out, nil
}

// emptyBody reports whether a request body says nothing: each of its
// media types has no schema or an object schema without properties.
func emptyBody(b *RequestBody) bool {
	for _, mt := range b.Content {
		s := mt.Schema
		if s != nil && (s.Type != "object" || len(s.Properties) > 0 || s.AdditionalProperties != nil ||
			len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) > 0) {
			return false
		}
	}
	return true
}

// mediaType lower-cases a media type and drops its parameters.
func mediaType(s string) string {
	s, _, _ = strings.Cut(s, ";")
	return strings.ToLower(strings.TrimSpace(s))
}

func (l *loader) securityScheme(sn node, name string) (*SecurityScheme, error) {
	sn, err := l.deref(sn)
	if err != nil {
		return nil, err
	}
	sc := &SecurityScheme{
		Name:   name,
		Type:   str(get(sn.n, "type")),
		Scheme: strings.ToLower(str(get(sn.n, "scheme"))),
		In:     str(get(sn.n, "in")),
		Param:  str(get(sn.n, "name")),
		Pos:    sn.pos(),
	}
	for k, v := range pairs(get(sn.n, "flows")) {
		sc.Flows = append(sc.Flows, k.Value)
		if k.Value == "clientCredentials" {
			sc.TokenURL = str(get(v, "tokenUrl"))
		}
	}
	return sc, nil
}

func requirements(n *yaml.Node) []SecurityRequirement {
	out := []SecurityRequirement{}
	for _, alt := range items(n) {
		req := SecurityRequirement{}
		for k := range pairs(alt) {
			req = append(req, k.Value)
		}
		out = append(out, req)
	}
	return out
}

// deref follows nd's $ref, and the $refs of what it names, to an object
// that is not a reference.
func (l *loader) deref(nd node) (node, error) {
	for hop := 0; ; hop++ {
		if nd.n == nil || nd.n.Kind != yaml.MappingNode {
			return nd, nil
		}
		r := get(nd.n, "$ref")
		if r == nil {
			return nd, nil
		}
		if hop == MaxRefHops {
			return nd, nd.errorf("$ref %q: more than %d references in a chain (a cycle?)", r.Value, MaxRefHops)
		}
		next, err := l.target(node{nd.file, r}, r.Value)
		if err != nil {
			return nd, err
		}
		nd = next
	}
}

// target resolves one reference written at at.
func (l *loader) target(at node, ref string) (node, error) {
	file, frag, _ := strings.Cut(ref, "#")
	ref = redactRef(ref)
	doc := at.file
	if file != "" && (isRemote(file) || isRemote(at.file)) {
		if l.client == nil {
			return node{}, at.errorf("$ref %q: a remote reference (kitgen openapi -remote follows them)", ref)
		}
		base, err := url.Parse(at.file)
		if !isRemote(at.file) {
			base, err = &url.URL{}, nil
		}
		var u *url.URL
		if err == nil {
			u, err = base.Parse(file)
		}
		if err != nil {
			return node{}, at.errorf("$ref %q: %v", ref, err)
		}
		doc = u.String()
		if _, ok := l.files[doc]; !ok {
			data, err := fetchRemote(l.ctx, l.client, doc)
			if err != nil {
				return node{}, at.errorf("$ref %q: %v", ref, err)
			}
			if _, err := l.parse(doc, data); err != nil {
				return node{}, at.errorf("$ref %q: %v", ref, err)
			}
		}
	} else if file != "" {
		if !l.disk {
			return node{}, at.errorf("$ref %q: references to other files need the document on disk", ref)
		}
		doc = filepath.Join(filepath.Dir(at.file), filepath.FromSlash(file))
		if _, ok := l.files[doc]; !ok {
			data, err := os.ReadFile(doc)
			if err != nil {
				return node{}, at.errorf("$ref %q: %v", ref, errors.Unwrap(err))
			}
			if _, err := l.parse(doc, data); err != nil {
				return node{}, at.errorf("$ref %q: %v", ref, err)
			}
		}
	}
	cur := l.files[doc]
	if frag == "" {
		return node{doc, cur}, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return node{}, at.errorf("$ref %q: the fragment is not a JSON pointer", ref)
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok, err := url.PathUnescape(tok)
		if err != nil {
			return node{}, at.errorf("$ref %q: %v", ref, err)
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		var next *yaml.Node
		switch cur.Kind {
		case yaml.MappingNode:
			next = get(cur, tok)
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(cur.Content) {
				next = cur.Content[i]
			}
		}
		if next == nil {
			return node{}, at.errorf("$ref %q: %q not found", ref, tok)
		}
		cur = next
	}
	return node{doc, cur}, nil
}

package routing

import (
	"fmt"
	"net/http"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// Route is where a field or parameter goes.
type Route uint8

// The routes.
const (
	None        Route = iota // not routed (after a refusal)
	Query                    // a query parameter; a slice repeats the key
	Path                     // fills a {placeholder}: one escaped path segment
	Header                   // a request header
	Body                     // the JSON (or form, multipart) body
	RawFile                  // a kit.File: the raw request body
	QueryMap                 // a map: one query parameter per entry
	Dynamic                  // decided per call, by the value an interface holds
	QueryStruct              // a struct marked query: its fields are query parameters
	URL                      // the whole URL of the call
	QueryDeep                // a map or struct marked query with a name: name[key]=v (OpenAPI's deepObject)
)

// String names the route in messages: "the path", "the body".
func (r Route) String() string {
	switch r {
	case Query:
		return "query"
	case Path:
		return "path"
	case Header:
		return "header"
	case Body, RawFile:
		return "body"
	case QueryMap:
		return "query, entry by entry"
	case Dynamic:
		return "place the value it holds decides"
	case QueryStruct:
		return "query, field by field"
	case URL:
		return "URL"
	case QueryDeep:
		return "query, in brackets under its name"
	}
	return "nowhere"
}

// Mark is how a field is marked to go somewhere: a kit tag option, or a
// kitgen directive.
type Mark uint8

// The marks.
const (
	Unmarked   Mark = iota // routed by its name and type
	MarkHeader             // `kit:"Name,header"`; //kit:header Name: {p}
	MarkQuery              // `kit:",query"`; //kit:query {p} (or name: {p})
	MarkURL                // `kit:",url"`; //kit:url {p}
	MarkBody               // `kit:",body"`; //kit:body {p}
)

// Field describes one field of a parameter struct, or one parameter of a
// declared method, as the rules need it.
type Field struct {
	GoName      string // as declared: "ID", "Opts.Page", "userID"
	T           Type   // its Go type
	Class       Class  // Classify(T), which the caller may have cached
	Name        string // the name it is sent under: a query or header name, or a placeholder
	Named       bool   // Name was given explicitly (a tag's name, //kit:query name: {p})
	Mark        Mark
	Placeholder bool // Name is a placeholder of the path
	// Join is a list option (csv, ssv, pipes; see structtag.Delimiter):
	// the slice is sent as one query parameter or header, its elements
	// joined.
	Join string
}

// Route decides where f goes, in this order: a mark (url, body, query,
// header), a placeholder of its name, then its type (a data model or a
// kit.File is the body; a map, entry by entry; an empty interface, by the
// value it holds; anything else with a text form, the query).
//
// A field marked body is the JSON request body whatever its type (a map,
// a slice, a string: what encoding/json writes), a kit.File the raw body.
// A map, a struct, or a slice of them, marked query with a name is written
// in brackets under that name, nested as a form body is: name[key]=v,
// name[key][sub]=v, name[0][key]=v (OpenAPI's deepObject, as Rails, PHP
// and Stripe read it); the caller checks its elements as it checks a form
// body's nested values.
//
// A field with a list option (f.Join) is a slice or array of text sent as
// one query parameter or header, its elements joined.
func (d *Dialect) Route(f *Field) (Route, error) {
	r, err := d.route(f)
	if err != nil || f.Join == "" {
		return r, err
	}
	if f.Class.Kind != Slice || r != Query && r != Header {
		return None, fmt.Errorf("%s (%s) cannot be joined into one value (%s): %s is for a slice or array of text sent as a query parameter or header", d.subject(f.GoName), f.T.String(), f.Join, f.Join)
	}
	return r, nil
}

func (d *Dialect) route(f *Field) (Route, error) {
	c, subject := f.Class, d.subject(f.GoName)
	deep := f.Mark == MarkQuery && f.Named && (c.Kind == Model || f.T.Shape() == MapShape || isDeepList(f.T, c))
	if c.Kind == Invalid && f.Mark != MarkURL && f.Mark != MarkBody && !deep {
		return None, refusal(subject, f.T.String(), f.Name, c, false)
	}
	switch f.Mark {
	case MarkBody:
		switch {
		case f.Named:
			return None, fmt.Errorf("%s (%s) is the request body, which has no name: drop the name %q", subject, f.T.String(), f.Name)
		case c.Kind == File:
			return RawFile, nil
		case c.Kind == Bytes:
			return None, fmt.Errorf("%s (%s) cannot be the JSON request body: send raw bytes as a kit.File (kit.FileFromBytes), or a string", subject, f.T.String())
		}
		if why := JSONProblem(f.T); why != "" {
			return None, fmt.Errorf("%s (%s) cannot be the JSON request body: %s", subject, f.T.String(), why)
		}
		return Body, nil
	case MarkURL:
		if !IsURL(f.T) {
			return None, fmt.Errorf("%s (%s) is a string or a *url.URL, not %s", subject, d.mark(f), f.T.String())
		}
		return URL, nil
	case MarkQuery:
		switch {
		case c.Kind == Scalar || c.Kind == Slice:
			return Query, nil
		case deep && f.T.Shape() == MapShape && !f.T.Key().Is(String):
			return None, fmt.Errorf("%s (%s) cannot be query parameter %s: %s", subject, f.T.String(), f.Name, FormMapKey(f.T.String(), f.T.Key().String()))
		case deep:
			return QueryDeep, nil
		case c.Kind == Bytes && f.Named:
			return None, fmt.Errorf("%s (%s) cannot be query parameter %s: %s", subject, f.T.String(), f.Name, whyBytes)
		case f.Named:
			return None, fmt.Errorf("%s (%s) cannot be query parameter %s: it is not text, a slice of text, a map or a struct", subject, f.T.String(), f.Name)
		case c.Kind == Model:
			return QueryStruct, nil
		case c.Kind == Map:
			return QueryMap, nil
		case c.Kind == Bytes:
			return None, fmt.Errorf("%s (%s) cannot go in the query: %s", subject, f.T.String(), whyBytes)
		}
		return None, fmt.Errorf("%s (%s) cannot go in the query (%s): it is not a struct, a map, text or a slice of text", subject, f.T.String(), d.mark(f))
	case MarkHeader:
		if err := HeaderName(f.Name); err != nil {
			return None, fmt.Errorf("%s: %w", subject, err)
		}
		if !c.Text && c.Kind != Slice && c.Kind != Interface {
			return None, fmt.Errorf("%s (%s) cannot be header %s: a header is text or a slice of text", subject, f.T.String(), f.Name)
		}
		return Header, nil
	}
	if r := Held(c, f.Placeholder); r != None {
		return r, nil
	}
	return None, refusal(subject, f.T.String(), f.Name, c, f.Placeholder)
}

// isDeepList reports whether t, of class c, is a list a deepObject query
// writes at indexes: a slice or array of data models or maps
// (name[0][key]=v, as Rails, PHP and Stripe read it).
func isDeepList(t Type, c Class) bool {
	return t.Shape() == SequenceShape && (c.Kind == ModelSlice || t.Elem().Shape() == MapShape)
}

// Held decides where a value goes by its class alone, as for a field
// without a mark: a placeholder of its name is filled with its text; else a
// data model or a kit.File is the body, a map is sent entry by entry, an
// empty interface by the value it holds, anything else with a text form as
// a query parameter. It returns None when the value cannot go there (see
// HeldProblem). kit calls it for the value an interface holds, at each
// call: it allocates nothing.
func Held(c Class, placeholder bool) Route {
	if placeholder {
		switch {
		case c.Kind == Invalid || c.Kind == Bytes:
			return None
		case c.Kind == Interface:
			return Dynamic // formatted by the value it holds, at call time
		case !c.Text:
			return None
		}
		return Path
	}
	switch c.Kind {
	case Model, ModelSlice:
		return Body
	case File:
		return RawFile
	case Map:
		return QueryMap
	case Interface:
		return Dynamic
	case Invalid, Bytes, FileSlice:
		return None
	}
	return Query
}

// HeldProblem says why Held refused the value an interface holds, of type
// typ, sent as name.
func HeldProblem(typ, name string, c Class, placeholder bool) error {
	return refusal("the value it holds", typ, name, c, placeholder)
}

// refusal says why a value of type typ (of class c), named by subject,
// cannot go where Held would send it.
func refusal(subject, typ, name string, c Class, placeholder bool) error {
	switch {
	case c.Kind == Invalid || !placeholder:
		if c.Why != "" {
			return fmt.Errorf("%s cannot be sent: %s", subject, TypeProblem(typ, c.Why))
		}
		return fmt.Errorf("%s (%s) cannot be sent: it is not text, a slice of text, a map, a data model, a kit.File or an interface", subject, typ)
	case c.Kind == Bytes:
		return fmt.Errorf("%s (%s) fills {%s}: %s", subject, typ, name, whyBytes)
	}
	return fmt.Errorf("%s (%s) fills {%s} but has no single text form", subject, typ, name)
}

// Plan collects the routes of one declaration's fields and refuses what
// only the whole declaration shows: two bodies, two URLs, one name sent
// twice.
type Plan struct {
	d         *Dialect
	body, url string            // who is the body, the URL
	names     map[string]string // "query parameter \"q\"", "header X-Id" -> who sends it
}

// NewPlan starts the plan of one declaration.
func (d *Dialect) NewPlan() *Plan { return &Plan{d: d, names: map[string]string{}} }

// Add records that f goes to r.
func (p *Plan) Add(f *Field, r Route) error {
	who := p.d.subject(f.GoName)
	switch r {
	case Body, RawFile:
		if p.body != "" {
			return fmt.Errorf("%s and %s would both be the request body, and a request has one", p.body, who)
		}
		p.body = who
	case URL:
		if p.url != "" {
			return fmt.Errorf("%s and %s would both be the whole URL, and a call has one", p.url, who)
		}
		p.url = who
	case Query, Header, QueryDeep:
		return p.Send(r, f.Name, who)
	}
	return nil
}

// Send records that who sends the query parameter (r is Query), the query
// parameters name[...] (r is QueryDeep) or header (r is Header) name.
// Header names are compared canonically.
func (p *Plan) Send(r Route, name, who string) error {
	what := fmt.Sprintf("query parameter %q", name)
	switch r {
	case Header:
		what = "header " + http.CanonicalHeaderKey(name)
	case QueryDeep:
		what = fmt.Sprintf("query parameters %q", name+"[...]")
	}
	if prev, dup := p.names[what]; dup {
		return fmt.Errorf("%s and %s both send %s", prev, who, what)
	}
	p.names[what] = who
	return nil
}

// Unfilled is the refusal of a placeholder that no field (parameter) fills.
func (d *Dialect) Unfilled(placeholder string) error {
	return fmt.Errorf("placeholder {%s} has no %s named %s", placeholder, d.noun, placeholder)
}

// HeaderName checks that name may name a header (or a method): an HTTP
// token (RFC 9110 section 5.6.2).
func HeaderName(name string) error {
	if !httpsyntax.IsToken(name) {
		return fmt.Errorf("header name %q is not an HTTP token", name)
	}
	return nil
}

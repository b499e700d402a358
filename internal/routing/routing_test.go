package routing

import (
	"strings"
	"testing"
)

// fake is a Type described by hand: the rules are tested without reflect
// or go/types (kit's and kitgen's own tests, and kitgen's agreement test,
// check their type inspection against real types).
type fake struct {
	shape      Shape
	elem, key  *fake
	is         []Known
	own, ptr   []Methods // the methods of T, of *T
	hasMethods bool
	arg        *fake
	name       string
}

func (f *fake) Shape() Shape { return f.shape }
func (f *fake) Elem() Type   { return f.elem }
func (f *fake) Key() Type    { return f.key }
func (f *fake) Is(k Known) bool {
	for _, x := range f.is {
		if x == k {
			return true
		}
	}
	return false
}
func (f *fake) Implements(m Methods) bool { return has(f.own, m) }
func (f *fake) PointerImplements(m Methods) bool {
	return f.shape != PointerShape && (has(f.own, m) || has(f.ptr, m))
}
func (f *fake) HasMethods() bool { return f.hasMethods }
func (f *fake) Arg() Type        { return f.arg }
func (f *fake) String() string   { return f.name }

func has(ms []Methods, m Methods) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

var (
	tInt      = &fake{shape: BasicShape}
	tString   = &fake{shape: BasicShape, is: []Known{String}}
	tByte     = &fake{shape: BasicShape, is: []Known{Byte}}
	tComplex  = &fake{shape: OtherShape}
	tTime     = &fake{shape: StructShape, is: []Known{Time}, own: []Methods{TextMarshaler, Stringer}}
	tFile     = &fake{shape: StructShape, is: []Known{KitFile}}
	tModel    = &fake{shape: StructShape}
	tStringer = &fake{shape: StructShape, own: []Methods{Stringer}}      // a model with a text form
	tText     = &fake{shape: StructShape, ptr: []Methods{TextMarshaler}} // not a model: its text
	tReader   = &fake{shape: StructShape, ptr: []Methods{Reader}}
	tAny      = &fake{shape: InterfaceShape}
	tError    = &fake{shape: InterfaceShape, hasMethods: true}
	tIOReader = &fake{shape: InterfaceShape, hasMethods: true, own: []Methods{Reader}}
	tChan     = &fake{shape: NoTextShape}
	tURL      = &fake{shape: PointerShape, elem: &fake{shape: StructShape}, is: []Known{URLPointer}}
)

func ptr(t *fake) *fake      { return &fake{shape: PointerShape, elem: t} }
func slice(t *fake) *fake    { return &fake{shape: SequenceShape, elem: t} }
func mapOf(k, v *fake) *fake { return &fake{shape: MapShape, key: k, elem: v} }

func TestClassify(t *testing.T) {
	t.Parallel()
	deep := tInt
	for range 6 {
		deep = ptr(deep)
	}
	for _, tt := range []struct {
		name string
		t    *fake
		kind Kind
		text bool
		why  string // in Why
	}{
		{"int", tInt, Scalar, true, ""},
		{"**int", ptr(ptr(tInt)), Scalar, true, ""},
		{"too deep", deep, Invalid, false, ""},
		{"complex", tComplex, Invalid, false, ""},
		{"time.Time", tTime, Scalar, true, ""},
		{"*time.Time", ptr(tTime), Scalar, true, ""},
		{"kit.File", tFile, File, false, ""},
		{"*kit.File", ptr(tFile), File, false, ""},
		{"[]kit.File", slice(tFile), FileSlice, false, "Multipart"},
		{"model", tModel, Model, false, ""},
		{"*model", ptr(tModel), Model, false, ""},
		{"stringer model", tStringer, Model, true, ""},
		{"text struct", tText, Scalar, true, ""},
		{"reader struct", tReader, Invalid, false, "io.Reader"},
		{"io.Reader", tIOReader, Invalid, false, "io.Reader"},
		{"error", tError, Invalid, false, "interface with methods"},
		{"any", tAny, Interface, false, ""},
		{"[]byte", slice(tByte), Bytes, true, "never sent in the URL"},
		{"[]string", slice(tString), Slice, false, ""},
		{"[]any", slice(tAny), Slice, false, ""},
		{"[]model", slice(tModel), ModelSlice, false, ""},
		{"[]*model", slice(ptr(tModel)), ModelSlice, false, ""},
		{"[]chan", slice(tChan), Invalid, false, "no text form"},
		{"[][]int", slice(slice(tInt)), Invalid, false, ""},
		{"map[string][]int", mapOf(tString, slice(tInt)), Map, false, ""},
		{"map[string]any", mapOf(tString, tAny), Map, false, ""},
		{"map[model]string", mapOf(tModel, tString), Invalid, false, ""},
		{"map[string]model", mapOf(tString, tModel), Invalid, false, ""},
		{"map[string]map[string]int", mapOf(tString, mapOf(tString, tInt)), Map, false, ""},
		{"map[string]map[int]int", mapOf(tString, mapOf(tInt, tInt)), Invalid, false, whyDeepKeys},
		{"kit.Nullable[string]", &fake{shape: StructShape, is: []Known{KitNullable}, own: []Methods{Stringer}, arg: tString}, Scalar, true, ""},
		{"kit.Nullable[[]int]", &fake{shape: StructShape, is: []Known{KitNullable}, own: []Methods{Stringer}, arg: slice(tInt)}, Invalid, false, whyNullable},
		{"chan", tChan, Invalid, false, "no text form"},
		{"*model is not text", ptr(ptr(tModel)), Invalid, false, ""},
	} {
		c := Classify(tt.t)
		if c.Kind != tt.kind || c.Text != tt.text || !strings.Contains(c.Why, tt.why) {
			t.Errorf("%s: %+v, want kind %d text %v why %q", tt.name, c, tt.kind, tt.text, tt.why)
		}
	}
}

func TestRoute(t *testing.T) {
	t.Parallel()
	field := func(typ string, ft *fake, name string, mark Mark, ph bool) *Field {
		c := *ft
		c.name = typ
		return &Field{GoName: "V", T: &c, Class: Classify(ft), Name: name, Mark: mark, Placeholder: ph}
	}
	named := func(f *Field) *Field { f.Named = true; return f }
	join := func(f *Field) *Field { f.Join = "csv"; return f }
	for _, tt := range []struct {
		name  string
		f     *Field
		route Route
		err   string // in the error of both dialects
	}{
		{"text", field("int", tInt, "v", Unmarked, false), Query, ""},
		{"slice", field("[]string", slice(tString), "v", Unmarked, false), Query, ""},
		{"placeholder", field("int", tInt, "v", Unmarked, true), Path, ""},
		{"stringer model fills", field("M", tStringer, "v", Unmarked, true), Path, ""},
		{"any fills", field("any", tAny, "v", Unmarked, true), Dynamic, ""},
		{"slice fills", field("[]int", slice(tInt), "v", Unmarked, true), None, "fills {v} but has no single text form"},
		{"bytes fill", field("[]byte", slice(tByte), "v", Unmarked, true), None, "fills {v}: a []byte is never sent in the URL"},
		{"model", field("M", tModel, "v", Unmarked, false), Body, ""},
		{"model slice", field("[]M", slice(tModel), "v", Unmarked, false), Body, ""},
		{"file", field("kit.File", tFile, "v", Unmarked, false), RawFile, ""},
		{"map", field("map[string]string", mapOf(tString, tString), "v", Unmarked, false), QueryMap, ""},
		{"any", field("any", tAny, "v", Unmarked, false), Dynamic, ""},
		{"bytes", field("[]byte", slice(tByte), "v", Unmarked, false), None, "cannot be sent: type []byte: a []byte"},
		{"files", field("[]kit.File", slice(tFile), "v", Unmarked, false), None, "file parts of a Multipart() body model"},
		{"chan", field("chan int", tChan, "v", Unmarked, false), None, "cannot be sent: type chan int has no text form"},
		{"complex", field("complex128", tComplex, "v", Unmarked, false), None, "(complex128) cannot be sent: it is not text"},
		{"chan marked header", field("chan int", tChan, "X-V", MarkHeader, false), None, "has no text form"},
		{"header", field("[]string", slice(tString), "X-V", MarkHeader, true), Header, ""},
		{"header bytes", field("[]byte", slice(tByte), "X-V", MarkHeader, false), Header, ""},
		{"header model", field("M", tModel, "X-V", MarkHeader, false), None, "cannot be header X-V: a header is text or a slice of text"},
		{"header not a token", field("string", tString, "X V", MarkHeader, false), None, `header name "X V" is not an HTTP token`},
		{"query struct", field("M", tModel, "v", MarkQuery, false), QueryStruct, ""},
		{"query map", field("url.Values", mapOf(tString, slice(tString)), "v", MarkQuery, false), QueryMap, ""},
		{"query text over a placeholder", field("int", tInt, "v", MarkQuery, true), Query, ""},
		{"query any", field("any", tAny, "v", MarkQuery, false), None, "cannot go in the query"},
		{"query bytes", field("[]byte", slice(tByte), "v", MarkQuery, false), None, "cannot go in the query: a []byte"},
		{"named query", named(field("string", tString, "q", MarkQuery, false)), Query, ""},
		{"named query struct", named(field("M", tModel, "q", MarkQuery, false)), QueryDeep, ""},
		{"named query *struct", named(field("*M", ptr(tModel), "q", MarkQuery, false)), QueryDeep, ""},
		{"named query map", named(field("map[string]string", mapOf(tString, tString), "q", MarkQuery, false)), QueryDeep, ""},
		{"named query map of models", named(field("map[string]M", mapOf(tString, tModel), "q", MarkQuery, false)), QueryDeep, ""},
		{"named query int keys", named(field("map[int]string", mapOf(tInt, tString), "q", MarkQuery, false)), None, "cannot be query parameter q: type map[int]string: a map's keys are written as form keys"},
		{"named query any", named(field("any", tAny, "q", MarkQuery, false)), None, "cannot be query parameter q: it is not text, a slice of text, a map or a struct"},
		{"named query chan", named(field("chan int", tChan, "q", MarkQuery, false)), None, "cannot be sent: type chan int has no text form"},
		{"body map", field("map[string]any", mapOf(tString, tAny), "", MarkBody, false), Body, ""},
		{"body map of models", field("map[string]M", mapOf(tString, tModel), "", MarkBody, false), Body, ""},
		{"body integer keys", field("map[int]M", mapOf(&fake{shape: BasicShape, is: []Known{Integer}}, tModel), "", MarkBody, false), Body, ""},
		{"body text keys", field("map[T]int", mapOf(tText, tInt), "", MarkBody, false), Body, ""},
		{"body slice of text", field("[]string", slice(tString), "", MarkBody, false), Body, ""},
		{"body string", field("string", tString, "", MarkBody, false), Body, ""},
		{"body any", field("any", tAny, "", MarkBody, false), Body, ""},
		{"body model", field("M", tModel, "", MarkBody, false), Body, ""},
		{"body time", field("time.Time", tTime, "", MarkBody, false), Body, ""},
		{"body file", field("kit.File", tFile, "", MarkBody, false), RawFile, ""},
		{"body bytes", field("[]byte", slice(tByte), "", MarkBody, false), None, "send raw bytes as a kit.File"},
		{"body chan", field("chan int", tChan, "", MarkBody, false), None, "(chan int) cannot be the JSON request body: type chan int has no JSON form"},
		{"body complex in a map", field("map[string]complex128", mapOf(tString, tComplex), "", MarkBody, false), None, "has no JSON form"},
		{"body files", field("[]kit.File", slice(tFile), "", MarkBody, false), None, "is a kit.File, which has no JSON form"},
		{"body reader", field("R", tReader, "", MarkBody, false), None, "cannot be the JSON request body: an io.Reader has no text form"},
		{"body error", field("error", tError, "", MarkBody, false), None, "is an interface with methods"},
		{"body model keys", field("map[M]int", mapOf(tModel, tInt), "", MarkBody, false), None, "is not a string, an integer or an encoding.TextMarshaler"},
		{"body named", named(field("map[string]any", mapOf(tString, tAny), "b", MarkBody, false)), None, `is the request body, which has no name: drop the name "b"`},
		{"url string", field("string", tString, "", MarkURL, false), URL, ""},
		{"url *url.URL", field("*url.URL", tURL, "", MarkURL, false), URL, ""},
		{"url int", field("int", tInt, "", MarkURL, false), None, "is a string or a *url.URL, not int"},
		{"joined slice", join(field("[]string", slice(tString), "v", Unmarked, false)), Query, ""},
		{"joined slice of any", join(field("[]any", slice(tAny), "v", Unmarked, false)), Query, ""},
		{"joined named query", join(named(field("[]int", slice(tInt), "q", MarkQuery, false))), Query, ""},
		{"joined header", join(field("[]string", slice(tString), "X-V", MarkHeader, false)), Header, ""},
		{"joined text", join(field("int", tInt, "v", Unmarked, false)), None, "cannot be joined into one value (csv): csv is for a slice or array of text"},
		{"joined text header", join(field("string", tString, "X-V", MarkHeader, false)), None, "cannot be joined into one value (csv)"},
		{"joined bytes header", join(field("[]byte", slice(tByte), "X-V", MarkHeader, false)), None, "cannot be joined into one value (csv)"},
		{"joined map", join(field("map[string]string", mapOf(tString, tString), "v", Unmarked, false)), None, "cannot be joined into one value (csv)"},
		{"joined any", join(field("any", tAny, "v", Unmarked, false)), None, "cannot be joined into one value (csv)"},
		{"joined text list type", join(field("L", &fake{shape: SequenceShape, elem: tString, own: []Methods{TextMarshaler}}, "v", Unmarked, false)), None, "cannot be joined into one value (csv)"},
		{"joined deep list", join(named(field("[]M", slice(tModel), "q", MarkQuery, false))), None, "cannot be joined into one value (csv)"},
		{"joined slice fills", join(field("[]int", slice(tInt), "v", Unmarked, true)), None, "fills {v} but has no single text form"},
	} {
		for _, d := range []*Dialect{Tags, Directives} {
			r, err := d.Route(tt.f)
			switch {
			case tt.err == "" && (err != nil || r != tt.route):
				t.Errorf("%s (%s): %v, %v; want %v", tt.name, d.noun, r, err, tt.route)
			case tt.err != "" && (err == nil || r != None || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), d.noun+" V")):
				t.Errorf("%s (%s): %v, %v; want a refusal of %s V with %q", tt.name, d.noun, r, err, d.noun, tt.err)
			}
		}
	}
}

func TestMarksInMessages(t *testing.T) {
	t.Parallel()
	f := &Field{GoName: "next", T: &fake{shape: BasicShape, name: "int"}, Class: Classify(tInt), Mark: MarkURL}
	for d, want := range map[*Dialect]string{Tags: "field next (`kit:\",url\"`) is", Directives: "parameter next (//kit:url {next}) is"} {
		if _, err := d.Route(f); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", d.noun, err, want)
		}
	}
	q := &Field{GoName: "f", Name: "f", Named: true, Mark: MarkQuery}
	b := &Field{GoName: "f", Mark: MarkBody}
	for d, want := range map[*Dialect][2]string{
		Tags:       {"`kit:\"f,query\"`", "`kit:\",body\"`"},
		Directives: {"//kit:query f: {f}", "//kit:body {f}"},
	} {
		if got := [2]string{d.mark(q), d.mark(b)}; got != want {
			t.Errorf("%s: marks %q, want %q", d.noun, got, want)
		}
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	f := func(goName, name string) *Field { return &Field{GoName: goName, Name: name} }
	p := Tags.NewPlan()
	for _, step := range []struct {
		f   *Field
		r   Route
		err string
	}{
		{f("A", "q"), Query, ""},
		{f("B", "x-id"), Header, ""},
		{f("C", "X-Id"), Header, `field B and field C both send header X-Id`},
		{f("D", "q"), Query, `field A and field D both send query parameter "q"`},
		{f("E", "x-id"), Query, ""}, // a query parameter and a header may share a name
		{f("F", ""), Body, ""},
		{f("G", ""), RawFile, "field F and field G would both be the request body, and a request has one"},
		{f("H", ""), URL, ""},
		{f("I", ""), URL, "field H and field I would both be the whole URL, and a call has one"},
		{f("J", "j"), QueryMap, ""},
		{f("K", "j"), Dynamic, ""},
		{f("L", "q"), QueryDeep, ""}, // q[key]=v beside q=v
		{f("M", "q"), QueryDeep, `field L and field M both send query parameters "q[...]"`},
	} {
		err := p.Add(step.f, step.r)
		if step.err == "" && err != nil || step.err != "" && (err == nil || err.Error() != step.err) {
			t.Errorf("Add(%s, %v) = %v, want %q", step.f.GoName, step.r, err, step.err)
		}
	}
}

func TestHeldAllocatesNothing(t *testing.T) {
	c := Classify(tInt)
	if n := testing.AllocsPerRun(100, func() { _ = Held(c, true); _ = Held(c, false) }); n != 0 {
		t.Errorf("Held allocates %v times", n)
	}
	if r := Held(Classify(slice(tByte)), true); r != None {
		t.Errorf("Held([]byte, placeholder) = %v, want None", r)
	}
	if err := HeldProblem("[]uint8", "id", Classify(slice(tByte)), true); err == nil || !strings.Contains(err.Error(), "the value it holds ([]uint8) fills {id}: a []byte") {
		t.Errorf("HeldProblem: %v", err)
	}
}

func TestBody(t *testing.T) {
	t.Parallel()
	model := &Field{GoName: "opts", T: &fake{shape: StructShape, name: "Opts"}, Class: Classify(tModel)}
	file := &Field{GoName: "f", T: &fake{shape: StructShape, is: []Known{KitFile}, name: "kit.File"}, Class: Classify(tFile)}
	list := &Field{GoName: "l", T: &fake{shape: SequenceShape, elem: tModel, name: "[]Opts"}, Class: Classify(slice(tModel))}
	formMap := &Field{GoName: "m", T: &fake{shape: MapShape, key: tString, elem: tAny, name: "map[string]any"}, Class: Classify(mapOf(tString, tAny)), Mark: MarkBody}
	for _, tt := range []struct {
		name, method string
		enc          Encoding
		body         *Field
		r            Route
		dynamic      bool
		walk         bool
		tags, dirs   string // in the error, by dialect
	}{
		{"JSON model", "POST", JSON, model, Body, false, true, "", ""},
		{"no body", "POST", JSON, nil, None, false, false, "", ""},
		{"form without a model", "POST", Form, nil, None, false, false, "kit.FormBody() needs a body model: a field of P that is a struct", "kit.FormBody() needs a body model: a parameter that is a struct"},
		{"form, decided at call time", "POST", Form, nil, None, true, false, "", ""},
		{"form model", "POST", Form, model, Body, false, true, "", ""},
		{"form list", "POST", Form, list, Body, false, false, "a form body is one data model (a struct) or a map marked body, not []Opts", "a form body is one data model (a struct) or a map marked body, not []Opts"},
		{"form map marked body", "POST", Form, formMap, Body, false, true, "", ""},
		{"multipart map", "POST", Multipart, formMap, Body, false, false, "a multipart body is one data model (a struct), not map[string]any", "a multipart body is one data model (a struct), not map[string]any"},
		{"raw file", "PUT", JSON, file, RawFile, false, false, "", ""},
		{"raw file in multipart", "PUT", Multipart, file, RawFile, false, false, "with kit.Multipart() put it in the body model", "with kit.Multipart() put it in the body model"},
		{"model on GET", "GET", JSON, model, Body, false, false, "tag the field `kit:\",query\"`", "add //kit:query {opts}"},
		{"list on HEAD", "HEAD", JSON, list, Body, false, false, "HEAD requests have no body", "HEAD requests have no body"},
		{"file on GET", "GET", JSON, file, RawFile, false, false, "is a kit.File, the raw request body, and GET requests have no body", "is a kit.File, the raw request body, and GET requests have no body"},
	} {
		for d, want := range map[*Dialect]string{Tags: tt.tags, Directives: tt.dirs} {
			walk, err := d.Body(tt.method, tt.enc, tt.body, tt.r, tt.dynamic)
			if walk != tt.walk || (want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), want) {
				t.Errorf("%s (%s): %v, %v; want walk %v and %q", tt.name, d.noun, walk, err, tt.walk, want)
			}
		}
	}
	if got := Exclusive(Form, Multipart); got != "kit.FormBody() and kit.Multipart() exclude each other" {
		t.Errorf("Exclusive = %q", got)
	}
}

func TestFormField(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		c         Class
		multipart bool
		kind      FormKind
		err       string
	}{
		{"text", Classify(tInt), false, FormText, ""},
		{"bytes", Classify(slice(tByte)), false, FormText, ""},
		{"texts", Classify(slice(tString)), false, FormTextSlice, ""},
		{"any", Classify(tAny), false, FormDynamic, ""},
		{"file in a form", Classify(tFile), false, 0, "field F of M is a kit.File: a form has text fields only; declare the endpoint with kit.Multipart() to upload files"},
		{"file", Classify(tFile), true, FormFile, ""},
		{"files", Classify(slice(tFile)), true, FormFileSlice, ""},
		{"model in a form", Classify(tModel), false, 0, "no text form for a form field; declare the endpoint with kit.Multipart() to send it as a JSON part"},
		{"model", Classify(tModel), true, FormJSON, ""},
		{"chan", Classify(tChan), true, 0, "field F of M: type T has no text form"},
		{"complex", Classify(tComplex), true, 0, "field F of M: type T cannot be sent in a multipart body"},
	} {
		k, err := Tags.FormField("M", "F", "T", tt.c, tt.multipart)
		if k != tt.kind || (tt.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v, %v; want %v, %q", tt.name, k, err, tt.kind, tt.err)
		}
	}
	for _, tt := range []struct {
		exported, embedded bool
		shape              Shape
		tag                string
		name               string
		sent               bool
	}{
		{true, false, BasicShape, "", "F", true},
		{true, false, BasicShape, "f,omitempty", "f", true},
		{true, false, BasicShape, "-", "", false},
		{false, false, BasicShape, "", "", false},
		{true, true, StructShape, "", "", false},
		{true, true, StructShape, "inner", "inner", true},
	} {
		name, _, _, sent := FormMember(tt.exported, tt.embedded, tt.shape, "F", tt.tag)
		if name != tt.name || sent != tt.sent {
			t.Errorf("FormMember(%+v) = %q, %v", tt, name, sent)
		}
	}
}

func TestMember(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		exported, embedded bool
		shape              Shape
		tag                string
		mark               Mark
		routed             bool
		problem            string
	}{
		{true, false, BasicShape, "", Unmarked, true, ""},
		{false, false, BasicShape, "x", Unmarked, false, ""},
		{true, true, StructShape, "", Unmarked, false, ""},
		{true, true, StructShape, ",query", MarkQuery, true, ""},
		{true, true, PointerShape, "", Unmarked, false, "embedded pointers are not supported"},
		{true, false, BasicShape, "-", Unmarked, false, ""},
		{true, false, BasicShape, "X,header", MarkHeader, true, ""},
		{true, false, BasicShape, ",url", MarkURL, true, ""},
		{true, false, BasicShape, "q,bogus", Unmarked, false, `unknown kit tag option "bogus"`},
		{true, false, BasicShape, "q,header,query", Unmarked, false, "exclude each other"},
		{true, false, SequenceShape, "q,csv", Unmarked, true, ""},
		{true, false, SequenceShape, "X-Q,pipes,header", MarkHeader, true, ""},
		{true, false, SequenceShape, "q,csv,ssv", Unmarked, false, "the kit tag options csv and ssv exclude each other"},
		{true, false, SequenceShape, ",body,csv", Unmarked, false, "the kit tag option csv joins a list sent as one query parameter or header; it excludes body and url"},
		{true, false, SequenceShape, ",url,pipes", Unmarked, false, "it excludes body and url"},
	} {
		_, mark, routed, problem := Member(tt.exported, tt.embedded, tt.shape, tt.tag)
		if mark != tt.mark || routed != tt.routed || (tt.problem == "") != (problem == "") || !strings.Contains(problem, tt.problem) {
			t.Errorf("Member(%+v) = %v, %v, %q", tt, mark, routed, problem)
		}
	}
}

func TestResult(t *testing.T) {
	t.Parallel()
	named := func(f fake, name string) *fake { f.name = name; return &f }
	resp := named(fake{shape: PointerShape, elem: &fake{shape: StructShape}, is: []Known{ResponsePointer}}, "*kit.Response")
	body := named(fake{shape: InterfaceShape, hasMethods: true, is: []Known{ReadCloser}}, "io.ReadCloser")
	result := func(t *fake) *fake {
		return named(fake{shape: StructShape, is: []Known{KitResult}, arg: t}, "kit.Result["+t.name+"]")
	}
	stream := func(t *fake) *fake {
		return named(fake{shape: StructShape, is: []Known{KitStream}, arg: t}, "kit.Stream["+t.name+"]")
	}
	pointer := func(t *fake) *fake { return named(fake{shape: PointerShape, elem: t}, "*"+t.name) }
	user := named(*tModel, "User")
	for _, tt := range []struct {
		r           *fake
		kind, inner ResultKind
		err         string
	}{
		{user, ResultTyped, 0, ""},
		{named(*tAny, "any"), ResultRaw, 0, ""},
		{resp, ResultResponse, 0, ""},
		{body, ResultBody, 0, ""},
		{result(user), ResultWrapped, ResultTyped, ""},
		{result(body), ResultWrapped, ResultBody, ""},
		{pointer(stream(user)), ResultRecords, 0, ""},
		{result(pointer(stream(user))), ResultWrapped, ResultRecords, ""},
		{named(*tError, "error"), 0, 0, "result type error is an interface; use a concrete type"},
		{named(*tChan, "chan int"), 0, 0, "result type chan int cannot be decoded from JSON"},
		{named(*tFile, "kit.File"), 0, 0, "result type kit.File: a download is an io.ReadCloser"},
		{result(result(user)), 0, 0, "result type kit.Result[kit.Result[User]]: a Result of a Result"},
		{stream(user), 0, 0, "result type kit.Stream[User]: a Stream result is a pointer, *kit.Stream[T]"},
		{pointer(stream(body)), 0, 0, "result type *kit.Stream[io.ReadCloser]: a record is a JSON value decoded into T, and T cannot be io.ReadCloser"},
		{result(pointer(stream(resp))), 0, 0, "T cannot be *kit.Response"},
		{pointer(stream(named(*tChan, "chan int"))), 0, 0, "result type *kit.Stream[chan int]: result type chan int cannot be decoded"},
	} {
		kind, inner, err := Result(tt.r)
		if kind != tt.kind || inner != tt.inner || (tt.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Result(%s) = %v, %v, %v; want %v, %v, %q", tt.r.name, kind, inner, err, tt.kind, tt.inner, tt.err)
		}
	}
}

// TestNestedFormTexts: the reasons a nested form value cannot be written
// are one text on both sides, with each side's remedy.
func TestNestedFormTexts(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Tags.NestedFormFile("main.Doc"), "type main.Doc holds a kit.File: a form has text fields only; declare the endpoint with kit.Multipart() to upload files"},
		{Directives.NestedFormFile("Doc"), "type Doc holds a kit.File: a form has text fields only; add //kit:option kit.Multipart() to upload files"},
		{FormMapKey("map[int]string", "int"), "type map[int]string: a map's keys are written as form keys, and its key type int is not a string kind"},
		{FormKeyProblem("items[0]"), `the name "items[0]" holds a bracket, which a form key cannot`},
		{FormKeyProblem("items"), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q\nwant %q", c.got, c.want)
		}
	}
}

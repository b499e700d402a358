package kit_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// chargeItem and chargeForm are a Stripe-like charge, sent as a nested
// form to kittest's POST /charges.
type chargeItem struct {
	Price    string `json:"price"`
	Quantity int    `json:"quantity,omitempty"`
}

type chargeForm struct {
	Amount   int               `json:"amount" validate:"gt=0"`
	Currency string            `json:"currency"`
	Metadata map[string]string `json:"metadata,omitempty"`
	Expand   []string          `json:"expand,omitempty"`
	Items    []chargeItem      `json:"items,omitempty"`
}

type charge struct {
	Object   string            `json:"object"`
	Amount   int               `json:"amount"`
	Currency string            `json:"currency"`
	Metadata map[string]string `json:"metadata"`
	Expand   []string          `json:"expand"`
	Items    []chargeItem      `json:"items"`
}

var createCharge = kit.Post[struct{ Body chargeForm }, charge]("/charges", kit.FormBody(kit.FormIndexed))

// TestNestedFormStripe sends a Stripe-like charge to kittest, which checks
// every nested key, sync and async.
func TestNestedFormStripe(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(kittest.NewAPI().ServeHTTP)
			_, b := tw.setup(t, rec)
			in := chargeForm{
				Amount: 2000, Currency: "eur",
				Metadata: map[string]string{"order_id": "6735"},
				Expand:   []string{"customer", "invoice"},
				Items:    []chargeItem{{Price: "price_1", Quantity: 2}, {Price: "price_2"}},
			}
			got, err := twinCall(t.Context(), tw, createCharge, b, struct{ Body chargeForm }{in})
			if err != nil {
				t.Fatal(err)
			}
			if got.Amount != 2000 || got.Metadata["order_id"] != "6735" || strings.Join(got.Expand, ",") != "customer,invoice" ||
				len(got.Items) != 2 || got.Items[0] != (chargeItem{"price_1", 2}) || got.Items[1] != (chargeItem{"price_2", 0}) {
				t.Errorf("charge %+v", got)
			}
			body := string(rec.only(t).Body)
			want := "amount=2000&currency=eur&expand%5B0%5D=customer&expand%5B1%5D=invoice&items%5B0%5D%5Bprice%5D=price_1&items%5B0%5D%5Bquantity%5D=2&items%5B1%5D%5Bprice%5D=price_2&metadata%5Border_id%5D=6735"
			if body != want {
				t.Errorf("body\n%s\nwant\n%s", body, want)
			}
		})
	}
}

// TestNestedFormStyles writes the same model in the three styles, nested
// scalars slices included, and checks what a server parses.
func TestNestedFormStyles(t *testing.T) {
	t.Parallel()
	type leaf struct {
		Tags []string `json:"tags"`
	}
	type model struct {
		Tags  []string          `json:"tags"`
		Deep  map[string]leaf   `json:"deep"`
		Rows  []map[string]any  `json:"rows"`
		Grid  [][]int           `json:"grid"`
		Any   any               `json:"any"`
		Empty map[string]string `json:"empty"`
		Nil   *leaf             `json:"nil"`
	}
	m := model{
		Tags: []string{"a", "b"},
		Deep: map[string]leaf{"x": {Tags: []string{"c"}}},
		Rows: []map[string]any{{"n": 1, "ok": true}},
		Grid: [][]int{{1, 2}},
		Any:  map[string]any{"k": []any{"v", 2.5}},
	}
	tests := []struct {
		style kit.FormStyle
		want  string
	}{
		{kit.FormRepeat, "any[k]=v&any[k]=2.5&deep[x][tags]=c&grid[0]=1&grid[0]=2&rows[0][n]=1&rows[0][ok]=true&tags=a&tags=b"},
		{kit.FormBrackets, "any[k][]=v&any[k][]=2.5&deep[x][tags][]=c&grid[0][]=1&grid[0][]=2&rows[0][n]=1&rows[0][ok]=true&tags[]=a&tags[]=b"},
		{kit.FormIndexed, "any[k][0]=v&any[k][1]=2.5&deep[x][tags][0]=c&grid[0][0]=1&grid[0][1]=2&rows[0][n]=1&rows[0][ok]=true&tags[0]=a&tags[1]=b"},
	}
	for _, tt := range tests {
		t.Run(tt.style.String(), func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(nil)
			_, c := setup(t, rec)
			ep := kit.Post[struct{ Body model }, any]("/f", kit.FormBody(tt.style))
			if _, err := ep.Call(t.Context(), c, struct{ Body model }{m}); err != nil {
				t.Fatal(err)
			}
			r := rec.only(t)
			got, err := url.QueryUnescape(string(r.Body))
			if err != nil || got != tt.want {
				t.Errorf("body\n%s\nwant\n%s", got, tt.want)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

// formNode is a tree: a recursive type is fine, a value that contains
// itself is not.
type formNode struct {
	Name     string      `json:"name"`
	Children []*formNode `json:"children,omitempty"`
	Next     *formNode   `json:"next,omitempty"`
}

// TestNestedFormBadValues: values no form can express fail before
// anything is sent, with errors that say where, and never panic.
func TestNestedFormBadValues(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	tree := kit.Post[struct{ Body formNode }, any]("/tree", kit.FormBody(kit.FormIndexed))
	ok := formNode{Name: "root", Children: []*formNode{{Name: "a"}, {Name: "b", Next: &formNode{Name: "c"}}}}
	if _, err := tree.Call(t.Context(), c, struct{ Body formNode }{ok}); err != nil {
		t.Fatal(err)
	}
	if got, _ := url.QueryUnescape(string(rec.only(t).Body)); got != "children[0][name]=a&children[1][name]=b&children[1][next][name]=c&name=root" {
		t.Errorf("tree body %s", got)
	}
	loop := &formNode{Name: "loop"}
	loop.Next = loop
	cyclic := formNode{Name: "root", Children: []*formNode{loop}}
	_, err := tree.Call(t.Context(), c, struct{ Body formNode }{cyclic})
	if err == nil || !strings.Contains(err.Error(), `encoding the form body: field Children: key "children[0][next]": the value contains itself (a cycle)`) {
		t.Errorf("cycle: %v", err)
	}
	selfMap := map[string]any{}
	selfMap["me"] = selfMap
	anyEP := kit.Post[struct {
		Body struct {
			M any `json:"m"`
		}
	}, any]("/any", kit.FormBody())
	bad := []struct {
		name string
		val  any
		want string
	}{
		{"map contains itself", selfMap, `key "m[me]": the value contains itself`},
		{"int keys", map[int]string{1: "x"}, `key "m": type map[int]string: a map's keys are written as form keys`},
		{"bracket in a key", map[string]string{"a]b": "x"}, `key "m": map key "a]b" cannot be written in a bracketed form key`},
		{"empty key", map[string]string{"": "x"}, `map key "" cannot be written`},
		{"a func", func() {}, "has no text form"},
		{"NaN", []float64{1, nanValue()}, `key "m": cannot send NaN`},
	}
	for _, tt := range bad {
		p := anyEP
		var params struct {
			Body struct {
				M any `json:"m"`
			}
		}
		params.Body.M = tt.val
		_, err := p.Call(t.Context(), c, params)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "kit: POST /any: encoding the form body: ") {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if n := len(rec.requests()); n != 1 {
		t.Errorf("%d requests, want only the good one", n)
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

// TestDeepObjectQuery sends map-valued query entries as k[key]=v
// (OpenAPI's deepObject), from a P map, a map field and a resource query.
func TestDeepObjectQuery(t *testing.T) {
	t.Parallel()
	rec := newRecorder(replyJSON(http.StatusOK, `[]`))
	_, c := setup(t, rec)
	type listCharges struct {
		Limit  int
		Filter map[string]map[string]int64
	}
	ep := kit.Get[listCharges, any]("/charges")
	if _, err := ep.Call(t.Context(), c, listCharges{Limit: 3, Filter: map[string]map[string]int64{"created": {"gte": 1700000000, "lt": 1800000000}}}); err != nil {
		t.Fatal(err)
	}
	dyn := kit.Get[map[string]any, any]("/charges")
	if _, err := dyn.Call(t.Context(), c, map[string]any{"created": map[string]any{"gte": 5, "in": []string{"a", "b"}}, "limit": 1}); err != nil {
		t.Fatal(err)
	}
	r := kit.NewResource[apiUser](c, "/users")
	if _, err := r.List(t.Context(), map[string]any{"filter": map[string]string{"team": "2"}}); err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests()
	want := []string{
		"created[gte]=1700000000&created[lt]=1800000000&limit=3",
		"created[gte]=5&created[in]=a&created[in]=b&limit=1",
		"filter[team]=2",
	}
	for i, r := range reqs {
		if got, _ := url.QueryUnescape(r.URL.RawQuery); got != want[i] {
			t.Errorf("request %d query %s, want %s", i, got, want[i])
		}
	}
	var de *kit.DeclarationError
	_, err := kit.NewEndpoint[struct{ F map[string]map[int]string }, any]("GET", "/x")
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "keys must be strings") {
		t.Errorf("map of int-keyed maps: %v", err)
	}
}

// TestJSONOmitOnParameters: the json tag's omitempty and omitzero leave
// zero query, header and form fields out.
func TestJSONOmitOnParameters(t *testing.T) {
	t.Parallel()
	type form struct {
		Name  string    `json:"name,omitempty"`
		Count int       `json:"count,omitzero"`
		Since time.Time `json:"since,omitzero"`
		Keep  int       `json:"keep"`
	}
	type params struct {
		Q     string    `json:",omitempty"`
		Limit int       `json:",omitzero"`
		Since time.Time `json:",omitzero"`
		Sent  int
		Trace string `kit:"X-Trace,header" json:",omitempty"`
		Body  form
	}
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	ep := kit.Post[params, any]("/x", kit.FormBody())
	if _, err := ep.Call(t.Context(), c, params{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ep.Call(t.Context(), c, params{Q: "go", Limit: 5, Trace: "t", Body: form{Name: "n", Count: 1}}); err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests()
	if q, b := reqs[0].URL.RawQuery, string(reqs[0].Body); q != "sent=0" || b != "keep=0" || reqs[0].Header.Get("X-Trace") != "" {
		t.Errorf("zero values: query %q body %q trace %q", q, b, reqs[0].Header.Get("X-Trace"))
	}
	if q, b := reqs[1].URL.RawQuery, string(reqs[1].Body); q != "limit=5&q=go&sent=0" || b != "count=1&keep=0&name=n" || reqs[1].Header.Get("X-Trace") != "t" {
		t.Errorf("values: query %q body %q", q, b)
	}
}

// amountOrRange is a union as kitgen writes one: it holds one variant
// and its JSON is that variant's.
type amountOrRange struct {
	amount *int64
	span   *amountSpan
}

type amountSpan struct {
	GTE int64 `json:"gte,omitempty"`
	LT  int64 `json:"lt,omitempty"`
}

func (u amountOrRange) MarshalJSON() ([]byte, error) {
	switch {
	case u.amount != nil:
		return json.Marshal(*u.amount)
	case u.span != nil:
		return json.Marshal(u.span)
	}
	return []byte("null"), nil
}

// TestStripeShapes: unions, lists of objects and maps of objects are
// written in deepObject queries and bracket forms as Rails, PHP and Stripe
// read them: a[0][b]=x, a[k][b]=x, a union as the variant it holds.
func TestStripeShapes(t *testing.T) {
	t.Parallel()
	rec := newRecorder(replyJSON(http.StatusOK, `{}`))
	_, c := setup(t, rec)
	type line struct {
		Price    string `json:"price"`
		Quantity int    `json:"quantity,omitempty"`
	}
	type query struct {
		Created  amountOrRange   `kit:"created,query"`
		Items    []line          `kit:"items,query"`
		Tiers    []amountOrRange `kit:"tiers,query"`
		Metadata map[string]line `kit:"meta,query"`
	}
	get := kit.Get[query, any]("/invoices")
	five := int64(5)
	calls := []query{
		{Created: amountOrRange{amount: &five}},
		{Created: amountOrRange{span: &amountSpan{GTE: 1, LT: 9}}, Items: []line{{Price: "p1", Quantity: 2}, {Price: "p2"}}},
		{Tiers: []amountOrRange{{amount: &five}, {span: &amountSpan{LT: 3}}, {}}, Metadata: map[string]line{"a": {Price: "x"}}},
		{}, // an unset union and empty lists send nothing
	}
	for _, q := range calls {
		if _, err := get.Call(t.Context(), c, q); err != nil {
			t.Fatal(err)
		}
	}
	type form struct {
		Name    string            `json:"name"`
		Amount  amountOrRange     `json:"amount"`
		Items   []line            `json:"items"`
		ByName  map[string]line   `json:"by_name"`
		Options *amountOrRange    `json:"options,omitempty"`
		Extra   map[string]any    `json:"extra,omitempty"`
		Dyn     any               `json:"dyn,omitempty"`
		Tags    map[string]string `json:"tags,omitempty"`
	}
	post := kit.Post[struct{ Body form }, any]("/invoices", kit.FormBody(kit.FormIndexed))
	f := form{
		Name: "n", Amount: amountOrRange{span: &amountSpan{GTE: 4}},
		Items:  []line{{Price: "p1", Quantity: 1}},
		ByName: map[string]line{"k": {Price: "p3"}},
		Extra:  map[string]any{"u": amountOrRange{amount: &five}},
		Dyn:    amountOrRange{span: &amountSpan{LT: 7}},
	}
	if _, err := post.Call(t.Context(), c, struct{ Body form }{f}); err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests()
	want := []string{
		"created=5",
		"created[gte]=1&created[lt]=9&items[0][price]=p1&items[0][quantity]=2&items[1][price]=p2",
		"meta[a][price]=x&tiers[0]=5&tiers[1][lt]=3",
		"",
	}
	for i, w := range want {
		if got, _ := url.QueryUnescape(reqs[i].URL.RawQuery); got != w {
			t.Errorf("query %d: %s, want %s", i, got, w)
		}
	}
	got, _ := url.QueryUnescape(string(reqs[4].Body))
	if w := "amount[gte]=4&by_name[k][price]=p3&dyn[lt]=7&extra[u]=5&items[0][price]=p1&items[0][quantity]=1&name=n"; got != w {
		t.Errorf("form %s\nwant %s", got, w)
	}

	// A list of objects still has no place but brackets under a name.
	var de *kit.DeclarationError
	type unnamed struct {
		Items []line `kit:",query"`
	}
	if _, err := kit.NewEndpoint[unnamed, any]("GET", "/x"); !errors.As(err, &de) {
		t.Errorf("a list of objects spread into the query without a name: %v, want a *DeclarationError", err)
	}
	type unmarked struct{ Items []line }
	if _, err := kit.NewEndpoint[unmarked, any]("GET", "/x"); !errors.As(err, &de) {
		t.Errorf("a list of objects on a GET, unmarked: %v, want a *DeclarationError", err)
	}
}

// ownJSONModel is a form body model with a JSON form of its own: as a
// body model its fields are still the form's fields.
type ownJSONModel struct {
	Name string `json:"name"`
}

func (m ownJSONModel) MarshalJSON() ([]byte, error) { return []byte(`"ignored"`), nil }

// brokenJSON's JSON cannot be written.
type brokenJSON struct{}

func (brokenJSON) MarshalJSON() ([]byte, error) { return nil, errors.New("no JSON today") }

func TestFormOwnJSONEdges(t *testing.T) {
	t.Parallel()
	rec := newRecorder(replyJSON(http.StatusOK, `{}`))
	_, c := setup(t, rec)
	type ownBody struct{ Body ownJSONModel }
	if _, err := kit.Post[ownBody, any]("/x", kit.FormBody()).Call(t.Context(), c, ownBody{ownJSONModel{Name: "a"}}); err != nil {
		t.Fatal(err)
	}
	if got := string(rec.requests()[0].Body); got != "name=a" {
		t.Errorf("a body model with its own JSON: %s, want its fields", got)
	}
	type withBroken struct {
		B brokenJSON `json:"b"`
	}
	type brokenBody struct{ Body withBroken }
	_, err := kit.Post[brokenBody, any]("/x", kit.FormBody()).Call(t.Context(), c, brokenBody{})
	if err == nil || !strings.Contains(err.Error(), `key "b"`) || !strings.Contains(err.Error(), "no JSON today") {
		t.Errorf("a value whose JSON fails: %v, want the key and the cause", err)
	}
	if n := len(rec.requests()); n != 1 {
		t.Errorf("%d requests sent, want 1 (nothing sent when the form cannot be written)", n)
	}
}

package kit

import (
	"math"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit/internal/routing"
)

func TestFormatFloatShortestRoundTrip(t *testing.T) {
	t.Parallel()
	tenth := 0.1 // a variable: constant 0.1 + 0.2 would be exactly 0.3
	tests := []struct {
		f    float64
		bits int
		want string
	}{
		{0, 64, "0"},
		{math.Copysign(0, -1), 64, "-0"},
		{0.1, 64, "0.1"},
		{tenth + 0.2, 64, "0.30000000000000004"},
		{1.5, 64, "1.5"},
		{-2, 64, "-2"},
		{1e6, 64, "1000000"},
		{1e20, 64, "100000000000000000000"},
		{1e21, 64, "1e+21"},
		{123456789e13, 64, "1.23456789e+21"},
		{0.000001, 64, "0.000001"},
		{1e-7, 64, "1e-07"},
		{math.SmallestNonzeroFloat64, 64, "5e-324"},
		{math.MaxFloat64, 64, "1.7976931348623157e+308"},
		{float64(float32(0.1)), 32, "0.1"},
		{float64(float32(3.4e38)), 32, "3.4e+38"},
		{float64(float32(16777217)), 32, "16777216"},
	}
	for _, tt := range tests {
		got, ok, err := formatFloat(tt.f, tt.bits)
		if err != nil || !ok || got != tt.want {
			t.Errorf("formatFloat(%v, %d) = %q, %v, %v; want %q", tt.f, tt.bits, got, ok, err, tt.want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, _, err := formatFloat(f, 64); err == nil {
			t.Errorf("formatFloat(%v) = %q, want an error", f, got)
		}
	}
}

type (
	wbModel    struct{ A int }
	wbText     struct{ A int }
	wbPtrText  struct{ A int }
	wbStringer struct{ A int }
	wbLevel    int
)

func (wbText) MarshalText() ([]byte, error)     { return []byte("t"), nil }
func (*wbPtrText) MarshalText() ([]byte, error) { return []byte("pt"), nil }
func (wbStringer) String() string               { return "s" }
func (wbLevel) String() string                  { return "lvl" }

func TestClassifyByType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ  reflect.Type
		want routing.Kind
	}{
		{reflect.TypeFor[string](), routing.Scalar},
		{reflect.TypeFor[int](), routing.Scalar},
		{reflect.TypeFor[*int](), routing.Scalar},
		{reflect.TypeFor[**int](), routing.Scalar},
		{reflect.TypeFor[[]byte](), routing.Bytes},
		{reflect.TypeFor[time.Time](), routing.Scalar},
		{reflect.TypeFor[*time.Time](), routing.Scalar},
		{reflect.TypeFor[time.Duration](), routing.Scalar},
		{reflect.TypeFor[wbText](), routing.Scalar},
		{reflect.TypeFor[wbPtrText](), routing.Scalar},
		{reflect.TypeFor[*wbPtrText](), routing.Scalar},
		{reflect.TypeFor[wbLevel](), routing.Scalar},
		{reflect.TypeFor[wbModel](), routing.Model},
		{reflect.TypeFor[*wbModel](), routing.Model},
		{reflect.TypeFor[wbStringer](), routing.Model},
		{reflect.TypeFor[*wbStringer](), routing.Model},
		{reflect.TypeFor[url.URL](), routing.Model},
		{reflect.TypeFor[[]wbModel](), routing.ModelSlice},
		{reflect.TypeFor[[]*wbModel](), routing.ModelSlice},
		{reflect.TypeFor[[3]wbModel](), routing.ModelSlice},
		{reflect.TypeFor[[]wbStringer](), routing.ModelSlice},
		{reflect.TypeFor[[]string](), routing.Slice},
		{reflect.TypeFor[[]time.Time](), routing.Slice},
		{reflect.TypeFor[[]wbText](), routing.Slice},
		{reflect.TypeFor[[]any](), routing.Slice},
		{reflect.TypeFor[map[string]string](), routing.Map},
		{reflect.TypeFor[url.Values](), routing.Map},
		{reflect.TypeFor[map[string]any](), routing.Map},
		{reflect.TypeFor[map[wbLevel]int](), routing.Map},
		{reflect.TypeFor[any](), routing.Interface},
		{reflect.TypeFor[chan int](), routing.Invalid},
		{reflect.TypeFor[func()](), routing.Invalid},
		{reflect.TypeFor[map[string]wbModel](), routing.Invalid},
		{reflect.TypeFor[map[wbModel]string](), routing.Invalid},
		{reflect.TypeFor[[][]string](), routing.Invalid},
		{reflect.TypeFor[**wbModel](), routing.Invalid},
		{reflect.TypeFor[complex128](), routing.Invalid},
	}
	for _, tt := range tests {
		if got := classify(tt.typ).Kind; got != tt.want {
			t.Errorf("classify(%s) = %d, want %d", tt.typ, got, tt.want)
		}
	}
}

func TestParamPlanRoutes(t *testing.T) {
	t.Parallel()
	type embedded struct{ Page int }
	type P struct {
		embedded
		ID      int
		Body    *wbModel
		Filter  map[string]string
		Any     any
		Tags    []string
		Trace   string `kit:"X-Trace,header"`
		Skip    string `kit:"-"`
		PerPage int    `kit:",omitempty"`
		Named   string `kit:"n"`
		//lint:ignore U1000 an unexported field, which routing must skip
		hidden int
	}
	pl, err := newParamPlan(reflect.TypeFor[P](), []string{"id"})
	if err != nil {
		t.Fatal(err)
	}
	type route1 struct {
		name      string
		route     routing.Route
		omitEmpty bool
	}
	want := map[string]route1{
		"Page":    {"page", routing.Query, false},
		"ID":      {"id", routing.Path, false},
		"Body":    {"body", routing.Body, false},
		"Filter":  {"filter", routing.QueryMap, false},
		"Any":     {"any", routing.Dynamic, false},
		"Tags":    {"tags", routing.Query, false},
		"Trace":   {"X-Trace", routing.Header, false},
		"PerPage": {"per_page", routing.Query, true},
		"Named":   {"n", routing.Query, false},
	}
	got := map[string]route1{}
	for _, f := range pl.fields {
		got[f.goName] = route1{f.name, f.route, f.omitEmpty}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan = %+v\nwant   %+v", got, want)
	}
	if pl.body < 0 || pl.fields[pl.body].goName != "Body" {
		t.Errorf("body field = %d, want Body", pl.body)
	}
}

func TestInterfacePlaceholderIsRoutedByValue(t *testing.T) {
	t.Parallel()
	// Regression: an interface-typed field filling a placeholder used the
	// interface's (nil) formatter at call time and panicked.
	pl, err := newParamPlan(reflect.TypeFor[struct{ ID any }](), []string{"id"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id      any
		want    string
		wantErr string
	}{
		{7, "7", ""},
		{"a/b", "a/b", ""},
		{wbLevel(1), "lvl", ""},
		{wbModel{}, "", "no single text form"},
		{nil, "", ""},
	} {
		r := routed{names: []string{"id"}, vals: make([]string, 1), filled: make([]bool, 1)}
		v := reflect.ValueOf(&struct{ ID any }{tt.id}).Elem()
		err := pl.apply(v, &r)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ID %#v: err = %v, want %q", tt.id, err, tt.wantErr)
			}
			continue
		}
		if err != nil || r.vals[0] != tt.want || r.filled[0] != (tt.id != nil) {
			t.Errorf("ID %#v: %q (filled %v), %v; want %q", tt.id, r.vals[0], r.filled[0], err, tt.want)
		}
	}
}

func TestFormatForPathOfURLValues(t *testing.T) {
	t.Parallel()
	c := classify(reflect.TypeFor[url.Values]()).mapValue
	tests := []struct {
		vals    []string
		want    string
		wantErr bool
	}{
		{[]string{"7"}, "7", false},
		{[]string{""}, "", false},
		{nil, "", true},
		{[]string{"1", "2"}, "", true},
	}
	for _, tt := range tests {
		got, _, err := formatForPath(reflect.ValueOf(tt.vals), c)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("formatForPath(%q) = %q, %v; want %q, error %v", tt.vals, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestQueryFromNeverMutatesCallerQuery(t *testing.T) {
	t.Parallel()
	in := url.Values{"a": {"1"}}
	out, err := queryFrom(in)
	if err != nil {
		t.Fatal(err)
	}
	out.Add("a", "2")
	out.Set("b", "3")
	if !reflect.DeepEqual(in, url.Values{"a": {"1"}}) {
		t.Errorf("caller's query became %v", in)
	}
	type Q struct {
		State string
		Tags  []string
		Skip  *int
	}
	got, err := queryFrom(&Q{State: "open", Tags: []string{"x", "y"}})
	if err != nil || got.Encode() != "state=open&tags=x&tags=y" {
		t.Errorf("queryFrom(struct) = %v, %v", got, err)
	}
	if _, err := queryFrom(struct{ Body wbModel }{}); err == nil {
		t.Error("queryFrom with a body field: want an error")
	}
	if _, err := queryFrom(42); err == nil {
		t.Error("queryFrom(42): want an error")
	}
}

// BenchmarkApplyDynamic routes, per call, fields whose place is decided by
// the value they hold: the routing table is asked at each call, and must
// not allocate for it (compare allocs/op with a plan of static fields).
func BenchmarkApplyDynamic(b *testing.B) {
	type P struct {
		ID   any
		Q    any
		Tags []any
	}
	pl, err := newParamPlan(reflect.TypeFor[P](), []string{"id"})
	if err != nil {
		b.Fatal(err)
	}
	v := reflect.ValueOf(P{ID: 7, Q: "go", Tags: []any{"a", 2}})
	b.ReportAllocs()
	for b.Loop() {
		r := routed{names: []string{"id"}, vals: make([]string, 1), filled: make([]bool, 1)}
		if err := pl.apply(v, &r); err != nil {
			b.Fatal(err)
		}
	}
}

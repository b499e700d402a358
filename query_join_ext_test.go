package kit_test

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// joinOrder is a named string type, as kitgen's string enums are.
type joinOrder string

// joinLevel formats itself with MarshalText.
type joinLevel int

func (l joinLevel) MarshalText() ([]byte, error) { return []byte([]string{"low", "high"}[l]), nil }

// joinSelect is a list type written as kitgen openapi writes one: an alias
// of a plain slice.
type joinSelect = []joinOrder

// joinSent sends p to a recording server with a GET declared for P and
// returns the raw query the server saw and its header X-List.
func joinSent[P any](t *testing.T, p P) (raw string, header []string) {
	t.Helper()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	if _, err := kit.Get[P, any]("/q").Call(t.Context(), c, p); err != nil {
		t.Fatal(err)
	}
	r := rec.only(t)
	return r.URL.RawQuery, r.Header.Values("X-List")
}

// TestJoinedList sends slices and arrays tagged csv, ssv and pipes as one
// query parameter (or header), each element formatted as a query value
// is, and the whole value escaped as one: a delimiter, &, =, a space or
// any rune inside an element arrives as it was sent.
func TestJoinedList(t *testing.T) {
	t.Parallel()
	one, three := 1, 3
	at := time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name   string
		send   func(t *testing.T) (string, []string)
		raw    string // the query on the wire
		header []string
	}{
		{"csv", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				Select []string `kit:"$select,csv"`
			}{[]string{"id", "name"}})
		}, "%24select=id%2Cname", nil},
		{"ssv", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				Q []string `kit:"q,ssv"`
			}{[]string{"a", "b", "c"}})
		}, "q=a+b+c", nil},
		{"pipes", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				Q []string `kit:"q,pipes"`
			}{[]string{"a", "b"}})
		}, "q=a%7Cb", nil},
		{"escaped as one value", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				Q []string `kit:"q,csv"`
			}{[]string{"x&y=z", "sp ace", "héllo ☃", "50%", "a+b"}})
		}, "q=x%26y%3Dz%2Csp+ace%2Ch%C3%A9llo+%E2%98%83%2C50%25%2Ca%2Bb", nil},
		{"a delimiter inside an element is sent as it is", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				Expand []string `kit:"$expand,csv"`
				Words  []string `kit:"words,ssv"`
				Alt    []string `kit:"alt,pipes"`
			}{[]string{"members($select=id,name)", "owner"}, []string{"two words", "x"}, []string{"a|b", "c"}})
		}, "%24expand=members%28%24select%3Did%2Cname%29%2Cowner&alt=a%7Cb%7Cc&words=two+words+x", nil},
		{"numbers and bools", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				IDs   []int64   `kit:"ids,csv"`
				U     []uint8x  `kit:"u,csv"`
				F     []float64 `kit:"f,pipes"`
				Flags []bool    `kit:"flags,ssv"`
			}{[]int64{3, -4, 5}, []uint8x{7}, []float64{1.5, 2, 1e21}, []bool{true, false}})
		}, "f=1.5%7C2%7C1e%2B21&flags=true+false&ids=3%2C-4%2C5&u=7", nil},
		{"named strings, text marshalers, times", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				Order joinSelect  `kit:"order,csv"`
				Level []joinLevel `kit:"level,csv"`
				At    []time.Time `kit:"at,csv"`
			}{joinSelect{"asc", "desc"}, []joinLevel{1, 0}, []time.Time{at, at.Add(time.Second)}})
		}, "at=2026-11-28T17%3A00%3A00Z%2C2026-11-28T17%3A00%3A01Z&level=high%2Clow&order=asc%2Cdesc", nil},
		{"nil elements are left out; any holds its own", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				P []*int `kit:"p,csv"`
				A []any  `kit:"a,csv"`
			}{[]*int{&one, nil, &three}, []any{1, nil, "x", true}})
		}, "a=1%2Cx%2Ctrue&p=1%2C3", nil},
		{"an array; a list of one; an empty element", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				Arr   [2]string `kit:"arr,csv"`
				One   []string  `kit:"one,csv"`
				Empty []string  `kit:"empty,csv"`
			}{[2]string{"a", "b"}, []string{"id"}, []string{""}})
		}, "arr=a%2Cb&empty=&one=id", nil},
		{"nil, empty and all-nil lists send nothing", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				Nil    []string `kit:"nil,csv"`
				Empty  []string `kit:"empty,csv,omitempty"`
				Empty2 []string `kit:"empty2,ssv"`
				Nils   []*int   `kit:"nils,pipes"`
				H      []string `kit:"X-List,csv,header"`
				Keep   int      `kit:"keep"`
			}{nil, []string{}, []string{}, []*int{nil}, []string{}, 0})
		}, "keep=0", nil},
		{"beside repeated lists and other parameters", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				Tags   []string `kit:"tags"`
				Select []string `kit:"select,csv"`
				Limit  int      `kit:"limit"`
			}{[]string{"a", "b"}, []string{"id", "name"}, 5})
		}, "limit=5&select=id%2Cname&tags=a&tags=b", nil},
		{"a header is one line", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				H []int `kit:"X-List,csv,header"`
			}{[]int{1, 2, 3}})
		}, "", []string{"1,2,3"}},
		{"a header joined with pipes beside a repeated one", func(t *testing.T) (string, []string) {
			return joinSent(t, struct {
				H []string `kit:"X-List,pipes,header"`
			}{[]string{"a b", "c"}})
		}, "", []string{"a b|c"}},
		{"in a spread struct", func(t *testing.T) (string, []string) {
			type opts struct {
				Fields []string `kit:"fields,csv"`
			}
			return joinSent(t, struct {
				O  opts `kit:",query"`
				ID int  `kit:"id"`
			}{opts{[]string{"a", "b"}}, 1})
		}, "fields=a%2Cb&id=1", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw, header := tt.send(t)
			if raw != tt.raw {
				t.Errorf("query %s, want %s", raw, tt.raw)
			}
			if !slices.Equal(header, tt.header) {
				t.Errorf("X-List %q, want %q", header, tt.header)
			}
		})
	}
}

// uint8x is an unsigned integer that is not a byte ([]uint8 is bytes).
type uint8x uint16

// TestJoinedListServerReads checks what a server reads: one value per
// joined list, which it splits at the delimiter itself.
func TestJoinedListServerReads(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	type params struct {
		Select []string `kit:"$select,csv"`
		Search []string `kit:"search,ssv"`
		Path   []string `kit:"path,pipes"`
	}
	_, err := kit.Get[params, any]("/users").Call(t.Context(), c, params{
		Select: []string{"id", "displayName"},
		Search: []string{"ann", "O'Hara & co"},
		Path:   []string{"a=b", "ü"},
	})
	if err != nil {
		t.Fatal(err)
	}
	q := rec.only(t).URL.Query()
	want := url.Values{"$select": {"id,displayName"}, "search": {"ann O'Hara & co"}, "path": {"a=b|ü"}}
	for k, vs := range want {
		if !slices.Equal(q[k], vs) {
			t.Errorf("server reads %s = %q, want %q", k, q[k], vs)
		}
	}
	if len(q) != len(want) {
		t.Errorf("server reads %v", q)
	}
}

// TestJoinedListResourceQuery sends a joined list in a resource's query,
// which is routed by the same rules (and cached per type).
func TestJoinedListResourceQuery(t *testing.T) {
	t.Parallel()
	rec := newRecorder(replyJSON(http.StatusOK, `[]`))
	_, c := setup(t, rec)
	type query struct {
		IDs []int `kit:"ids,csv"`
	}
	users := kit.NewResource[apiUser](c, "/users")
	for range 2 {
		if _, err := users.List(t.Context(), query{IDs: []int{3, 5}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range rec.requests() {
		if r.URL.RawQuery != "ids=3%2C5" {
			t.Errorf("query %s", r.URL.RawQuery)
		}
	}
	_, err := users.List(t.Context(), struct {
		ID int `kit:"id,csv"`
	}{1})
	if err == nil || !strings.Contains(err.Error(), "field ID (int) cannot be joined into one value (csv)") {
		t.Errorf("a joined int in a resource query: %v", err)
	}
}

// TestJoinedListRefused: a list option where no list is sent as one value,
// or beside an option it contradicts, is a *DeclarationError; an element
// with no text is an error before anything is sent.
func TestJoinedListRefused(t *testing.T) {
	t.Parallel()
	decl := []struct {
		name string
		f    func() error
		want string
	}{
		{"on an int", func() error {
			_, err := kit.NewEndpoint[struct {
				N int `kit:"n,csv"`
			}, any]("GET", "/x")
			return err
		}, "field N (int) cannot be joined into one value (csv): csv is for a slice or array of text sent as a query parameter or header"},
		{"on a string header", func() error {
			_, err := kit.NewEndpoint[struct {
				H string `kit:"X-H,ssv,header"`
			}, any]("GET", "/x")
			return err
		}, "field H (string) cannot be joined into one value (ssv)"},
		{"on bytes", func() error {
			_, err := kit.NewEndpoint[struct {
				B []byte `kit:"X-B,csv,header"`
			}, any]("GET", "/x")
			return err
		}, "field B ([]uint8) cannot be joined into one value (csv)"},
		{"on a map", func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]string `kit:"m,pipes"`
			}, any]("GET", "/x")
			return err
		}, "field M (map[string]string) cannot be joined into one value (pipes)"},
		{"on an interface", func() error {
			_, err := kit.NewEndpoint[struct {
				A any `kit:"a,csv"`
			}, any]("GET", "/x")
			return err
		}, "field A (interface {}) cannot be joined into one value (csv)"},
		{"on a list with a text form of its own", func() error {
			_, err := kit.NewEndpoint[struct {
				L joinTextList `kit:"l,csv"`
			}, any]("GET", "/x")
			return err
		}, "field L (kit_test.joinTextList) cannot be joined into one value (csv)"},
		{"on a query object", func() error {
			_, err := kit.NewEndpoint[struct {
				F []auditRange `kit:"f,query,csv"`
			}, any]("GET", "/x")
			return err
		}, "field F ([]kit_test.auditRange) cannot be joined into one value (csv)"},
		{"on a body", func() error {
			_, err := kit.NewEndpoint[struct {
				B []string `kit:",body,csv"`
			}, any]("POST", "/x")
			return err
		}, "field B: the kit tag option csv joins a list sent as one query parameter or header; it excludes body and url"},
		{"two delimiters", func() error {
			_, err := kit.NewEndpoint[struct {
				L []string `kit:"l,csv,pipes"`
			}, any]("GET", "/x")
			return err
		}, "field L: the kit tag options csv and pipes exclude each other"},
		{"filling a placeholder", func() error {
			_, err := kit.NewEndpoint[struct {
				IDs []int `kit:"ids,csv"`
			}, any]("GET", "/x/{ids}")
			return err
		}, "field IDs ([]int) fills {ids} but has no single text form"},
		{"tsv", func() error {
			_, err := kit.NewEndpoint[struct {
				L []string `kit:"l,tsv"`
			}, any]("GET", "/x")
			return err
		}, `field L: unknown kit tag option "tsv"`},
	}
	for _, tt := range decl {
		err := tt.f()
		var de *kit.DeclarationError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want a *DeclarationError with %q", tt.name, err, tt.want)
		}
	}

	rec := newRecorder(nil)
	_, c := setup(t, rec)
	ep := kit.Get[struct {
		F []float64 `kit:"f,csv"`
	}, any]("/x")
	_, err := ep.Call(t.Context(), c, struct {
		F []float64 `kit:"f,csv"`
	}{[]float64{1, math.NaN()}})
	if err == nil || !strings.Contains(err.Error(), "parameter F: element 1: cannot send NaN as a parameter") {
		t.Errorf("NaN: %v", err)
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// joinTextList is a list that writes itself as text: it is one value by
// its own MarshalText, and a list option on it is refused.
type joinTextList []string

func (l joinTextList) MarshalText() ([]byte, error) { return []byte(strings.Join(l, ";")), nil }

// TestJoinedListKittest filters kittest's /filter/users by a list of ids
// sent as one value, which the server refuses repeated.
func TestJoinedListKittest(t *testing.T) {
	t.Parallel()
	_, c := setupAPI(t)
	type joined struct {
		IDs []int `kit:"ids,csv"`
	}
	users, err := kit.Get[joined, []apiUser]("/filter/users").Call(t.Context(), c, joined{IDs: []int{2, 4, 999}})
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 2 || users[0].ID != 2 || users[1].ID != 4 {
		t.Errorf("ids=2,4,999: %+v", users)
	}
	type repeated struct {
		IDs []int `kit:"ids"`
	}
	_, err = kit.Get[repeated, []apiUser]("/filter/users").Call(t.Context(), c, repeated{IDs: []int{2, 4}})
	var apiErr *kit.HTTPError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		t.Errorf("ids=2&ids=4: %v, want a 400", err)
	}
}

package kit_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// userPatch is a PATCH body with three-state fields: absent fields are
// left alone, null ones cleared, values set (false and 0 included).
type userPatch struct {
	Name   kit.Nullable[string] `json:"name,omitzero" validate:"omitempty,min=2"`
	Email  kit.Nullable[string] `json:"email,omitzero"`
	TeamID kit.Nullable[int]    `json:"team_id,omitzero"`
	Active kit.Nullable[bool]   `json:"active,omitzero"`
}

type patchParams struct {
	ID   int
	Body userPatch
}

var patchUser = kit.Patch[patchParams, apiUser]("/users/{id}")

// TestNullablePatch sends a PATCH to kittest that sets active to false and
// team_id to 0... and leaves the email alone; sync and async. The body on
// the wire has exactly the fields given.
func TestNullablePatch(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(kittest.NewAPI().ServeHTTP)
			_, b := tw.setup(t, rec)
			p := patchParams{ID: 2, Body: userPatch{Name: kit.Value("Grace"), Active: kit.Value(false)}}
			u, err := twinCall(t.Context(), tw, patchUser, b, p)
			if err != nil {
				t.Fatal(err)
			}
			if u.Name != "Grace" || u.Active || u.Email == "" {
				t.Errorf("patched user %+v", u)
			}
			if got := string(rec.only(t).Body); got != `{"name":"Grace","active":false}` {
				t.Errorf("body %s", got)
			}
		})
	}
}

// TestNullableJSON: absent is left out, null written null, a value
// written; decoding tells a missing key from null; kit's codec and
// encoding/json agree.
func TestNullableJSON(t *testing.T) {
	t.Parallel()
	rec := newRecorder(replyJSON(http.StatusOK, `{"name":null,"team_id":0}`))
	_, c := setup(t, rec)
	got, err := kit.Patch[patchParams, userPatch]("/users/{id}").Call(t.Context(), c,
		patchParams{ID: 1, Body: userPatch{Name: kit.Null[string](), TeamID: kit.Value(0)}})
	if err != nil {
		t.Fatal(err)
	}
	if body := string(rec.only(t).Body); body != `{"name":null,"team_id":0}` {
		t.Errorf("sent %s", body)
	}
	if !got.Name.IsNull() || !got.Email.IsZero() || got.Email.IsNull() {
		t.Errorf("decoded name %v, email %v", got.Name, got.Email)
	}
	if v, ok := got.TeamID.Get(); !ok || v != 0 {
		t.Errorf("team_id %v, %v", v, ok)
	}
	if _, ok := got.Active.Get(); ok || !got.Active.IsZero() {
		t.Errorf("active %v, want absent", got.Active)
	}
	// encoding/json, for users' own code.
	std, err := json.Marshal(userPatch{Name: kit.Null[string](), Active: kit.Value(true)})
	if err != nil || string(std) != `{"name":null,"active":true}` {
		t.Errorf("encoding/json: %s, %v", std, err)
	}
	var back userPatch
	if err := json.Unmarshal([]byte(`{"name":null,"email":"a@b.c"}`), &back); err != nil || !back.Name.IsNull() || back.Email.String() != `"a@b.c"` || !back.TeamID.IsZero() {
		t.Errorf("encoding/json decode: %+v, %v", back, err)
	}
	if s := kit.Null[int]().String() + " " + (kit.Nullable[int]{}).String() + " " + kit.Value(3).String(); s != "null absent 3" {
		t.Errorf("String: %s", s)
	}
	// Without omitzero, absent has no other JSON than null.
	type loose struct {
		N kit.Nullable[int] `json:"n"`
	}
	if b, _ := json.Marshal(loose{}); string(b) != `{"n":null}` {
		t.Errorf("absent without omitzero: %s", b)
	}
}

// TestNullableParameters: in queries, headers and forms absent is left
// out, null is an empty value, a value its text.
func TestNullableParameters(t *testing.T) {
	t.Parallel()
	type form struct {
		Note  kit.Nullable[string] `json:"note"`
		Count kit.Nullable[int]    `json:"count"`
		Gone  kit.Nullable[int]    `json:"gone"`
	}
	type params struct {
		Q     kit.Nullable[string]
		Limit kit.Nullable[int]
		Gone  kit.Nullable[bool]
		Trace kit.Nullable[string] `kit:"X-Trace,header"`
		Body  form
	}
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	ep := kit.Post[params, any]("/x", kit.FormBody())
	p := params{Q: kit.Null[string](), Limit: kit.Value(0), Trace: kit.Value("t"), Body: form{Note: kit.Null[string](), Count: kit.Value(2)}}
	if _, err := ep.Call(t.Context(), c, p); err != nil {
		t.Fatal(err)
	}
	r := rec.only(t)
	if r.URL.RawQuery != "limit=0&q=" || string(r.Body) != "count=2&note=" || r.Header.Get("X-Trace") != "t" {
		t.Errorf("query %q body %q trace %q", r.URL.RawQuery, r.Body, r.Header.Get("X-Trace"))
	}
	var de *kit.DeclarationError
	if _, err := kit.NewEndpoint[struct{ N kit.Nullable[[]int] }, any]("GET", "/x"); !errors.As(err, &de) {
		t.Errorf("Nullable of a slice as a parameter: %v", err)
	}
}

// TestNullableValidation: tags apply to the value when there is one;
// absent and null are nil to the validator (omitempty lets them pass).
func TestNullableValidation(t *testing.T) {
	t.Parallel()
	type strict struct {
		Name kit.Nullable[string] `json:"name,omitzero" validate:"required"`
	}
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	ep := kit.Patch[patchParams, any]("/users/{id}")
	strictEP := kit.Patch[struct {
		ID   int
		Body strict
	}, any]("/users/{id}")
	tests := []struct {
		name string
		call func() error
		bad  bool
	}{
		{"value too short", func() error {
			_, err := ep.Call(t.Context(), c, patchParams{1, userPatch{Name: kit.Value("G")}})
			return err
		}, true},
		{"value ok", func() error {
			_, err := ep.Call(t.Context(), c, patchParams{1, userPatch{Name: kit.Value("Go")}})
			return err
		}, false},
		{"absent", func() error { _, err := ep.Call(t.Context(), c, patchParams{1, userPatch{}}); return err }, false},
		{"null", func() error {
			_, err := ep.Call(t.Context(), c, patchParams{1, userPatch{Name: kit.Null[string]()}})
			return err
		}, false},
		{"required, absent", func() error {
			_, err := strictEP.Call(t.Context(), c, struct {
				ID   int
				Body strict
			}{1, strict{}})
			return err
		}, true},
	}
	for _, tt := range tests {
		err := tt.call()
		var ve *kit.ValidationError
		if tt.bad != errors.As(err, &ve) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	if n := len(rec.requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

// TestNullableOfInterface: a Nullable[any] in a form and a query holds
// any value, or nil, without a panic.
func TestNullableOfInterface(t *testing.T) {
	t.Parallel()
	type form struct {
		A kit.Nullable[any]       `json:"a"`
		B kit.Nullable[any]       `json:"b"`
		T kit.Nullable[time.Time] `json:"t"`
	}
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	ep := kit.Post[struct{ Body form }, any]("/x", kit.FormBody())
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, err := ep.Call(t.Context(), c, struct{ Body form }{form{A: kit.Value[any](nil), B: kit.Value[any](map[string]int{"k": 1}), T: kit.Value(when)}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := url.QueryUnescape(string(rec.only(t).Body)); got != "b[k]=1&t=2026-01-02T03:04:05Z" {
		t.Errorf("body %s", got)
	}
}

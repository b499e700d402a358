package kit_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kithttp/kit"
)

// labelSet is a JSON body that is a map of models.
type labelSet map[string]apiUser

// TestBodyTag sends fields tagged `kit:",body"` as the JSON body, whatever
// their type: a map of anything, a map of models (validated entry by
// entry), a slice of text, a string, an interface; nil sends no body, and
// a kit.File so tagged is the raw body.
func TestBodyTag(t *testing.T) {
	t.Parallel()
	rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		b, _ := io.ReadAll(r.Body)
		if len(b) == 0 {
			b = []byte("null")
		}
		w.Write(b) // echo
	})
	_, c := setup(t, rec)
	type mapBody struct {
		ID   int
		Body map[string]any `kit:",body"`
	}
	conv := kit.Post[mapBody, map[string]any]("/app-manifests/{id}/conversions")
	got, err := conv.Call(t.Context(), c, mapBody{ID: 7, Body: map[string]any{"name": "app", "n": 2, "nested": map[string]any{"ok": true}}})
	if err != nil {
		t.Fatal(err)
	}
	if got["name"] != "app" || got["n"] != 2.0 || got["nested"].(map[string]any)["ok"] != true {
		t.Errorf("echoed %v", got)
	}
	if _, err := conv.Call(t.Context(), c, mapBody{ID: 8}); err != nil {
		t.Fatal(err)
	}

	users := kit.Put[struct {
		Users labelSet `kit:",body"`
	}, labelSet]("/labels")
	set := labelSet{"a": {Name: "ann", Email: "ann@example.com"}}
	back, err := users.Call(t.Context(), c, struct {
		Users labelSet `kit:",body"`
	}{set})
	if err != nil || back["a"].Name != "ann" {
		t.Fatalf("%v %v", back, err)
	}
	_, err = users.Call(t.Context(), c, struct {
		Users labelSet `kit:",body"`
	}{labelSet{"z": {Name: "zed", Email: "nope"}, "b": {Name: "bob", Email: "not-an-address"}, "a": {Name: "ann", Email: "ann@example.com"}}})
	var ve *kit.ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) != 2 || ve.Fields[0].Path != "[b].Email" || ve.Fields[1].Path != "[z].Email" {
		t.Errorf("invalid entries, reported in key order: %v", err)
	}

	names := kit.Post[struct {
		Names []string `kit:",body"`
	}, []string]("/names")
	if ns, err := names.Call(t.Context(), c, struct {
		Names []string `kit:",body"`
	}{[]string{"a", "b"}}); err != nil || strings.Join(ns, ",") != "a,b" {
		t.Errorf("%v %v", ns, err)
	}
	text := kit.Post[struct {
		S string `kit:",body"`
	}, string]("/text")
	if s, err := text.Call(t.Context(), c, struct {
		S string `kit:",body"`
	}{`say "hi"`}); err != nil || s != `say "hi"` {
		t.Errorf("%q %v", s, err)
	}
	dyn := kit.Patch[struct {
		V any `kit:",body"`
	}, json.RawMessage]("/dyn")
	if raw, err := dyn.Call(t.Context(), c, struct {
		V any `kit:",body"`
	}{map[string]int{"k": 1}}); err != nil || string(raw) != `{"k":1}` {
		t.Errorf("%s %v", raw, err)
	}
	file := kit.Post[struct {
		F kit.File `kit:",body"`
	}, *kit.Response]("/raw")
	if _, err := file.Call(t.Context(), c, struct {
		F kit.File `kit:",body"`
	}{kit.FileFromBytes("a.bin", []byte("raw bytes"))}); err != nil {
		t.Fatal(err)
	}

	reqs := rec.requests()
	wantBodies := []string{
		`{"n":2,"name":"app","nested":{"ok":true}}`, "",
		`{"a":{"name":"ann","email":"ann@example.com","team_id":0,"active":false}}`,
		`["a","b"]`, `"say \"hi\""`, `{"k":1}`, "raw bytes",
	}
	if len(reqs) != len(wantBodies) {
		t.Fatalf("%d requests, want %d (nothing sent for the invalid body)", len(reqs), len(wantBodies))
	}
	for i, r := range reqs {
		if string(r.Body) != wantBodies[i] {
			t.Errorf("request %d body %s, want %s", i, r.Body, wantBodies[i])
		}
		wantType := "application/json"
		switch wantBodies[i] {
		case "":
			wantType = ""
		case "raw bytes":
			wantType = "application/octet-stream"
		}
		if ct := r.Header.Get("Content-Type"); ct != wantType {
			t.Errorf("request %d Content-Type %q, want %q", i, ct, wantType)
		}
	}
	if reqs[0].URL.Path != "/app-manifests/7/conversions" || reqs[0].URL.RawQuery != "" {
		t.Errorf("the map went elsewhere too: %s", reqs[0].URL)
	}
}

// TestBodyTagForm: a map tagged `kit:",body"` is a whole form body with
// FormBody: its keys are the form's keys, nested values in brackets.
func TestBodyTagForm(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	type formMap struct {
		F map[string]any `kit:",body"`
	}
	ep := kit.Post[formMap, any]("/settings", kit.FormBody(kit.FormIndexed))
	if _, err := ep.Call(t.Context(), c, formMap{map[string]any{"theme": "dark", "tags": []string{"a", "b"}, "limits": map[string]int{"n": 3}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ep.Call(t.Context(), c, formMap{map[string]any{"bad]key": 1}}); err == nil || !strings.Contains(err.Error(), `map key "bad]key" cannot be written`) {
		t.Errorf("a bracket in a key: %v", err)
	}
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if got, _ := url.QueryUnescape(string(reqs[0].Body)); got != "limits[n]=3&tags[0]=a&tags[1]=b&theme=dark" || reqs[0].Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("body %s (%s)", got, reqs[0].Header.Get("Content-Type"))
	}
}

// TestBodyTagRefused: a `kit:",body"` field that cannot be a JSON body,
// or would be a second body, or is on a GET, is a *DeclarationError.
func TestBodyTagRefused(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		decl func() error
		want string
	}{
		"GET": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]any `kit:",body"`
			}, any]("GET", "/x")
			return err
		}, "field M (map[string]interface {}) would be the request body, and GET requests have no body"},
		"channel": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]chan int `kit:",body"`
			}, any]("POST", "/x")
			return err
		}, "field M (map[string]chan int) cannot be the JSON request body: type chan int has no JSON form"},
		"bool keys": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[bool]int `kit:",body"`
			}, any]("POST", "/x")
			return err
		}, "its key type bool is not a string, an integer or an encoding.TextMarshaler"},
		"file inside": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]kit.File `kit:",body"`
			}, any]("POST", "/x")
			return err
		}, "type kit.File is a kit.File, which has no JSON form"},
		"file in a model": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]struct{ F kit.File } `kit:",body"`
			}, any]("POST", "/x")
			return err
		}, "field F of the body model struct { F kit.File } is a kit.File"},
		"bytes": {func() error {
			_, err := kit.NewEndpoint[struct {
				B []byte `kit:",body"`
			}, any]("POST", "/x")
			return err
		}, "send raw bytes as a kit.File"},
		"named": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]any `kit:"m,body"`
			}, any]("POST", "/x")
			return err
		}, `is the request body, which has no name: drop the name "m"`},
		"two bodies": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]any `kit:",body"`
				U apiUser
			}, any]("POST", "/x")
			return err
		}, "field M and field U would both be the request body"},
		"with query": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]any `kit:",body,query"`
			}, any]("POST", "/x")
			return err
		}, "the kit tag option body excludes header, query and url"},
		"a form of a slice": {func() error {
			_, err := kit.NewEndpoint[struct {
				S []string `kit:",body"`
			}, any]("POST", "/x", kit.FormBody())
			return err
		}, "a form body is one data model (a struct) or a map marked body, not []string"},
		"a form with int keys": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[int]string `kit:",body"`
			}, any]("POST", "/x", kit.FormBody())
			return err
		}, "a map's keys are written as form keys, and its key type int is not a string kind"},
		"an unmarked map form": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]string
			}, any]("POST", "/x", kit.FormBody())
			return err
		}, "kit.FormBody() needs a body model"},
		"a multipart map": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]string `kit:",body"`
			}, any]("POST", "/x", kit.Multipart())
			return err
		}, "a multipart body is one data model (a struct), not map[string]string"},
	}
	for name, tc := range cases {
		err := tc.decl()
		var de *kit.DeclarationError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *DeclarationError with %q", name, err, tc.want)
		}
	}
}

package kit_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// echoedReq is what kittest's /echo answers.
type echoedReq struct {
	Method     string              `json:"method"`
	RequestURI string              `json:"request_uri"`
	Query      map[string][]string `json:"query"`
	Headers    map[string][]string `json:"headers"`
	Body       json.RawMessage     `json:"body"`
}

func TestWithQueryLevels(t *testing.T) {
	t.Parallel()
	type params struct {
		A string `kit:"a,query"`
		Z string `kit:"z,query"`
	}
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, kittest.NewAPI(), kit.WithQuery("a", "client"), kit.WithQuery("k", "client"))
			ctx := t.Context()
			ep := kit.Get[params, echoedReq]("/echo?s=static", kit.WithQuery("a", "decl"), kit.WithQuery("b", "decl 1"), kit.WithQuery("b", "decl 2"))
			got, err := twinCall(ctx, tw, ep, b, params{A: "param", Z: "z"})
			if err != nil {
				t.Fatal(err)
			}
			if want := "/echo?a=decl&b=decl+2&k=client&s=static&z=z"; got.RequestURI != want {
				t.Errorf("request = %s, want %s", got.RequestURI, want)
			}
			got, err = twinCall(ctx, tw, ep, b, params{A: "param"}, kit.WithQuery("a", "call"), kit.WithQuery("s", "call"))
			if err != nil {
				t.Fatal(err)
			}
			if want := "/echo?a=call&b=decl+2&k=client&s=call&z="; got.RequestURI != want {
				t.Errorf("request = %s, want %s", got.RequestURI, want)
			}
			// A declaration without the option: the client's.
			got, err = twinCall(ctx, tw, kit.Get[kit.NoParams, echoedReq]("/echo"), b, kit.NoParams{})
			if err != nil || got.RequestURI != "/echo?a=client&k=client" {
				t.Errorf("request = %s, %v", got.RequestURI, err)
			}
		})
	}
}

// TestWithQueryEveryPage: a walk's every page has the call's parameter.
func TestWithQueryEveryPage(t *testing.T) {
	t.Parallel()
	ep := kit.Paged[kit.NoParams, apiUser]("/users", kit.WithPaginator(kit.PageNumber{PageSize: 7}))
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, kittest.NewAPI())
			iter := ep.Iterate
			if tw.async {
				iter = ep.GoIterate
			}
			n := 0
			for u, err := range iter(t.Context(), b, kit.NoParams{}, kit.WithQuery("team_id", "2")) {
				if err != nil {
					t.Fatal(err)
				}
				if u.TeamID != 2 {
					t.Fatalf("user %+v is not in team 2", u)
				}
				n++
			}
			if n != seeded/5 {
				t.Errorf("%d users, want %d", n, seeded/5)
			}
		})
	}
}

func TestWithJSONField(t *testing.T) {
	t.Parallel()
	type body struct {
		Name string         `json:"name"`
		Meta map[string]any `json:"metadata,omitempty"`
	}
	type params struct{ Body body }
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, kittest.NewAPI(), kit.WithJSONField("client", true))
			ctx := t.Context()
			ep := kit.Post[params, echoedReq]("/echo", kit.WithJSONField("metadata.source", "decl"))
			for _, tc := range []struct {
				p    params
				opts []kit.CallOption
				want string
			}{
				{params{body{Name: "a"}}, nil, `{"name":"a","client":true,"metadata":{"source":"decl"}}`},
				{params{body{Name: "a", Meta: map[string]any{"k": 1}}}, nil, `{"name":"a","metadata":{"k":1,"source":"decl"},"client":true}`},
				{params{body{Name: "a"}}, []kit.CallOption{kit.WithJSONField("name", "b"), kit.WithJSONField("metadata.source", "call"), kit.WithJSONField("x.y.z", []int{1})},
					`{"name":"b","client":true,"metadata":{"source":"call"},"x":{"y":{"z":[1]}}}`},
				{params{body{Name: "a"}}, []kit.CallOption{kit.WithJSONField("client", nil)}, `{"name":"a","client":null,"metadata":{"source":"decl"}}`},
			} {
				got, err := twinCall(ctx, tw, ep, b, tc.p, tc.opts...)
				if err != nil {
					t.Fatal(err)
				}
				if string(got.Body) != tc.want {
					t.Errorf("body = %s, want %s", got.Body, tc.want)
				}
			}
			// A POST without a body gets one.
			got, err := twinCall(ctx, tw, kit.Post[kit.NoParams, echoedReq]("/echo"), b, kit.NoParams{}, kit.WithJSONField("k", "v"))
			if err != nil || string(got.Body) != `{"client":true,"k":"v"}` || got.Headers["content-type"][0] != "application/json" {
				t.Errorf("no body: %s %v, %v", got.Body, got.Headers["content-type"], err)
			}
		})
	}
}

func TestWithJSONFieldRefused(t *testing.T) {
	t.Parallel()
	var sent atomic.Int32
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		replyJSON(200, `{}`)(w, r)
	}))
	ctx := t.Context()
	type named struct {
		Body struct {
			Name string `json:"name"`
		}
	}
	type file struct{ File kit.File }
	for _, tc := range []struct {
		call func() error
		want string
	}{
		{func() error {
			_, err := kit.Get[kit.NoParams, any]("/x").Call(ctx, c, kit.NoParams{}, kit.WithJSONField("a", 1))
			return err
		}, "GET requests have no body"},
		{func() error {
			_, err := kit.Post[named, any]("/x").Call(ctx, c, named{}, kit.WithJSONField("name.first", 1))
			return err
		}, `the body's "name" is a string, not an object`},
		{func() error {
			_, err := kit.Post[file, any]("/x").Call(ctx, c, file{kit.FileFromBytes("f", []byte("x"))}, kit.WithJSONField("a", 1))
			return err
		}, "not JSON or a form"},
		{func() error {
			_, err := kit.Post[kit.NoParams, any]("/x").Call(ctx, c, kit.NoParams{}, kit.WithJSONField("a..b", 1))
			return err
		}, `WithJSONField("a..b", ...)`},
		{func() error {
			_, err := kit.Post[kit.NoParams, any]("/x").Call(ctx, c, kit.NoParams{}, kit.WithJSONField("a", func() {}))
			return err
		}, "encoding the value"},
		{func() error {
			_, err := kit.Post[kit.NoParams, any]("/x").Call(ctx, c, kit.NoParams{}, kit.WithQuery("", "v"))
			return err
		}, `WithQuery("", ...): empty key`},
	} {
		if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
	if n := sent.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithJSONField("", 1)); err == nil {
		t.Error("NewClient took an empty path")
	}
	// String leaves the values out.
	if got := fmt.Sprint(kit.WithQuery("api_key", "s3cret"), kit.WithJSONField("token", "s3cret")); strings.Contains(got, "s3cret") || got != `kit.WithQuery("api_key", ...) kit.WithJSONField("token", ...)` {
		t.Errorf("String = %s", got)
	}
}

func TestWithJSONFieldForm(t *testing.T) {
	t.Parallel()
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"type": r.Header.Get("Content-Type"), "body": string(b)})
	}))
	type form struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	}
	ep := kit.Post[struct{ Body form }, map[string]string]("/charges", kit.FormBody())
	ctx := t.Context()
	got, err := ep.Call(ctx, c, struct{ Body form }{form{"a", "e"}}, kit.WithJSONField("metadata.source", "import"), kit.WithJSONField("amount", 12), kit.WithJSONField("email", nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := "amount=12&metadata%5Bsource%5D=import&name=a"; got["body"] != want {
		t.Errorf("form body = %s, want %s", got["body"], want)
	}
	_, err = ep.Call(ctx, c, struct{ Body form }{}, kit.WithJSONField("meta", map[string]int{"a": 1}))
	if err == nil || !strings.Contains(err.Error(), "a string, a number or a boolean, not an object") {
		t.Errorf("an object in a form: %v", err)
	}
	type empty struct{ Body struct{} }
	got, err = kit.Post[empty, map[string]string]("/x", kit.FormBody()).Call(ctx, c, empty{}, kit.WithJSONField("k", "v w"))
	if err != nil || got["body"] != "k=v+w" || got["type"] != "application/x-www-form-urlencoded" {
		t.Errorf("a form without a body: %v, %v", got, err)
	}
}

package kit_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kithttp/kit"
)

type smokeUser struct {
	ID    int    `json:"id"`
	Name  string `json:"name" validate:"required"`
	Email string `json:"email" validate:"required,email"`
}

type smokeTeam struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

func TestSmokeSpecExample(t *testing.T) {
	var got struct {
		method, uri, ct string
		body            []smokeUser
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.method, got.uri, got.ct = r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type")
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &got.body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":7,"name":"core"}`))
	}))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL + "/api/v1/")
	if err != nil {
		t.Fatal(err)
	}
	ep := kit.Post[struct {
		ID      int
		Payload []smokeUser
		Team    *string
	}, smokeTeam]("/teams/{id}/users")
	team := "core"
	res, err := ep.Call(t.Context(), c, struct {
		ID      int
		Payload []smokeUser
		Team    *string
	}{ID: 7, Payload: []smokeUser{{Name: "a", Email: "a@x.io"}}, Team: &team})
	if err != nil {
		t.Fatal(err)
	}
	if got.method != "POST" || got.uri != "/api/v1/teams/7/users?team=core" || got.ct != "application/json" || len(got.body) != 1 {
		t.Fatalf("got %+v", got)
	}
	if res.ID != 7 || res.Name != "core" {
		t.Fatalf("res %+v", res)
	}
	_, err = ep.Call(t.Context(), c, struct {
		ID      int
		Payload []smokeUser
		Team    *string
	}{ID: 7, Payload: []smokeUser{{Name: "a", Email: "a@x.io"}, {Name: "", Email: "nope"}}})
	t.Log(err)
	if err == nil {
		t.Fatal("want validation error")
	}
}

package kittest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestLoginFlow(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(NewAPI())
	defer srv.Close()
	post := func(body string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Post(srv.URL+"/flows/login", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, m
	}
	if code, m := post(`{"username":"demo","password":"s3cret"}`); code != 200 || m["access_token"] == nil {
		t.Errorf("right credentials: %d %v", code, m)
	}
	code, m := post(`{"username":"demo","password":"wrong"}`)
	if code != 400 || m["id"] == "" || m["error"] != nil {
		t.Fatalf("wrong credentials: %d %v", code, m)
	}
	b, _ := json.Marshal(m)
	var f LoginFlow
	if err := json.Unmarshal(b, &f); err != nil || len(f.UI.Messages) != 1 || f.UI.Messages[0].ID != 4000006 || !strings.HasPrefix(f.Error(), "The provided credentials are invalid") {
		t.Errorf("flow %+v, %v", f, err)
	}
	if code, m := post(`{"username":1}`); code != 400 || m["error"] != "bad_request" || m["id"] != nil {
		t.Errorf("a body that is not strings: %d %v", code, m)
	}
	if got := (&LoginFlow{ID: "x"}).Error(); got != "login flow x" {
		t.Errorf("Error() = %q", got)
	}
}

//go:build kit_novalidator

package kit_test

// These tests run only in the kit_novalidator build (.ci/run runs them with
// go test -tags kit_novalidator -run NoValidator): the rest of the suite
// checks go-playground/validator's tags and does not pass there.

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
)

type noValidatorTagged struct {
	Name string `json:"name" validate:"required"`
}

type noValidatorSelf struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

var errNoValidatorRange = errors.New("min is above max")

func (r noValidatorSelf) Validate() error {
	if r.Min > r.Max {
		return errNoValidatorRange
	}
	return nil
}

func newNoValidatorServer(t *testing.T, body string) (*kit.Client, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, &hits
}

func TestNoValidatorRefusesTaggedRequestBody(t *testing.T) {
	c, hits := newNoValidatorServer(t, `{}`)
	post := kit.Post[struct{ B noValidatorTagged }, *kit.Response]("/x")
	_, err := post.Call(t.Context(), c, struct{ B noValidatorTagged }{noValidatorTagged{Name: "Ada"}})
	if err == nil || !strings.Contains(err.Error(), "kit_novalidator") {
		t.Fatalf("err = %v, want the call refused, naming the kit_novalidator build", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server saw %d requests, want none: the body's tags could not be checked", n)
	}
}

func TestNoValidatorRefusesTaggedResult(t *testing.T) {
	c, _ := newNoValidatorServer(t, `{"name":"Ada"}`)
	get := kit.Get[kit.NoParams, noValidatorTagged]("/x")
	got, err := get.Call(t.Context(), c, kit.NoParams{})
	if err == nil || !strings.Contains(err.Error(), "noValidatorTagged") || !strings.Contains(err.Error(), "kit_novalidator") {
		t.Fatalf("err = %v, want an error naming the model and the kit_novalidator build", err)
	}
	if got != (noValidatorTagged{}) {
		t.Errorf("result = %+v, want the zero value with the error", got)
	}
}

func TestNoValidatorRunsValidateMethods(t *testing.T) {
	c, _ := newNoValidatorServer(t, `{"min":3,"max":1}`)
	get := kit.Get[kit.NoParams, noValidatorSelf]("/x")
	_, err := get.Call(t.Context(), c, kit.NoParams{})
	var ve *kit.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, errNoValidatorRange) {
		t.Fatalf("err = %v, want a *kit.ValidationError wrapping the Validate() error", err)
	}
}

func TestNoValidatorWithValidatorNil(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"name":""}`))
	}))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithValidator(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	get := kit.Get[kit.NoParams, noValidatorTagged]("/x")
	if _, err := get.Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatalf("with validation off, err = %v, want nil", err)
	}
}

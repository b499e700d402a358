package kit_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// The rules of "Envelopes, errors in 2xx bodies, error models at a key" and
// "Result headers on error".

type envChannelParams struct {
	Body struct {
		Channel string `json:"channel"`
	}
}

func channelParams(id string) envChannelParams {
	var p envChannelParams
	p.Body.Channel = id
	return p
}

type envValidated struct {
	ID   string `json:"id" validate:"required"`
	Name string `json:"name"`
}

var (
	slackCheck  = kit.WithBodyCheck((*kittest.SlackStatus).Check)
	slackInfo   = kit.Post[envChannelParams, kittest.SlackChannel]("/conversations.info", kit.WithResultAt("channel"), slackCheck)
	slackResult = kit.Post[envChannelParams, kit.Result[kittest.SlackChannel]]("/conversations.info", kit.WithResultAt("channel"), slackCheck)
	slackRaw    = kit.Post[envChannelParams, any]("/conversations.info", kit.WithResultAt("channel"))
)

func TestWithResultAtAndBodyCheck(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			_, b := tw.setup(t, kittest.NewAPI())
			ctx := t.Context()
			ch, err := twinCall(ctx, tw, slackInfo, b, channelParams("C2"))
			if err != nil || ch.ID != "C2" || ch.Name != "payments" || !ch.IsChannel {
				t.Fatalf("conversations.info C2 = %+v, %v", ch, err)
			}
			r, err := twinCall(ctx, tw, slackResult, b, channelParams("C1"))
			if err != nil || r.Value.Name != "platform" || r.StatusCode != 200 || !strings.Contains(string(r.Bytes()), `"ok":true`) {
				t.Fatalf("Result: %+v, %v", r, err)
			}
			raw, err := twinCall(ctx, tw, slackRaw, b, channelParams("C3"))
			if m, ok := raw.(map[string]any); err != nil || !ok || m["name"] != "growth" {
				t.Fatalf("any at a key: %#v, %v", raw, err)
			}

			// ok:false at 200: an *HTTPError that wraps the check's error.
			_, err = twinCall(ctx, tw, slackInfo, b, channelParams("C9"))
			var he *kit.HTTPError
			var se *kittest.SlackError
			if !errors.As(err, &he) || he.StatusCode != 200 || !errors.As(err, &se) || se.Code != "channel_not_found" {
				t.Fatalf("ok:false: %v", err)
			}
			if m, ok := he.Model.(*kittest.SlackStatus); !ok || m.OK || m.Error != "channel_not_found" || !strings.Contains(string(he.Body), "channel_not_found") {
				t.Fatalf("ok:false model %#v, body %s", he.Model, he.Body)
			}
			if !strings.HasSuffix(err.Error(), ": 200 OK: slack: channel_not_found") {
				t.Fatalf("ok:false text %q", err)
			}
			if kit.Retryable(err) {
				t.Fatal("an ok:false answer is Retryable by default")
			}
			r, err = twinCall(ctx, tw, slackResult, b, channelParams("C9"))
			if err == nil || r.Response == nil || r.StatusCode != 200 {
				t.Fatalf("a Result returned with a body check's error: %+v, %v", r, err)
			}

			// Without the check, ok:false has no "channel": a DecodeError, not a zero success.
			_, err = twinCall(ctx, tw, slackRaw, b, channelParams("C9"))
			var de *kit.DecodeError
			if !errors.As(err, &de) || !strings.Contains(de.Error(), `no key "channel"`) {
				t.Fatalf("a body without the key: %v", err)
			}
		})
	}
}

func TestWithResultAtNullValidationAndDeclaration(t *testing.T) {
	t.Parallel()
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/null":
			replyJSON(200, `{"data":{"item":null}}`)(w, r)
		case "/invalid":
			replyJSON(200, `{"data":{"item":{"name":"no id"}}}`)(w, r)
		case "/wrong":
			replyJSON(200, `{"data":{"item":{"id":5}}}`)(w, r)
		case "/broken":
			replyJSON(200, `{"data":{"item":{"id":"x"}`)(w, r)
		default:
			replyJSON(200, `{"data":{"item":{"id":"a1","name":"A"}},"more":[1,2]}`)(w, r)
		}
	}))
	get := func(path string) (envValidated, error) {
		return kit.Get[kit.NoParams, envValidated](path, kit.WithResultAt("data.item")).Call(t.Context(), c, kit.NoParams{})
	}
	if v, err := get("/ok"); err != nil || v.ID != "a1" || v.Name != "A" {
		t.Fatalf("nested key: %+v, %v", v, err)
	}
	if v, err := kit.Get[kit.NoParams, *rtItem]("/null", kit.WithResultAt("data.item")).Call(t.Context(), c, kit.NoParams{}); err != nil || v != nil {
		t.Fatalf("null: %+v, %v", v, err)
	}
	var ve *kit.ValidationError
	if _, err := get("/invalid"); !errors.As(err, &ve) {
		t.Fatalf("validation: %v", err)
	}
	var de *kit.DecodeError
	for _, p := range []string{"/wrong", "/broken"} {
		if _, err := get(p); !errors.As(err, &de) || de.Want != "kit_test.envValidated" {
			t.Fatalf("%s: %v", p, err)
		}
	}

	var decl *kit.DeclarationError
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"empty path", envDeclErr(kit.NewEndpoint[kit.NoParams, envValidated]("GET", "/x", kit.WithResultAt("")))},
		{"empty segment", envDeclErr(kit.NewEndpoint[kit.NoParams, envValidated]("GET", "/x", kit.WithResultAt("a..b")))},
		{"*Response", envDeclErr(kit.NewEndpoint[kit.NoParams, *kit.Response]("GET", "/x", kit.WithResultAt("a")))},
		{"io.ReadCloser", envDeclErr(kit.NewEndpoint[kit.NoParams, io.ReadCloser]("GET", "/x", kit.WithResultAt("a")))},
		{"Result[*Response]", envDeclErr(kit.NewEndpoint[kit.NoParams, kit.Result[*kit.Response]]("GET", "/x", kit.WithResultAt("a")))},
		{"paged", envDeclErr(kit.NewPaged[kit.NoParams, envValidated]("/x", kit.WithResultAt("a")))},
	} {
		if !errors.As(tc.err, &decl) || !strings.Contains(decl.Reason, "WithResultAt") {
			t.Errorf("%s: %v", tc.name, tc.err)
		}
	}
}

// envDeclErr returns the error of a declaration.
func envDeclErr[E any](_ E, err error) error { return err }

type envStatus struct {
	OK     bool   `json:"ok"`
	Error  string `json:"error"`
	Status int    `json:"-" kit:",status"`
	Server string `json:"-" kit:"X-Server,header"`
}

type envCodeError struct{ Code string }

func (e *envCodeError) Error() string { return "code " + e.Code }

func TestWithBodyCheckRules(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Server", "s1")
		switch r.URL.Path {
		case "/flaky":
			if n.Add(1) < 3 {
				replyJSON(200, `{"ok":false,"error":"service_unavailable"}`)(w, r)
				return
			}
			replyJSON(200, `{"ok":true,"id":1}`)(w, r)
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/array":
			replyJSON(200, `[1,2]`)(w, r)
		case "/text":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "fine")
		case "/users":
			if r.URL.Query().Get("page") == "2" {
				replyJSON(200, `{"ok":false,"error":"ratelimited","data":[]}`)(w, r)
				return
			}
			replyJSON(200, `{"ok":true,"data":[{"id":1},{"id":2}]}`)(w, r)
		case "/error":
			replyJSON(500, `{"ok":false}`)(w, r)
		default:
			replyJSON(200, `{"ok":false,"error":"nope"}`)(w, r)
		}
	}), kit.WithBodyCheck(func(s *envStatus) error {
		if s.Status != 200 && s.Status != 204 || s.Server != "s1" {
			return fmt.Errorf("status and header not filled: %+v", s)
		}
		if !s.OK {
			return &envCodeError{s.Error}
		}
		return nil
	}))
	ctx := t.Context()

	// RetryIf sees a check's failure.
	p := rtFastRetry(4)
	p.RetryIf = func(err error) bool {
		var ce *envCodeError
		return errors.As(err, &ce) && ce.Code == "service_unavailable" || kit.Retryable(err)
	}
	got, err := kit.Get[kit.NoParams, rtItem]("/flaky", kit.WithRetry(p)).Call(ctx, c, kit.NoParams{})
	if err != nil || got.ID != 1 || n.Load() != 3 {
		t.Fatalf("retried check failure: %+v, %v after %d attempts", got, err, n.Load())
	}
	// An empty body is not checked; a body that is not an E is a DecodeError.
	if _, err := kit.Get[kit.NoParams, *kit.Response]("/empty").Call(ctx, c, kit.NoParams{}); err != nil {
		t.Fatalf("204: %v", err)
	}
	var de *kit.DecodeError
	for _, path := range []string{"/array", "/text"} {
		if _, err := kit.Get[kit.NoParams, any](path).Call(ctx, c, kit.NoParams{}); !errors.As(err, &de) || !strings.Contains(err.Error(), "WithBodyCheck") {
			t.Fatalf("%s: %v, want a DecodeError", path, err)
		}
	}
	// The endpoint's check wins over the client's.
	own := kit.Get[kit.NoParams, any]("/other", kit.WithBodyCheck(func(*struct{}) error { return nil }))
	if _, err := own.Call(ctx, c, kit.NoParams{}); err != nil {
		t.Fatalf("the endpoint's check: %v", err)
	}
	// Every page of a walk is checked.
	var ce *envCodeError
	var ids []int
	for it, err := range kit.NewResource[rtItem](c, "/users", kit.WithPaginator(kit.PageNumber{ItemsKey: "data", PageSize: 2})).All(ctx) {
		if err != nil {
			if !errors.As(err, &ce) || ce.Code != "ratelimited" {
				t.Fatalf("page 2: %v", err)
			}
			break
		}
		ids = append(ids, it.ID)
	}
	if fmt.Sprint(ids) != "[1 2]" || ce == nil {
		t.Fatalf("walk: %v, %v", ids, ce)
	}
	// Non-2xx bodies are not checked: they are HTTPErrors already.
	var he *kit.HTTPError
	if _, err := kit.Get[kit.NoParams, any]("/error").Call(ctx, c, kit.NoParams{}); !errors.As(err, &he) || he.StatusCode != 500 || errors.As(err, &ce) {
		t.Fatalf("500: %v", err)
	}

	// Declaration and construction errors.
	if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithBodyCheck[envStatus](nil)); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Fatalf("nil check: %v", err)
	}
	type badTag struct {
		Status string `kit:",status"`
	}
	_, err = kit.NewEndpoint[kit.NoParams, any]("GET", "/x", kit.WithBodyCheck(func(*badTag) error { return nil }))
	var decl *kit.DeclarationError
	if !errors.As(err, &decl) || !strings.Contains(decl.Reason, "not an int") {
		t.Fatalf("bad status tag: %v", err)
	}
}

func TestWithErrorModelAtFillsStatusAndHeaders(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			api := kittest.NewAPI()
			_, b := tw.setup(t, api, kit.WithErrorModelAt[kittest.StripeError]("error"))
			type payment struct {
				Amount   int64  `json:"amount"`
				Currency string `json:"currency"`
				Source   string `json:"source"`
			}
			pay := kit.Post[struct{ P payment }, kittest.Payment]("/payments", kit.FormBody())
			_, err := twinCall(t.Context(), tw, pay, b, struct{ P payment }{payment{500, "eur", "tok_chargeDeclined"}})
			var se *kittest.StripeError
			if !errors.As(err, &se) || se.Code != "card_declined" || se.Status != 402 || !strings.HasPrefix(se.RequestID, "req_") || se.ShouldRetry != "false" {
				t.Fatalf("declined: %v (%+v)", err, se)
			}
			getPay := kit.Get[struct{ ID string }, kit.Result[kittest.Payment]]("/payments/{id}")
			r, err := twinCall(t.Context(), tw, getPay, b, struct{ ID string }{"pay_404"})
			if !errors.As(err, &se) || se.Code != "resource_missing" || se.Status != 404 {
				t.Fatalf("missing: %v", err)
			}
			// A Result returned with an error: status and headers readable.
			if r.StatusCode != 404 || r.Header.Get("Request-Id") != se.RequestID || r.Value != (kittest.Payment{}) {
				t.Fatalf("Result with the error: %d %v %+v", r.StatusCode, r.Header, r.Value)
			}
		})
	}
	// At the root too; a body without the key, or not JSON, gives no model.
	type rootErr struct {
		Message string `json:"message"`
		Status  int64  `kit:",status"`
		ReqID   string `kit:"X-Request-Id,header"`
	}
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "r-9")
		switch r.URL.Path {
		case "/nokey":
			replyJSON(409, `{"message":"m"}`)(w, r)
		case "/null":
			replyJSON(409, `{"error":null}`)(w, r)
		case "/html":
			w.WriteHeader(502)
			io.WriteString(w, "<html>bad gateway</html>")
		default:
			replyJSON(409, `{"message":"conflict","status":1}`)(w, r)
		}
	}), kit.WithErrorModel[rootErr]())
	_, err := kit.Get[kit.NoParams, any]("/root").Call(t.Context(), c, kit.NoParams{})
	var he *kit.HTTPError
	if !errors.As(err, &he) {
		t.Fatal(err)
	}
	if m, ok := he.Model.(*rootErr); !ok || m.Message != "conflict" || m.Status != 409 || m.ReqID != "r-9" {
		t.Fatalf("root model %#v", he.Model)
	}
	at := kit.WithErrorModelAt[rootErr]("error")
	for _, path := range []string{"/nokey", "/null", "/html"} {
		_, err := kit.Get[kit.NoParams, any](path, at).Call(t.Context(), c, kit.NoParams{})
		if !errors.As(err, &he) || he.Model != nil {
			t.Fatalf("%s: model %#v, %v", path, he.Model, err)
		}
	}

	type badHeader struct {
		ID int `kit:"X-Id,header"`
	}
	type noName struct {
		ID string `kit:",header"`
	}
	if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithErrorModel[badHeader]()); err == nil || !strings.Contains(err.Error(), "not a string") {
		t.Fatalf("int header field: %v", err)
	}
	if _, err := kit.NewEndpoint[kit.NoParams, any]("GET", "/x", kit.WithErrorModelAt[noName]("error")); err == nil || !strings.Contains(err.Error(), "header name") {
		t.Fatalf("header field without a name: %v", err)
	}
	if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithErrorModelAt[rootErr]("a.")); err == nil || !strings.Contains(err.Error(), "WithErrorModelAt") {
		t.Fatalf("bad path: %v", err)
	}
}

// A Result[T] returned with an error can be read, whatever the error.
func TestResultOnErrorIsReadable(t *testing.T) {
	t.Parallel()
	ep := kit.Get[struct{ ID int }, kit.Result[rtItem]]("/items/{id}")
	for _, tw := range twins {
		_, b := tw.setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Why", "scripted")
			replyJSON(503, `{}`)(w, r)
		}))
		r, err := twinCall(t.Context(), tw, ep, b, struct{ ID int }{1})
		if err == nil || r.StatusCode != 503 || r.Header.Get("X-Why") != "scripted" {
			t.Errorf("%s after a 503: %d %v, %v", tw.name, r.StatusCode, r.Header, err)
		}
		// Errors with no response: an empty one.
		r, err = twinCall(t.Context(), tw, ep, nil, struct{ ID int }{1})
		if err == nil || r.StatusCode != 0 || r.Header.Get("X-Why") != "" || r.Request != nil {
			t.Errorf("%s with a nil binding: %+v, %v", tw.name, r, err)
		}
		r, err = twinCall(t.Context(), tw, ep, b, struct{ ID int }{1}, kit.WithTimeout(-1))
		if err == nil || r.Response == nil {
			t.Errorf("%s with a bad call option: %+v, %v", tw.name, r, err)
		}
	}
	var zero *kit.Endpoint[kit.NoParams, kit.Result[rtItem]]
	if r, err := zero.Call(t.Context(), nil, kit.NoParams{}); err == nil || r.Response == nil {
		t.Errorf("an undeclared endpoint: %+v, %v", r, err)
	}
	// A body that does not decode keeps its response.
	_, c := setup(t, replyJSON(200, `{"id":"not a number"}`))
	r, err := kit.Get[kit.NoParams, kit.Result[rtItem]]("/x").Call(t.Context(), c, kit.NoParams{})
	if err == nil || r.StatusCode != 200 || r.Value != (rtItem{}) {
		t.Errorf("a body that does not decode: %+v, %v", r, err)
	}
}

package kit_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kithttp/kit"
)

// emRoot is an API's usual error model.
type emRoot struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *emRoot) Error() string { return e.Code + ": " + e.Message }

// emFlow is the model of one endpoint's 400: a login flow with the form's
// messages. Its id is required.
type emFlow struct {
	ID string `json:"id" kit:",required"`
	UI struct {
		Messages []struct {
			Text string `json:"text"`
		} `json:"messages"`
	} `json:"ui"`
}

func (e *emFlow) Error() string { return "login flow " + e.ID }

// emOther is a third model, for calls that set their own.
type emOther struct {
	Code string `json:"code"`
	ID   string `json:"id"`
}

func (e *emOther) Error() string { return "other " + e.Code }

// emServer answers /login with the status of its ?status= and a login
// flow for 400, the usual model for the rest; /wrong answers 400 with
// the usual model (not a flow).
func emServer() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("status") == "500" {
			replyJSON(500, `{"code":"internal","message":"boom"}`)(w, r)
			return
		}
		replyJSON(400, `{"id":"f1","ui":{"messages":[{"text":"wrong password"}]}}`)(w, r)
	})
	mux.HandleFunc("/wrong", replyJSON(400, `{"code":"bad_request","message":"no"}`))
	return mux
}

type emParams struct {
	Status string `kit:"status,query,omitempty"`
}

func TestErrorModelForStatus(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			_, b := tw.setup(t, emServer(), kit.WithErrorModel[emRoot]())
			login := kit.Post[emParams, any]("/login", kit.WithErrorModelFor[emFlow](http.StatusBadRequest))

			// 400: the endpoint's model for 400.
			_, err := twinCall(ctx, tw, login, b, emParams{})
			var flow *emFlow
			if !errors.As(err, &flow) || flow.ID != "f1" || len(flow.UI.Messages) != 1 || flow.UI.Messages[0].Text != "wrong password" {
				t.Fatalf("400: err = %v, flow %+v", err, flow)
			}
			var root *emRoot
			if errors.As(err, &root) {
				t.Errorf("400: the client's model was decoded too: %+v", root)
			}
			// 500: the endpoint has no model for it; the client's applies.
			_, err = twinCall(ctx, tw, login, b, emParams{"500"})
			if !errors.As(err, &root) || root.Code != "internal" || errors.As(err, &flow) {
				t.Fatalf("500: err = %v, want the client's model", err)
			}

			// A call's model for every status wins over the endpoint's 400.
			_, err = twinCall(ctx, tw, login, b, emParams{}, kit.WithErrorModel[emOther]())
			var other *emOther
			if !errors.As(err, &other) || errors.As(err, &flow) {
				t.Fatalf("call's WithErrorModel: %v", err)
			}
			// A call's model for 500 leaves the endpoint's 400 in force.
			_, err = twinCall(ctx, tw, login, b, emParams{}, kit.WithErrorModelFor[emOther](500))
			if !errors.As(err, &flow) || errors.As(err, &other) {
				t.Fatalf("call's 500 model, a 400: %v", err)
			}
			_, err = twinCall(ctx, tw, login, b, emParams{"500"}, kit.WithErrorModelFor[emOther](500))
			if !errors.As(err, &other) || other.Code != "internal" {
				t.Fatalf("call's 500 model, a 500: %v", err)
			}

			// A 400 that is not a login flow (no id) gives no model at all:
			// not an all-zero flow.
			wrong := kit.Get[kit.NoParams, any]("/wrong", kit.WithErrorModelFor[emFlow](400))
			_, err = twinCall(ctx, tw, wrong, b, kit.NoParams{})
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.Model != nil || errors.As(err, &flow) {
				t.Fatalf("a 400 without the flow's id: %v (Model %#v)", err, he.Model)
			}
		})
	}
}

// TestErrorModelForLevels: the client's per-status model over its model
// for every status; the same status given twice at one level, the last wins.
func TestErrorModelForLevels(t *testing.T) {
	t.Parallel()
	_, c := setup(t, emServer(), kit.WithErrorModelFor[emOther](400), kit.WithErrorModel[emRoot](), kit.WithErrorModelFor[emFlow](400))
	ctx := t.Context()
	login := kit.Post[emParams, any]("/login")
	_, err := login.Call(ctx, c, emParams{})
	var flow *emFlow
	if !errors.As(err, &flow) {
		t.Fatalf("the client's last model for 400: %v", err)
	}
	_, err = login.Call(ctx, c, emParams{"500"})
	var root *emRoot
	if !errors.As(err, &root) {
		t.Fatalf("the client's model for the other statuses: %v", err)
	}
	// Resource operations and declarations without models use the client's.
	_, err = kit.NewResource[emRoot](c, "/wrong").Get(ctx, 1)
	var he *kit.HTTPError
	if !errors.As(err, &he) {
		t.Fatal(err)
	}
}

func TestErrorModelForBadOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opt  kit.RequestOption
		want string
	}{
		{kit.WithErrorModelFor[emRoot](), "no status given"},
		{kit.WithErrorModelFor[emRoot](400, 200), "200 is not an error status"},
		{kit.WithErrorModelFor[struct {
			N int `kit:"X,header"`
		}](400), "WithErrorModelFor["},
	} {
		if _, err := kit.NewClient("http://127.0.0.1:1", tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewClient(%v): %v, want %q", tc.opt, err, tc.want)
		}
		if _, err := kit.NewEndpoint[kit.NoParams, any]("GET", "/x", tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewEndpoint(%v): %v, want %q", tc.opt, err, tc.want)
		}
	}
	if got := fmt.Sprint(kit.WithErrorModelFor[emRoot](400, 422)); got != "kit.WithErrorModelFor[kit_test.emRoot](400, 422)" {
		t.Errorf("String = %q", got)
	}
}

// emEmbedded has its members in an embedded struct.
type emEmbedded struct {
	emRoot
	Status int    `json:"-" kit:",status"`
	Trace  string `kit:"X-Trace,header"`
}

// emRequired requires its code.
type emRequired struct {
	Code    string `json:"code" kit:",required"`
	Message string `json:"message"`
}

// TestErrorModelShape: a body that is not the model leaves Model nil, so
// that errors.As never finds an all-zero model.
func TestErrorModelShape(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	bodies := map[string]string{
		"other":    `{"error":"not found","detail":"x"}`,
		"empty":    `{}`,
		"string":   `"bad"`,
		"number":   `42`,
		"array":    `[{"code":"x"}]`,
		"upper":    `{"CODE":"x"}`,
		"message":  `{"message":"m"}`,
		"zero":     `{"code":"","message":""}`,
		"bad":      `{"code":1}`,
		"trailing": `{"code":"x"} x`,
	}
	for name, body := range bodies {
		mux.HandleFunc("/"+name, replyJSON(422, body))
	}
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(502)
		io.WriteString(w, "<html>bad gateway</html>")
	})
	_, c := setup(t, mux)
	for _, tc := range []struct {
		path string
		opt  kit.RequestOption
		want bool // a model is decoded
	}{
		{"/other", kit.WithErrorModel[emRoot](), false},
		{"/empty", kit.WithErrorModel[emRoot](), false},
		{"/string", kit.WithErrorModel[emRoot](), false},
		{"/number", kit.WithErrorModel[emRoot](), false},
		{"/array", kit.WithErrorModel[emRoot](), false},
		{"/html", kit.WithErrorModel[emRoot](), false},
		{"/bad", kit.WithErrorModel[emRoot](), false},
		{"/trailing", kit.WithErrorModel[emRoot](), false},
		{"/upper", kit.WithErrorModel[emRoot](), true},
		{"/message", kit.WithErrorModel[emRoot](), true},
		{"/zero", kit.WithErrorModel[emRoot](), true},
		{"/message", kit.WithErrorModel[emEmbedded](), true},
		{"/other", kit.WithErrorModel[emEmbedded](), false},
		{"/message", kit.WithErrorModel[emRequired](), false},
		{"/zero", kit.WithErrorModel[emRequired](), true},
		{"/upper", kit.WithErrorModelFor[emRequired](422), true},
		{"/other", kit.WithErrorModel[struct{}](), true}, // names no member: any object
		{"/string", kit.WithErrorModel[struct{}](), false},
		{"/string", kit.WithErrorModel[string](), true}, // not a struct: what decodes
	} {
		_, err := kit.Get[kit.NoParams, any](tc.path, tc.opt).Call(t.Context(), c, kit.NoParams{})
		var he *kit.HTTPError
		if !errors.As(err, &he) {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if got := he.Model != nil; got != tc.want {
			t.Errorf("%s with %v: Model %#v, want a model: %v", tc.path, tc.opt, he.Model, tc.want)
		}
	}
}

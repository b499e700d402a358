package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// optRec is the record of the request option tests' collection.
type optRec struct {
	ID int `json:"id"`
}

// optAPIError is an error model of the request option tests.
type optAPIError struct {
	Code string `json:"code"`
}

func (e *optAPIError) Error() string { return "api error " + e.Code }

// otherAPIError is a second error model, to tell levels apart.
type otherAPIError struct {
	Code string `json:"code"`
}

func (e *otherAPIError) Error() string { return "other error " + e.Code }

// optServer answers the request option tests:
//
//	/echo        the X-A header's values, as {"a":[...],"data":{"a":[...]},"key":...}
//	/items       pages of one record, ?page=1..10, as a JSON array
//	/big         a 2xx body of 100 bytes
//	/fail        a 400 {"code":"bad"}
//	/slow        [] after 300ms, or nothing when the request ends first
//	/hang        never answers (it returns when the request ends)
//	/flaky       a 503, then [], and so on
func optServer(t *testing.T, tw twin, opts ...kit.Option) (kit.Binding, *atomic.Int64) {
	t.Helper()
	var flaky atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		vals := r.Header.Values("X-A")
		key := r.Header.Get("X-Key") + r.Header.Get("Idempotency-Key")
		_ = json.NewEncoder(w).Encode(map[string]any{"a": vals, "data": map[string]any{"a": vals}, "key": key})
	})
	mux.HandleFunc("/echo/{id}", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"id": 1, "data": map[string]any{"id": 2}})
	})
	mux.HandleFunc("/items", func(w http.ResponseWriter, r *http.Request) {
		p, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if p < 1 || p > 10 {
			_, _ = w.Write([]byte("[]"))
			return
		}
		fmt.Fprintf(w, `[{"id":%d}]`, p)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"pad":"` + strings.Repeat("x", 90) + `"}`))
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"code":"bad"}`))
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers: any timeout passes first
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(300 * time.Millisecond):
			_, _ = w.Write([]byte(`[]`))
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		if flaky.Add(1)%2 == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`[]`))
	})
	_, b := tw.setup(t, mux, opts...)
	return b, &flaky
}

type optEcho struct {
	A   []string `json:"a"`
	Key string   `json:"key"`
}

// walkCount walks a collection and counts its records.
func walkCount[T any](t *testing.T, seq func(yield func(T, error) bool)) int {
	t.Helper()
	n := 0
	for _, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// resourceOf is NewResource or NewAsyncResource's walk and Get, for twins.
type twinResource[T any] struct {
	tw    twin
	sync  *kit.Resource[T]
	async *kit.AsyncResource[T]
}

func newTwinResource[T any](tw twin, b kit.Binding, path string, opts ...kit.ResourceOption) twinResource[T] {
	if tw.async {
		return twinResource[T]{tw: tw, async: kit.NewAsyncResource[T](b, path, opts...)}
	}
	return twinResource[T]{tw: tw, sync: kit.NewResource[T](b, path, opts...)}
}

func (r twinResource[T]) get(ctx context.Context, id any, opts ...kit.CallOption) (T, error) {
	if r.async != nil {
		return r.async.Get(ctx, id, opts...).Await(ctx)
	}
	return r.sync.Get(ctx, id, opts...)
}

func (r twinResource[T]) all(ctx context.Context, opts ...kit.CallOption) func(yield func(T, error) bool) {
	if r.async != nil {
		return r.async.All(ctx, opts...)
	}
	return r.sync.All(ctx, opts...)
}

func (r twinResource[T]) list(ctx context.Context, opts ...kit.CallOption) ([]T, error) {
	if r.async != nil {
		return r.async.List(ctx, nil, opts...).Await(ctx)
	}
	return r.sync.List(ctx, nil, opts...)
}

// TestRequestOptionHeaderLevels checks WithHeader on a client, an
// endpoint, a resource and a call: the nearest level's values replace the
// others' of that key.
func TestRequestOptionHeaderLevels(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			b, _ := optServer(t, tw, kit.WithHeader("X-A", "client"))
			ctx := t.Context()
			plain := kit.Get[kit.NoParams, optEcho]("/echo")
			declared := kit.Get[kit.NoParams, optEcho]("/echo", kit.WithHeader("X-A", "endpoint"), kit.WithHeader("X-A", "endpoint2"))
			for _, tt := range []struct {
				name string
				ep   *kit.Endpoint[kit.NoParams, optEcho]
				opts []kit.CallOption
				want string
			}{
				{"client", plain, nil, "client"},
				{"endpoint over client", declared, nil, "endpoint endpoint2"},
				{"call over endpoint", declared, []kit.CallOption{kit.WithHeader("X-A", "call")}, "call"},
			} {
				got, err := twinCall(ctx, tw, tt.ep, b, kit.NoParams{}, tt.opts...)
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				if s := strings.Join(got.A, " "); s != tt.want {
					t.Errorf("%s: X-A %q, want %q", tt.name, s, tt.want)
				}
			}
			var seen []string
			mux := http.NewServeMux()
			mux.HandleFunc("/r", func(w http.ResponseWriter, r *http.Request) {
				seen = append(seen, strings.Join(r.Header.Values("X-A"), " "))
				_, _ = w.Write([]byte(`[]`))
			})
			_, b2 := tw.setup(t, mux, kit.WithHeader("X-A", "client"))
			r2 := newTwinResource[optRec](tw, b2, "/r", kit.WithHeader("X-A", "resource"))
			if n := walkCount(t, r2.all(ctx)); n != 0 {
				t.Fatalf("%d records", n)
			}
			if n := walkCount(t, r2.all(ctx, kit.WithHeader("X-A", "call"))); n != 0 {
				t.Fatalf("%d records", n)
			}
			if got := strings.Join(seen, "|"); got != "resource|call" {
				t.Errorf("a resource's walks sent X-A %q, want resource|call", got)
			}
		})
	}
}

// TestRequestOptionTimeoutLevels checks WithTimeout on a client (new in
// v0.4.0): it bounds a call, and a declaration's or a call's wins over it.
func TestRequestOptionTimeoutLevels(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			b, _ := optServer(t, tw, kit.WithTimeout(100*time.Millisecond))
			ctx := t.Context()
			// The client's timeout against a server that never answers (a
			// 300ms answer could win on a loaded machine), then the longer
			// timeouts against a 300ms answer.
			hang := kit.Get[kit.NoParams, any]("/hang")
			if _, err := twinCall(ctx, tw, hang, b, kit.NoParams{}); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("client WithTimeout(100ms) on a call never answered: %v, want context.DeadlineExceeded", err)
			}
			if _, err := twinCall(ctx, tw, hang, b, kit.NoParams{}, kit.WithHeader("X-A", "1")); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("client WithTimeout(100ms) on a call with options of its own: %v, want context.DeadlineExceeded", err)
			}
			var walkErr error
			for _, err := range newTwinResource[optRec](tw, b, "/hang").all(ctx) {
				walkErr = err
			}
			if !errors.Is(walkErr, context.DeadlineExceeded) {
				t.Fatalf("client WithTimeout(100ms) on a walk's page: %v, want context.DeadlineExceeded", walkErr)
			}
			patient := kit.Get[kit.NoParams, any]("/slow", kit.WithTimeout(time.Minute))
			if _, err := twinCall(ctx, tw, patient, b, kit.NoParams{}); err != nil {
				t.Fatalf("the endpoint's WithTimeout(1m) over the client's: %v", err)
			}
			slow := kit.Get[kit.NoParams, any]("/slow")
			if _, err := twinCall(ctx, tw, slow, b, kit.NoParams{}, kit.WithTimeout(time.Minute)); err != nil {
				t.Fatalf("the call's WithTimeout(1m) over the client's: %v", err)
			}
			res := newTwinResource[struct{}](tw, b, "/slow", kit.WithTimeout(time.Minute))
			if _, err := res.list(ctx); err != nil {
				t.Fatalf("the resource's WithTimeout(1m) over the client's: %v", err)
			}
			if _, err := twinCall(ctx, tw, slow, b, kit.NoParams{}, kit.WithTimeout(0)); err == nil || !strings.Contains(err.Error(), "WithTimeout(0s): must be positive") {
				t.Fatalf("WithTimeout(0) on a call: %v", err)
			}
		})
	}
	if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithTimeout(-time.Second)); err == nil || !strings.Contains(err.Error(), "WithTimeout(-1s): must be positive") {
		t.Fatalf("WithTimeout(-1s) on NewClient: %v", err)
	}
	c := newClient(t, "http://127.0.0.1:1")
	if _, err := kit.NewResource[optRec](c, "/x", kit.WithTimeout(0)).Get(t.Context(), 1); err == nil || !strings.Contains(err.Error(), "WithTimeout(0s)") {
		t.Fatalf("WithTimeout(0) on a resource: %v", err)
	}
}

// TestRequestOptionMaxBodySizeLevels checks that a call's WithMaxBodySize
// wins over the endpoint's and the client's, and a resource's over the
// client's.
func TestRequestOptionMaxBodySizeLevels(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			b, _ := optServer(t, tw, kit.WithMaxBodySize(10))
			ctx := t.Context()
			big := kit.Get[kit.NoParams, any]("/big")
			if _, err := twinCall(ctx, tw, big, b, kit.NoParams{}); !errors.Is(err, kit.ErrBodyTooLarge) {
				t.Fatalf("the client's limit of 10: %v", err)
			}
			if _, err := twinCall(ctx, tw, big, b, kit.NoParams{}, kit.WithMaxBodySize(1000)); err != nil {
				t.Fatalf("the call's limit of 1000 over the client's: %v", err)
			}
			small := kit.Get[kit.NoParams, any]("/big", kit.WithMaxBodySize(1000))
			if _, err := twinCall(ctx, tw, small, b, kit.NoParams{}); err != nil {
				t.Fatalf("the endpoint's limit of 1000 over the client's: %v", err)
			}
			if _, err := twinCall(ctx, tw, small, b, kit.NoParams{}, kit.WithMaxBodySize(10)); !errors.Is(err, kit.ErrBodyTooLarge) {
				t.Fatalf("the call's limit of 10 over the endpoint's: %v", err)
			}
			res := newTwinResource[any](tw, b, "/big", kit.WithMaxBodySize(1000))
			if _, err := res.list(ctx); err == nil || errors.Is(err, kit.ErrBodyTooLarge) {
				// The body is an object, not a page of records: the
				// decoding fails, after the limit let it through.
				t.Fatalf("the resource's limit of 1000 over the client's: %v", err)
			}
		})
	}
}

// TestRequestOptionErrorModelCall checks WithErrorModel on a call, over
// the client's and the endpoint's.
func TestRequestOptionErrorModelCall(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			b, _ := optServer(t, tw, kit.WithErrorModel[optAPIError]())
			ctx := t.Context()
			fail := kit.Get[kit.NoParams, any]("/fail")
			_, err := twinCall(ctx, tw, fail, b, kit.NoParams{})
			var ae *optAPIError
			if !errors.As(err, &ae) || ae.Code != "bad" {
				t.Fatalf("the client's model: %v", err)
			}
			_, err = twinCall(ctx, tw, fail, b, kit.NoParams{}, kit.WithErrorModel[otherAPIError]())
			var oe *otherAPIError
			if !errors.As(err, &oe) || oe.Code != "bad" || errors.As(err, &ae) {
				t.Fatalf("the call's model over the client's: %v", err)
			}
			declared := kit.Get[kit.NoParams, any]("/fail", kit.WithErrorModel[otherAPIError]())
			_, err = twinCall(ctx, tw, declared, b, kit.NoParams{}, kit.WithErrorModelAt[optAPIError]("nope"))
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.Model != nil {
				t.Fatalf("the call's WithErrorModelAt over the endpoint's model: %v (%#v)", err, he)
			}
			_, err = twinCall(ctx, tw, fail, b, kit.NoParams{}, kit.WithBodyCheck[optAPIError](nil))
			if err == nil || !strings.Contains(err.Error(), "the check is nil") {
				t.Fatalf("WithBodyCheck(nil) on a call: %v", err)
			}
		})
	}
}

// TestRequestOptionBodyCheckCall checks WithBodyCheck on a call and on a
// resource.
func TestRequestOptionBodyCheckCall(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			b, _ := optServer(t, tw)
			ctx := t.Context()
			bad := errors.New("no X-A")
			check := kit.WithBodyCheck(func(e *optEcho) error {
				if len(e.A) == 0 {
					return bad
				}
				return nil
			})
			echo := kit.Get[kit.NoParams, optEcho]("/echo")
			if _, err := twinCall(ctx, tw, echo, b, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			if _, err := twinCall(ctx, tw, echo, b, kit.NoParams{}, check); !errors.Is(err, bad) {
				t.Fatalf("the call's body check: %v", err)
			}
			if _, err := twinCall(ctx, tw, echo, b, kit.NoParams{}, check, kit.WithHeader("X-A", "1")); err != nil {
				t.Fatalf("the call's body check, passed: %v", err)
			}
			res := newTwinResource[optEcho](tw, b, "/echo", check)
			if _, err := res.list(ctx); !errors.Is(err, bad) {
				t.Fatalf("the resource's body check: %v", err)
			}
		})
	}
}

// TestRequestOptionResultAtLevels checks WithResultAt on a client (every
// endpoint and resource operation whose result is decoded from JSON), a
// declaration and a call, and where it is an error.
func TestRequestOptionResultAtLevels(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			b, _ := optServer(t, tw, kit.WithResultAt("data"), kit.WithHeader("X-A", "v"))
			ctx := t.Context()
			type wrapped struct {
				Data optEcho `json:"data"`
			}
			inner := kit.Get[kit.NoParams, optEcho]("/echo")
			got, err := twinCall(ctx, tw, inner, b, kit.NoParams{})
			if err != nil || len(got.A) != 1 {
				t.Fatalf("the client's WithResultAt(data): %+v, %v", got, err)
			}
			whole, err := twinCall(ctx, tw, kit.Get[kit.NoParams, wrapped]("/echo"), b, kit.NoParams{}, kit.WithResultAt("data.a"))
			if err == nil {
				t.Fatalf("the call's WithResultAt(data.a) decoded an array into a struct: %+v", whole)
			}
			resp, err := twinCall(ctx, tw, kit.Get[kit.NoParams, *kit.Response]("/echo"), b, kit.NoParams{})
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("a *Response endpoint ignores the client's WithResultAt: %v", err)
			}
			if _, err := twinCall(ctx, tw, kit.Get[kit.NoParams, *kit.Response]("/echo"), b, kit.NoParams{}, kit.WithResultAt("data")); err == nil || !strings.Contains(err.Error(), "not decoded from JSON") {
				t.Fatalf("the call's WithResultAt on a *Response endpoint: %v", err)
			}
			var vals []string
			vs := kit.Get[kit.NoParams, []string]("/echo", kit.WithResultAt("a"))
			if vals, err = twinCall(ctx, tw, vs, b, kit.NoParams{}); err != nil || len(vals) != 1 {
				t.Fatalf("the endpoint's WithResultAt(a) over the client's: %v, %v", vals, err)
			}
			if vals, err = twinCall(ctx, tw, vs, b, kit.NoParams{}, kit.WithResultAt("data.a")); err != nil || len(vals) != 1 {
				t.Fatalf("the call's WithResultAt(data.a) over the endpoint's: %v, %v", vals, err)
			}
			// A resource's Get is decoded at the client's key; its walks
			// ignore it (the paginator says where records are), and a
			// walk refuses a call's.
			res := newTwinResource[optRec](tw, b, "/echo")
			rec, err := res.get(ctx, 1)
			if err != nil || rec.ID != 2 {
				t.Fatalf("a resource's Get under the client's WithResultAt(data): %+v, %v", rec, err)
			}
			rec, err = newTwinResource[optRec](tw, b, "/echo", kit.WithResultAt("data.id")).get(ctx, 1, kit.WithResultAt("data"))
			if err != nil || rec.ID != 2 {
				t.Fatalf("a call's WithResultAt over the resource's: %+v, %v", rec, err)
			}
			items := newTwinResource[optRec](tw, b, "/items", kit.PagedBy(kit.PageNumber{PageSize: 1}))
			if n := walkCount(t, items.all(ctx)); n != 10 {
				t.Fatalf("a walk under the client's WithResultAt: %d records, want 10", n)
			}
			var walkErr error
			for _, err := range items.all(ctx, kit.WithResultAt("data")) {
				walkErr = err
			}
			if walkErr == nil || !strings.Contains(walkErr.Error(), "WithResultAt") {
				t.Fatalf("WithResultAt on a walk: %v", walkErr)
			}
			if _, err := items.list(ctx, kit.WithResultAt("data")); err == nil || !strings.Contains(err.Error(), "WithResultAt") {
				t.Fatalf("WithResultAt on a List: %v", err)
			}
		})
	}
}

// TestRequestOptionMaxPagesLevels checks WithMaxPages on a client, a paged
// endpoint, a resource and a walk, and that it is an error on a call that
// is not a walk.
func TestRequestOptionMaxPagesLevels(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			b, _ := optServer(t, tw, kit.WithMaxPages(2))
			ctx := t.Context()
			by := kit.PagedBy(kit.PageNumber{PageSize: 1})
			iterate := func(ep *kit.PagedEndpoint[kit.NoParams, optRec], opts ...kit.CallOption) func(func(optRec, error) bool) {
				if tw.async {
					return ep.GoIterate(ctx, b, kit.NoParams{}, opts...)
				}
				return ep.Iterate(ctx, b, kit.NoParams{}, opts...)
			}
			plain := kit.Paged[kit.NoParams, optRec]("/items", by)
			if n := walkCount(t, iterate(plain)); n != 2 {
				t.Errorf("the client's WithMaxPages(2): %d pages", n)
			}
			if n := walkCount(t, iterate(plain, kit.WithMaxPages(5))); n != 5 {
				t.Errorf("the call's WithMaxPages(5) over the client's: %d pages", n)
			}
			if n := walkCount(t, iterate(plain, kit.WithMaxPages(0))); n != 10 {
				t.Errorf("the call's WithMaxPages(0) (no bound) over the client's: %d pages", n)
			}
			three := kit.Paged[kit.NoParams, optRec]("/items", by, kit.WithMaxPages(3))
			if n := walkCount(t, iterate(three)); n != 3 {
				t.Errorf("the endpoint's WithMaxPages(3) over the client's: %d pages", n)
			}
			if n := walkCount(t, iterate(three, kit.WithMaxPages(4), kit.WithPrefetch(2))); n != 4 {
				t.Errorf("the call's WithMaxPages(4) over the endpoint's: %d pages", n)
			}
			res := newTwinResource[optRec](tw, b, "/items", by, kit.WithMaxPages(6))
			if n := walkCount(t, res.all(ctx)); n != 6 {
				t.Errorf("the resource's WithMaxPages(6): %d pages", n)
			}
			if n := walkCount(t, res.all(ctx, kit.WithMaxPages(1))); n != 1 {
				t.Errorf("the call's WithMaxPages(1) over the resource's: %d pages", n)
			}
			if _, err := res.list(ctx, kit.WithMaxPages(1)); err == nil || !strings.Contains(err.Error(), "kit.WithMaxPages applies to a walk") {
				t.Errorf("WithMaxPages on a List: %v", err)
			}
			one := kit.Get[kit.NoParams, []optRec]("/items")
			if _, err := twinCall(ctx, tw, one, b, kit.NoParams{}, kit.WithPrefetch(1)); err == nil || !strings.Contains(err.Error(), "kit.WithPrefetch applies to a walk") {
				t.Errorf("WithPrefetch on a call: %v", err)
			}
		})
	}
}

// TestRequestOptionRetryResource checks WithRetry on a resource (every
// operation's policy) and NoRetry on one of its calls.
func TestRequestOptionRetryResource(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			b, flaky := optServer(t, tw)
			ctx := t.Context()
			res := newTwinResource[struct{}](tw, b, "/flaky", kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
			if _, err := res.list(ctx); err != nil {
				t.Fatalf("the resource's WithRetry: %v", err)
			}
			if got := flaky.Load(); got != 2 {
				t.Fatalf("%d requests, want 2", got)
			}
			var he *kit.HTTPError
			if _, err := res.list(ctx, kit.NoRetry()); !errors.As(err, &he) || he.StatusCode != 503 {
				t.Fatalf("NoRetry on a call of the resource: %v", err)
			}
			if got := flaky.Load(); got != 3 {
				t.Fatalf("%d requests, want 3", got)
			}
		})
	}
}

// TestRequestOptionIdempotencyHeaderLevels checks WithIdempotencyHeader
// on a call (new in v0.4.0), over the client's.
func TestRequestOptionIdempotencyHeaderLevels(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			b, _ := optServer(t, tw, kit.WithIdempotencyHeader("X-Other"))
			ctx := t.Context()
			post := kit.Post[kit.NoParams, optEcho]("/echo")
			got, err := twinCall(ctx, tw, post, b, kit.NoParams{}, kit.WithIdempotencyHeader("X-Key"))
			if err != nil || len(got.Key) != 36 {
				t.Fatalf("the call's WithIdempotencyHeader(X-Key): key %q, %v", got.Key, err)
			}
			got, err = twinCall(ctx, tw, post, b, kit.NoParams{}, kit.WithIdempotencyHeader(""), kit.IdempotencyKey("k1"))
			if err != nil || got.Key != "k1" {
				t.Fatalf("IdempotencyKey in the call's WithIdempotencyHeader(\"\"): key %q, %v", got.Key, err)
			}
			if _, err := twinCall(ctx, tw, post, b, kit.NoParams{}, kit.WithIdempotencyHeader("a b")); err == nil || !strings.Contains(err.Error(), `WithIdempotencyHeader("a b"): the header name is not an HTTP token`) {
				t.Fatalf("a bad header on a call: %v", err)
			}
		})
	}
}

// TestLimitsOption checks WithLimits's validation and that it sets what it
// says.
func TestLimitsOption(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		l    kit.Limits
		want string
	}{
		{kit.Limits{Rate: -1}, "Rate must be positive and finite"},
		{kit.Limits{Burst: 2}, "Burst goes with Rate"},
		{kit.Limits{Rate: 1, Limiter: nopLimiter{}}, "not both"},
		{kit.Limits{ServerMaxWait: -time.Second}, "ServerMaxWait must not be negative"},
		{kit.Limits{MaxInFlight: -1}, "MaxInFlight must not be negative"},
	} {
		if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithLimits(tt.l)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want %q", tt.l, err, tt.want)
		}
	}
	if s := fmt.Sprint(kit.WithLimits(kit.Limits{Rate: 10, Burst: 5, MaxInFlight: 2})); s != "kit.WithLimits(kit.Limits{Rate: 10, Burst: 5, MaxInFlight: 2})" {
		t.Errorf("String: %s", s)
	}
	var waits atomic.Int64
	_, c := setup(t, replyJSON(200, `{}`), kit.WithLimits(kit.Limits{Limiter: countLimiter{&waits}}))
	if _, err := kit.Get[kit.NoParams, any]("/").Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	if waits.Load() != 1 {
		t.Fatalf("the Limits' Limiter waited %d times, want 1", waits.Load())
	}
}

type nopLimiter struct{}

func (nopLimiter) Wait(context.Context) error { return nil }

type countLimiter struct{ n *atomic.Int64 }

func (l countLimiter) Wait(context.Context) error { l.n.Add(1); return nil }

// TestTypedEngineOptions checks WithSyncEngine and WithAsyncEngine: an
// engine of both protocols serves both.
func TestTypedEngineOptions(t *testing.T) {
	t.Parallel()
	srv := serve(t, replyJSON(200, `{}`))
	ep := kit.Get[kit.NoParams, any]("/")
	c := newClient(t, srv.URL, kit.WithSyncEngine(srv.Client()))
	if _, err := ep.Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ep.Go(t.Context(), c, kit.NoParams{}).Await(t.Context()); !errors.As(err, new(*kit.EngineError)) {
		t.Fatalf("Go through a sync-only engine: %v", err)
	}
	if _, err := kit.NewClient(srv.URL, kit.WithSyncEngine(nil)); err == nil || !strings.Contains(err.Error(), "WithSyncEngine(nil)") {
		t.Fatalf("WithSyncEngine(nil): %v", err)
	}
	if _, err := kit.NewAsyncClient(srv.URL, kit.WithAsyncEngine(nil)); err == nil || !strings.Contains(err.Error(), "WithAsyncEngine(nil)") {
		t.Fatalf("WithAsyncEngine(nil): %v", err)
	}
}

// TestRequestOptionStrings checks that every request option prints as its
// call, and that no verb shows a header's value.
func TestRequestOptionStrings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		o    kit.RequestOption
		want string
	}{
		{kit.WithTimeout(time.Second), "kit.WithTimeout(1s)"},
		{kit.NoRetry(), "kit.NoRetry()"},
		{kit.WithMaxBodySize(5), "kit.WithMaxBodySize(5)"},
		{kit.WithResultAt("a.b"), `kit.WithResultAt("a.b")`},
		{kit.WithIdempotencyHeader(""), `kit.WithIdempotencyHeader("Idempotency-Key")`},
		{kit.WithMaxPages(3), "kit.WithMaxPages(3)"},
		{kit.WithHeader("X-Secret", "hunter2"), `kit.WithHeader("X-Secret", ...)`},
	} {
		for _, verb := range []string{"%v", "%s", "%#v", "%d", "%+v"} {
			if got := fmt.Sprintf(verb, tt.o); got != tt.want {
				t.Errorf("%s of %s: %s", verb, tt.want, got)
			}
		}
	}
	if kit.WithTimeout(time.Second) != kit.WithTimeout(time.Second) || kit.WithHeader("a", "b") != kit.WithHeader("a", "b") {
		t.Error("equal request options are not ==")
	}
	r := kit.WithResultAt("a")
	if r2 := r; r != r2 {
		t.Error("a WithResultAt is not == itself")
	}
}

package kit_test

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// The rules of "Writes that are safe to retry".

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

var (
	ikPost   = kit.Post[struct{ Item rtItem }, rtItem]("/item")
	ikPut    = kit.Put[struct{ Item rtItem }, rtItem]("/item")
	ikPatch  = kit.Patch[struct{ Item rtItem }, rtItem]("/item")
	ikDelete = kit.Delete[kit.NoParams, *kit.Response]("/item")
	ikOwn    = kit.Post[struct{ Item rtItem }, rtItem]("/item", kit.WithIdempotencyKey("X-Request-Key"))
	ikParam  = kit.Post[struct {
		Key  string `kit:"Idempotency-Key,header"`
		Item rtItem
	}, rtItem]("/item")
)

func TestIdempotencyKeyOnEveryWrite(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			rec := newRecorder(replyJSON(200, `{"id":1}`))
			_, b := tw.setup(t, rec, kit.WithIdempotencyKey(""))
			ctx := t.Context()
			body := struct{ Item rtItem }{}
			calls := []func() error{
				func() error { _, err := twinCall(ctx, tw, ikPost, b, body); return err },
				func() error { _, err := twinCall(ctx, tw, ikPost, b, body); return err },
				func() error { _, err := twinCall(ctx, tw, ikPut, b, body); return err },
				func() error { _, err := twinCall(ctx, tw, ikPatch, b, body); return err },
				func() error { _, err := twinCall(ctx, tw, ikDelete, b, kit.NoParams{}); return err },
				func() error { _, err := twinCall(ctx, tw, rtGet, b, kit.NoParams{}); return err },
				func() error { _, err := twinCall(ctx, tw, ikOwn, b, body); return err },
			}
			for i, call := range calls {
				if err := call(); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			reqs := rec.requests()
			seen := map[string]bool{}
			for i, r := range reqs[:5] {
				k := r.Header.Get("Idempotency-Key")
				if !uuidV4.MatchString(k) || seen[k] {
					t.Errorf("%s: Idempotency-Key %q, want a fresh UUIDv4", reqs[i].Method, k)
				}
				seen[k] = true
			}
			if k := reqs[5].Header.Get("Idempotency-Key"); k != "" {
				t.Errorf("a GET got the key %q", k)
			}
			if own := reqs[6]; !uuidV4.MatchString(own.Header.Get("X-Request-Key")) || own.Header.Get("Idempotency-Key") != "" {
				t.Errorf("the endpoint's header: %v", own.Header)
			}
		})
	}
	// A resource's writes, through the client's option.
	rec := newRecorder(replyJSON(200, `{"id":1}`))
	_, c := setup(t, rec, kit.WithIdempotencyKey("Idem"))
	users := kit.NewResource[rtItem](c, "/users")
	if _, err := users.Create(t.Context(), rtItem{Name: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Patch(t.Context(), 1, rtItem{Name: "b"}, kit.IdempotencyKey("patch-1")); err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests()
	if !uuidV4.MatchString(reqs[0].Header.Get("Idem")) || reqs[1].Header.Get("Idem") != "patch-1" {
		t.Fatalf("resource keys: %q, %q", reqs[0].Header.Get("Idem"), reqs[1].Header.Get("Idem"))
	}
}

func TestIdempotencyKeyCallerWins(t *testing.T) {
	t.Parallel()
	rec := newRecorder(replyJSON(200, `{"id":1}`))
	_, plain := setup(t, rec)
	srv := serve(t, rec)
	keyed := newClient(t, srv.URL, kit.WithIdempotencyKey("X-Idem"))
	ctx := t.Context()
	body := struct{ Item rtItem }{}
	mustCall := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := ikPost.Call(ctx, plain, body, kit.IdempotencyKey("order-6735"))
	mustCall(err)
	_, err = ikPost.Call(ctx, keyed, body, kit.IdempotencyKey("order-6736"))
	mustCall(err)
	_, err = ikParam.Call(ctx, srvClient(t, srv.URL, kit.WithIdempotencyKey("")), struct {
		Key  string `kit:"Idempotency-Key,header"`
		Item rtItem
	}{Key: "from-param"})
	mustCall(err)
	_, err = ikPost.Call(ctx, srvClient(t, srv.URL, kit.WithIdempotencyKey("")), body, kit.WithHeader("Idempotency-Key", "from-header"))
	mustCall(err)
	_, err = rtGet.Call(ctx, plain, kit.NoParams{}, kit.IdempotencyKey("on-a-get"))
	mustCall(err)
	reqs := rec.requests()
	for i, want := range []struct{ header, value string }{
		{"Idempotency-Key", "order-6735"},
		{"X-Idem", "order-6736"},
		{"Idempotency-Key", "from-param"},
		{"Idempotency-Key", "from-header"},
		{"Idempotency-Key", "on-a-get"},
	} {
		if got := reqs[i].Header.Values(want.header); len(got) != 1 || got[0] != want.value {
			t.Errorf("request %d: %s = %q, want %q", i, want.header, got, want.value)
		}
	}
	if reqs[1].Header.Get("Idempotency-Key") != "" {
		t.Error("the caller's key went in two headers")
	}
}

func srvClient(t *testing.T, base string, opts ...kit.Option) *kit.Client {
	return newClient(t, base, opts...)
}

// The key is the same on every attempt and on the resend after a 401; a
// write with a key is retried like an idempotent one.
func TestIdempotencyKeySameOnRetriesAndResend(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			rec, n := scripted(func(i int, r *http.Request) int {
				switch {
				case r.Header.Get("Authorization") == "Bearer old":
					return 401
				case i < 3:
					return 503
				}
				return 0
			})
			var fetches atomic.Int32
			auth := kit.TokenAuth(func(context.Context) (kit.Token, error) {
				if fetches.Add(1) == 1 {
					return kit.Token{Value: "old"}, nil
				}
				return kit.Token{Value: "new"}, nil
			})
			_, b := tw.setup(t, rec, kit.WithAuth(auth), kit.WithRetry(rtFastRetry(5)), kit.WithIdempotencyKey(""))
			if _, err := twinCall(t.Context(), tw, ikPost, b, struct{ Item rtItem }{}); err != nil {
				t.Fatal(err)
			}
			reqs := rec.requests()
			if n.Load() != 4 {
				t.Fatalf("%d requests, want 4", n.Load())
			}
			key := reqs[0].Header.Get("Idempotency-Key")
			for i, r := range reqs {
				if r.Header.Get("Idempotency-Key") != key || !uuidV4.MatchString(key) {
					t.Errorf("request %d: key %q, want %q on every attempt", i, r.Header.Get("Idempotency-Key"), key)
				}
			}
			// Another call, another key.
			if _, err := twinCall(t.Context(), tw, ikPost, b, struct{ Item rtItem }{}); err != nil {
				t.Fatal(err)
			}
			if last := rec.requests()[4].Header.Get("Idempotency-Key"); last == key || !uuidV4.MatchString(last) {
				t.Errorf("the next call's key %q", last)
			}
		})
	}
}

// The method rule comes first: a write without a key or Idempotent() is
// sent once, except after a 429, which is a refusal before processing.
func TestRetryMethodRuleAndTooManyRequests(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		opts   []kit.CallOption
		want   int32
	}{
		{"503 without a key", 503, nil, 1},
		{"503 with a key", 503, []kit.CallOption{kit.IdempotencyKey("k")}, 3},
		{"429 without a key", 429, nil, 3},
		{"500 without a key", 500, nil, 1},
	} {
		var asked atomic.Int32
		rec, n := scripted(func(int, *http.Request) int { return tc.status })
		srv := serve(t, rec)
		p := rtFastRetry(3)
		p.RetryIf = func(err error) bool { asked.Add(1); return kit.Retryable(err) }
		c := newClient(t, srv.URL, kit.WithRetry(p))
		_, err := ikPost.Call(t.Context(), c, struct{ Item rtItem }{}, tc.opts...)
		var he *kit.HTTPError
		if !errors.As(err, &he) || he.StatusCode != tc.status || n.Load() != tc.want {
			t.Errorf("%s: %d attempts, %v; want %d", tc.name, n.Load(), err, tc.want)
		}
		if tc.want == 1 && tc.status == 503 && asked.Load() != 0 {
			t.Errorf("%s: RetryIf was asked about a write the method rule refuses", tc.name)
		}
	}
	// A connection error on a write without a key is not retried.
	var n atomic.Int32
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		panic(http.ErrAbortHandler)
	}))
	c := newClient(t, srv.URL, kit.WithRetry(rtFastRetry(3)))
	if _, err := ikPost.Call(t.Context(), c, struct{ Item rtItem }{}); err == nil || n.Load() != 1 {
		t.Fatalf("a cut write without a key: %d attempts, %v; want 1 and an error", n.Load(), err)
	}
}

// Stripe's case, on kittest's idempotent /payments: the answer of the
// first attempt is lost after the payment was made; the retry with the
// same key gets the first answer, and only one payment exists.
func TestIdempotencyKeyPaymentMadeOnce(t *testing.T) {
	t.Parallel()
	type newPayment struct {
		Amount   int64  `json:"amount"`
		Currency string `json:"currency"`
	}
	type params struct {
		LockTimeouts int `kit:"lock_timeouts"`
		LoseResponse int `kit:"lose_response"`
		Payment      newPayment
	}
	createPayment := kit.Post[params, kit.Result[kittest.Payment]]("/payments", kit.FormBody())
	shouldRetry := func(err error) bool {
		var he *kit.HTTPError
		if errors.As(err, &he) {
			switch he.Header.Get("Stripe-Should-Retry") {
			case "true":
				return true
			case "false":
				return false
			}
		}
		return kit.Retryable(err)
	}
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			api := kittest.NewAPI()
			p := rtFastRetry(4)
			p.RetryIf = shouldRetry
			_, b := tw.setup(t, api, kit.WithIdempotencyKey(""), kit.WithRetry(p), kit.WithErrorModelAt[kittest.StripeError]("error"))
			r, err := twinCall(t.Context(), tw, createPayment, b, params{1, 1, newPayment{2000, "eur"}})
			if err != nil {
				t.Fatal(err)
			}
			st := api.Stats()
			if r.Value.Amount != 2000 || r.Header.Get("Idempotent-Replayed") != "true" || st.Payments != 1 || st.IdempotentReplays < 1 {
				t.Fatalf("payment %+v replayed %q; stats %+v", r.Value, r.Header.Get("Idempotent-Replayed"), st)
			}
		})
	}
	// Without a key, the lost answer is not retried: it would pay twice.
	api := kittest.NewAPI()
	_, c := setup(t, api, kit.WithRetry(rtFastRetry(4)))
	if _, err := createPayment.Call(t.Context(), c, params{0, 1, newPayment{100, "eur"}}); err == nil || api.Stats().Payments != 1 {
		t.Fatalf("a write without a key after a lost answer: %v, %d payments; want an error and 1", err, api.Stats().Payments)
	}
	if n := api.Stats().ByPath["POST /payments"]; n != 1 {
		t.Fatalf("POST /payments sent %d times, want once", n)
	}
}

func TestWithIdempotencyKeyBadHeader(t *testing.T) {
	t.Parallel()
	if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithIdempotencyKey("Bad Header")); err == nil || !strings.Contains(err.Error(), "WithIdempotencyKey") {
		t.Fatalf("NewClient: %v", err)
	}
	_, err := kit.NewEndpoint[kit.NoParams, any]("POST", "/x", kit.WithIdempotencyKey("a:b"))
	var de *kit.DeclarationError
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "WithIdempotencyKey") {
		t.Fatalf("NewEndpoint: %v", err)
	}
}

// A walk sends one request a page: a caller's key, which names one request,
// is refused before anything is sent.
func TestIdempotencyKeyRefusedByWalks(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		rec := newRecorder(replyJSON(200, `{"data":[]}`))
		_, b := tw.setup(t, rec)
		walks := map[string]func() error{}
		if tw.async {
			walks["AsyncResource.All"] = func() error {
				for _, err := range kit.NewAsyncResource[rtItem](b, "/users").All(t.Context(), kit.IdempotencyKey("k")) {
					return err
				}
				return nil
			}
			walks["GoIterate"] = func() error {
				for _, err := range coPaged.GoIterate(t.Context(), b, kit.NoParams{}, kit.IdempotencyKey("k")) {
					return err
				}
				return nil
			}
		} else {
			walks["Resource.All"] = func() error {
				for _, err := range kit.NewResource[rtItem](b, "/users").All(t.Context(), kit.IdempotencyKey("k")) {
					return err
				}
				return nil
			}
			walks["Iterate"] = func() error {
				for _, err := range coPaged.Iterate(t.Context(), b, kit.NoParams{}, kit.IdempotencyKey("k")) {
					return err
				}
				return nil
			}
		}
		for name, walk := range walks {
			if err := walk(); err == nil || !strings.Contains(err.Error(), "IdempotencyKey names one request") {
				t.Errorf("%s %s: %v", tw.name, name, err)
			}
		}
		if n := len(rec.requests()); n != 0 {
			t.Errorf("%s: %d requests sent", tw.name, n)
		}
	}
}

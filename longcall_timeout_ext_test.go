package kit_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// The attempt and idle timeouts against kittest.FaultServer: a hang
// before the first byte, a body that stalls half way, an event stream
// that goes silent. The bounds are generous (a loaded machine must send a
// request well within them); what is checked is the outcome, never how
// long it took.

var ltGetUser = kit.Get[struct{ ID int }, faultUser]("/users/{id}")

type ltEventsParams struct {
	Count      int `kit:"count,omitempty"`
	DelayMS    int `kit:"delay_ms,omitempty"`
	StallAfter int `kit:"stall_after,omitempty"`
}

var ltEvents = kit.Get[ltEventsParams, *kit.Stream[kittest.Event]]("/events")

func TestAttemptTimeoutRetriesAHang(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			fs := kittest.NewFaultServer(t, nil)
			fs.Script(kittest.FaultHang, kittest.FaultHang)
			c := tw.client(t, fs.URL(), kit.WithRetry(rtFastRetry(4)), kit.WithAttemptTimeout(150*time.Millisecond))
			u, err := twinCall(t.Context(), tw, ltGetUser, c, struct{ ID int }{1})
			if err != nil || u.ID != 1 {
				t.Fatalf("got %+v, %v; want user 1 after two attempts that hung", u, err)
			}
			if n := fs.Requests(); n != 3 {
				t.Errorf("server saw %d requests, want 3", n)
			}
		})
	}
}

func TestAttemptTimeoutWithoutRetryFails(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			fs := kittest.NewFaultServer(t, nil)
			fs.Script(kittest.FaultHang)
			c := tw.client(t, fs.URL())
			// The call's option wins over nothing; the call's WithTimeout
			// is far longer, so the attempt's bound is what ends it.
			_, err := twinCall(t.Context(), tw, ltGetUser, c, struct{ ID int }{1},
				kit.WithAttemptTimeout(100*time.Millisecond), kit.WithTimeout(time.Minute))
			if !errors.Is(err, kit.ErrAttemptTimeout) {
				t.Fatalf("err = %v, want ErrAttemptTimeout", err)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v matches DeadlineExceeded: the call's own timeout did not pass", err)
			}
			if !kit.Retryable(err) {
				t.Errorf("Retryable(%v) = false, want true", err)
			}
			if !strings.Contains(err.Error(), "GET "+fs.URL()+"/users/1") || !strings.Contains(err.Error(), "100ms") {
				t.Errorf("err = %q, want it to name the request and the bound", err)
			}
		})
	}
}

func TestAttemptTimeoutInsideCallTimeout(t *testing.T) {
	t.Parallel()
	fs := kittest.NewFaultServer(t, nil)
	fs.SetFallback(kittest.FaultHang)
	c := newClient(t, fs.URL(), kit.WithRetry(kit.RetryPolicy{MaxAttempts: 1000, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}),
		kit.WithAttemptTimeout(100*time.Millisecond))
	// Every attempt hangs; the call's timeout ends the retries.
	_, err := ltGetUser.Call(t.Context(), c, struct{ ID int }{1}, kit.WithTimeout(time.Second))
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, kit.ErrAttemptTimeout) {
		t.Fatalf("err = %v, want the call's deadline or the last attempt's timeout", err)
	}
	if n := fs.Requests(); n < 2 || n >= 1000 {
		t.Errorf("server saw %d requests, want several attempts, cut by the call's timeout", n)
	}
}

func TestAttemptTimeoutOptionLevels(t *testing.T) {
	t.Parallel()
	for _, bad := range []kit.RequestOption{kit.WithAttemptTimeout(0), kit.WithIdleTimeout(-time.Second)} {
		if _, err := kit.NewClient("http://127.0.0.1:1", bad); err == nil {
			t.Errorf("NewClient(%v) = nil error, want one", bad)
		}
	}
	if got := kit.WithAttemptTimeout(2 * time.Second).(interface{ String() string }).String(); got != "kit.WithAttemptTimeout(2s)" {
		t.Errorf("String = %q", got)
	}
	// The declaration's bound wins over the client's.
	fs := kittest.NewFaultServer(t, nil)
	fs.Script(kittest.FaultHang)
	c := newClient(t, fs.URL(), kit.WithAttemptTimeout(time.Hour))
	ep := kit.Get[struct{ ID int }, faultUser]("/users/{id}", kit.WithAttemptTimeout(100*time.Millisecond))
	if _, err := ep.Call(t.Context(), c, struct{ ID int }{1}); !errors.Is(err, kit.ErrAttemptTimeout) {
		t.Fatalf("err = %v, want ErrAttemptTimeout from the declaration's bound", err)
	}
}

// A streamed result's attempt ends with its headers: a slow reader is
// not cut by the attempt timeout.
func TestAttemptTimeoutLeavesTheStreamAlone(t *testing.T) {
	t.Parallel()
	_, c := kittest.NewServer(t, kittest.NewAPI(), kit.WithAttemptTimeout(100*time.Millisecond))
	s, err := ltEvents.Call(t.Context(), c, ltEventsParams{Count: 3, DelayMS: 150})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	for _, err := range s.All() {
		if err != nil {
			t.Fatalf("after %d events: %v", n, err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("got %d events, want 3", n)
	}
}

func TestIdleTimeoutDownload(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			fs := kittest.NewFaultServer(t, nil)
			fs.Script(kittest.FaultStallMidBody)
			c := tw.client(t, fs.URL(), kit.WithIdleTimeout(150*time.Millisecond))
			dl := kit.Get[struct{ Bytes int }, io.ReadCloser]("/download")
			body, err := twinCall(t.Context(), tw, dl, c, struct{ Bytes int }{100000})
			if err != nil {
				t.Fatal(err)
			}
			defer body.Close()
			n, err := io.Copy(io.Discard, body)
			if !errors.Is(err, kit.ErrIdleTimeout) {
				t.Fatalf("read %d bytes, err = %v; want ErrIdleTimeout", n, err)
			}
			if n != 50000 {
				t.Errorf("read %d bytes before the stall, want 50000", n)
			}
			if !kit.Retryable(err) {
				t.Errorf("Retryable(%v) = false", err)
			}
		})
	}
}

func TestIdleTimeoutNDJSONReportsTheError(t *testing.T) {
	t.Parallel()
	fs := kittest.NewFaultServer(t, nil)
	fs.Script(kittest.FaultStallMidBody)
	c := newClient(t, fs.URL(), kit.WithRetry(rtFastRetry(4)))
	users := kit.Get[kit.NoParams, *kit.Stream[faultUser]]("/users.ndjson")
	s, err := users.Call(t.Context(), c, kit.NoParams{}, kit.WithIdleTimeout(150*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	var last error
	for _, err := range s.All() {
		if err != nil {
			last = err
			break
		}
		n++
	}
	if !errors.Is(last, kit.ErrIdleTimeout) {
		t.Fatalf("after %d records: err = %v, want ErrIdleTimeout", n, last)
	}
	if n == 0 {
		t.Errorf("no record before the stall")
	}
}

// An event stream that goes silent resumes with Last-Event-ID: every
// event arrives once, in order.
func TestIdleTimeoutResumesEvents(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, kittest.NewAPI())
			c := tw.client(t, srv.URL, kit.WithRetry(rtFastRetry(3)), kit.WithIdleTimeout(150*time.Millisecond))
			s, err := twinCall(t.Context(), tw, ltEvents, c, ltEventsParams{Count: 7, StallAfter: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var seqs []int
			for e, err := range s.All() {
				if err != nil {
					t.Fatalf("after %v: %v", seqs, err)
				}
				seqs = append(seqs, e.Seq)
			}
			if want := []int{1, 2, 3, 4, 5, 6, 7}; !equalInts(seqs, want) {
				t.Errorf("events %v, want %v", seqs, want)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

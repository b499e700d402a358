package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
	"github.com/kithttp/kit/kittest"
)

// Tests of R = *kit.Stream[T], one row per framing and one per twin (sync
// Call, async Go). None asserts on time: servers that must wait for the
// client wait on channels the test controls, with a generous guard that
// fails the test instead of hanging when kit does not do its part. The
// tests of releasing connections are at the end of this file.

// streamRec is the record of the tests: N must be at least 1.
type streamRec struct {
	N    int    `json:"n" validate:"min=1"`
	Text string `json:"text,omitempty"`
}

// streamFormat is one framing of a stream, written by a test server.
type streamFormat struct {
	name, ctype string
	open, close string
	record      func(i int, json string) string // the i-th record (from 0), as written
}

var streamFormats = []streamFormat{
	{"sse", "text/event-stream", "", "", func(i int, j string) string { return fmt.Sprintf("id: %d\ndata: %s\n\n", i+1, j) }},
	{"ndjson", "application/x-ndjson", "", "", func(i int, j string) string { return j + "\n" }},
	{"jsonl", "application/jsonl", "", "", func(i int, j string) string { return j + "\r\n" }},
	{"json-seq", "application/json-seq", "", "", func(i int, j string) string { return "\x1e" + j + "\n" }},
	{"array", "application/json; charset=utf-8", "[", "]", func(i int, j string) string {
		if i > 0 {
			return ",\n" + j
		}
		return j
	}},
}

// body is a whole stream of the given records.
func (f streamFormat) body(records ...string) string {
	var b strings.Builder
	b.WriteString(f.open)
	for i, r := range records {
		b.WriteString(f.record(i, r))
	}
	b.WriteString(f.close)
	return b.String()
}

// serveBody answers every request with body as ctype.
func serveBody(ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		io.WriteString(w, body)
	}
}

var streamRecs = kit.Get[kit.NoParams, *kit.Stream[streamRec]]("/s")

// collect ranges over s.All and returns the records and the errors.
func collectStream[T any](s *kit.Stream[T]) ([]T, []error) {
	var recs []T
	var errs []error
	for r, err := range s.All() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		recs = append(recs, r)
	}
	return recs, errs
}

func TestStreamFramings(t *testing.T) {
	t.Parallel()
	for _, f := range streamFormats {
		for _, tw := range twins {
			t.Run(f.name+"/"+tw.name, func(t *testing.T) {
				t.Parallel()
				body := f.body(`{"n":1,"text":"a"}`, `{"n":2}`, `{ "n" : 3, "text" : "c\n]}" }`)
				_, b := tw.setup(t, serveBody(f.ctype, body))
				s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if s.Response().StatusCode != 200 || s.Response().Header.Get("Content-Type") != f.ctype || s.Response().Bytes() != nil {
					t.Errorf("Response() = %d %v", s.Response().StatusCode, s.Response().Header)
				}
				recs, errs := collectStream(s)
				want := []streamRec{{1, "a"}, {2, ""}, {3, "c\n]}"}}
				if !reflect.DeepEqual(recs, want) || errs != nil {
					t.Errorf("got %+v, %v; want %+v", recs, errs, want)
				}
			})
		}
	}
}

// TestStreamRecordsArriveWhileSending proves that records are decoded as
// they arrive: the server writes record i+1 only after the test's loop has
// received record i, so a client that waited for more of the body (or for
// its end) would never get there.
func TestStreamRecordsArriveWhileSending(t *testing.T) {
	t.Parallel()
	const n = 5
	for _, f := range streamFormats {
		for _, tw := range twins {
			t.Run(f.name+"/"+tw.name, func(t *testing.T) {
				t.Parallel()
				got := make(chan int)
				_, b := tw.setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", f.ctype)
					io.WriteString(w, f.open)
					for i := range n {
						io.WriteString(w, f.record(i, fmt.Sprintf(`{"n":%d}`, i+1)))
						w.(http.Flusher).Flush()
						select {
						case k := <-got:
							if k != i+1 {
								t.Errorf("the client got record %d after the server sent %d", k, i+1)
							}
						case <-r.Context().Done():
							return
						case <-time.After(time.Minute): // a guard, not a measurement
							t.Errorf("record %d was sent but the client did not get it", i+1)
							return
						}
					}
					io.WriteString(w, f.close)
				}))
				s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				i := 0
				for rec, err := range s.All() {
					if err != nil {
						t.Fatal(err)
					}
					if i++; rec.N != i {
						t.Fatalf("record %d has n %d", i, rec.N)
					}
					got <- rec.N
				}
				if i != n {
					t.Errorf("%d records, want %d", i, n)
				}
			})
		}
	}
}

// TestStreamBadRecord checks that a record that does not decode ends the
// loop with one *DecodeError, and one that does not validate with one
// *ValidationError, after the records before it.
func TestStreamBadRecord(t *testing.T) {
	t.Parallel()
	for _, f := range streamFormats {
		for _, tw := range twins {
			t.Run(f.name+"/"+tw.name, func(t *testing.T) {
				t.Parallel()
				mux := http.NewServeMux()
				mux.Handle("/malformed", serveBody(f.ctype, f.body(`{"n":1}`, `{"n":2}`, `{"n":"three"}`, `{"n":4}`)))
				mux.Handle("/invalid", serveBody(f.ctype, f.body(`{"n":1}`, `{"n":0}`, `{"n":3}`)))
				_, b := tw.setup(t, mux)

				s, err := twinCall(t.Context(), tw, kit.Get[kit.NoParams, *kit.Stream[streamRec]]("/malformed"), b, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				recs, errs := collectStream(s)
				var de *kit.DecodeError
				if len(recs) != 2 || len(errs) != 1 || !errors.As(errs[0], &de) {
					t.Fatalf("malformed: %d records, errors %v; want 2 and one *DecodeError", len(recs), errs)
				}
				if de.Want != "kit_test.streamRec" || de.ContentType != f.ctype || de.Offset <= 0 || de.Method != "GET" ||
					!strings.Contains(de.Error(), "record 3: ") {
					t.Errorf("DecodeError %+v: %v", de, de)
				}

				s, err = twinCall(t.Context(), tw, kit.Get[kit.NoParams, *kit.Stream[streamRec]]("/invalid"), b, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				recs, errs = collectStream(s)
				var ve *kit.ValidationError
				if len(recs) != 1 || len(errs) != 1 || !errors.As(errs[0], &ve) || ve.Fields[0].Path != "N" ||
					!strings.Contains(errs[0].Error(), ": record 2: invalid kit_test.streamRec: N must be at least 1") {
					t.Errorf("invalid: %d records, errors %v; want 1 and one *ValidationError", len(recs), errs)
				}
			})
		}
	}
}

func TestStreamNotTheFraming(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, ctype, body, want string }{
		{"object for an array", "application/json", `{"data":[]}`, "not a JSON array"},
		{"trailing comma", "application/json", `[{"n":1},]`, "is followed by ']'"},
		{"array cut short", "application/json", `[{"n":1}`, "the array ends early"},
		{"text after the array", "application/json", `[{"n":1}] x`, "after the end of the array"},
		{"ndjson line that is not JSON", "application/x-ndjson", "{\"n\":1}\nhello\n", "record 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, c := setup(t, serveBody(tc.ctype, tc.body))
			s, err := streamRecs.Call(t.Context(), c, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			_, errs := collectStream(s)
			var de *kit.DecodeError
			if len(errs) != 1 || !errors.As(errs[0], &de) || !strings.Contains(de.Error(), tc.want) {
				t.Errorf("errors %v, want one *DecodeError saying %q", errs, tc.want)
			}
		})
	}
}

func TestStreamContentTypes(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			mux := http.NewServeMux()
			mux.Handle("/text", serveBody("text/plain", "hello"))
			mux.Handle("/none", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = nil
				io.WriteString(w, `[{"n":1}]`)
			}))
			mux.Handle("/empty", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
			mux.Handle("/problem+json", serveBody("application/problem+json", `[{"n":7}]`))
			mux.Handle("/missing", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Accept") != "text/event-stream, application/x-ndjson, application/jsonl, application/json-seq, application/json" {
					t.Errorf("Accept: %q", r.Header.Get("Accept"))
				}
				http.Error(w, "gone", http.StatusGone)
			}))
			_, b := tw.setup(t, mux)
			call := func(path string) (*kit.Stream[streamRec], error) {
				return twinCall(t.Context(), tw, kit.Get[kit.NoParams, *kit.Stream[streamRec]](path), b, kit.NoParams{})
			}
			for _, path := range []string{"/text", "/none"} {
				s, err := call(path)
				var de *kit.DecodeError
				if s != nil || !errors.As(err, &de) || !strings.Contains(err.Error(), "at byte 0: not a stream of records") {
					t.Errorf("%s: %v, %v; want a *DecodeError from the call", path, s, err)
				}
			}
			s, err := call("/empty")
			if err != nil {
				t.Fatal(err)
			}
			if recs, errs := collectStream(s); recs != nil || errs != nil {
				t.Errorf("204: %v, %v; want no records", recs, errs)
			}
			s, err = call("/problem+json")
			if err != nil {
				t.Fatal(err)
			}
			if recs, errs := collectStream(s); len(recs) != 1 || recs[0].N != 7 || errs != nil {
				t.Errorf("+json array: %v, %v", recs, errs)
			}
			_, err = call("/missing")
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.StatusCode != http.StatusGone || string(he.Body) != "gone\n" {
				t.Errorf("410: %v, want an *HTTPError with its body", err)
			}
		})
	}
}

func TestStreamServerSentEvents(t *testing.T) {
	t.Parallel()
	body := "\xEF\xBB\xBF: a comment\r\n" +
		"retry: 1500\r\n" +
		"id: 1\r\nevent: greeting\r\ndata: {\"n\":1,\r\ndata: \"text\":\"hi\"}\r\n\r\n" +
		"event: ping\r\n\r\n" + // no data: skipped
		"data:\n\n" + // empty data: skipped
		"data: {\"n\":2}\r\r" + // CR line ends; the id carries over
		"id\ndata: {\"n\":3}\n\n" +
		"data: [DONE]\n\n" +
		"data: {\"n\":4}\n\n" // after [DONE]: never read
	want := []kit.Event[streamRec]{
		{ID: "1", Type: "greeting", Data: streamRec{1, "hi"}, Retry: 1500 * time.Millisecond},
		{ID: "1", Data: streamRec{2, ""}},
		{ID: "", Data: streamRec{3, ""}},
	}
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, serveBody("text/event-stream", body))
			s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			var got []kit.Event[streamRec]
			for e, err := range s.Events() {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, e)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("events:\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// After [DONE] the loop ends at once, even if the server keeps the
// connection open, and the connection is closed.
func TestStreamDoneEndsTheStream(t *testing.T) {
	t.Parallel()
	closed := make(chan struct{})
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"n\":1}\n\ndata: [DONE]\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(closed)
	}))
	s, err := streamRecs.Call(t.Context(), c, kit.NoParams{})
	if err != nil {
		t.Fatal(err)
	}
	if recs, errs := collectStream(s); len(recs) != 1 || errs != nil {
		t.Errorf("%v, %v", recs, errs)
	}
	waitClosed(t, closed)
}

// waitClosed waits until the server has seen the connection closed.
func waitClosed(t *testing.T, closed <-chan struct{}) {
	t.Helper()
	select {
	case <-closed:
	case <-time.After(time.Minute): // a guard, not a measurement
		t.Fatal("the server never saw the connection closed")
	}
}

// TestStreamRecordLimit checks that one record over the body limit is an
// error matching ErrBodyTooLarge, while a stream far larger than the limit
// is read in full.
func TestStreamRecordLimit(t *testing.T) {
	t.Parallel()
	big := fmt.Sprintf(`{"n":2,"text":%q}`, strings.Repeat("x", 2000))
	for _, f := range streamFormats {
		for _, tw := range twins {
			t.Run(f.name+"/"+tw.name, func(t *testing.T) {
				t.Parallel()
				const records = 40_000 // about 1 MiB, 1,000 times the limit
				mux := http.NewServeMux()
				mux.Handle("/big", serveBody(f.ctype, f.body(`{"n":1}`, big, `{"n":3}`)))
				mux.Handle("/long", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", f.ctype)
					io.WriteString(w, f.open)
					for i := range records {
						io.WriteString(w, f.record(i, fmt.Sprintf(`{"n":%d}`, i+1)))
					}
					io.WriteString(w, f.close)
				}))
				_, b := tw.setup(t, mux, kit.WithMaxBodySize(1024))
				s, err := twinCall(t.Context(), tw, kit.Get[kit.NoParams, *kit.Stream[streamRec]]("/big"), b, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				recs, errs := collectStream(s)
				if len(recs) != 1 || len(errs) != 1 || !errors.Is(errs[0], kit.ErrBodyTooLarge) ||
					!strings.Contains(errs[0].Error(), "record 2 is longer than the limit of 1024 bytes") {
					t.Errorf("%d records, %v; want 1 and ErrBodyTooLarge", len(recs), errs)
				}
				s, err = twinCall(t.Context(), tw, kit.Get[kit.NoParams, *kit.Stream[streamRec]]("/long"), b, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				recs, errs = collectStream(s)
				if len(recs) != records || errs != nil || recs[records-1].N != records {
					t.Errorf("%d records, %v; want %d", len(recs), errs, records)
				}
			})
		}
	}
	// The endpoint's limit wins over the client's.
	_, c := setup(t, serveBody("application/x-ndjson", `{"n":1,"text":"`+strings.Repeat("y", 100)+"\"}\n"))
	s, err := kit.Get[kit.NoParams, *kit.Stream[streamRec]]("/s", kit.WithMaxBodySize(50)).Call(t.Context(), c, kit.NoParams{})
	if err != nil {
		t.Fatal(err)
	}
	if _, errs := collectStream(s); len(errs) != 1 || !errors.Is(errs[0], kit.ErrBodyTooLarge) {
		t.Errorf("endpoint limit: %v", errs)
	}
}

func TestStreamRangedTwice(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, serveBody("application/x-ndjson", "{\"n\":1}\n{\"n\":2}\n"))
			s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			for range s.All() {
				break
			}
			for _, seq := range []func() []error{
				func() []error { _, errs := collectStream(s); return errs },
				func() []error {
					var errs []error
					for _, err := range s.Events() {
						errs = append(errs, err)
					}
					return errs
				},
			} {
				errs := seq()
				if len(errs) != 1 || errs[0] == nil || !strings.Contains(errs[0].Error(), "the stream was already ranged over") {
					t.Errorf("second range: %v, want one error", errs)
				}
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close after the range: %v", err)
			}
		})
	}
}

func TestStreamOfAnyAndResult(t *testing.T) {
	t.Parallel()
	_, c := setup(t, serveBody("application/x-ndjson", "{\"n\":1}\n[1,2]\n\"x\"\n"))
	s, err := kit.Get[kit.NoParams, *kit.Stream[any]]("/s").Call(t.Context(), c, kit.NoParams{})
	if err != nil {
		t.Fatal(err)
	}
	recs, errs := collectStream(s)
	want := []any{map[string]any{"n": float64(1)}, []any{float64(1), float64(2)}, "x"}
	if !reflect.DeepEqual(recs, want) || errs != nil {
		t.Errorf("%#v, %v", recs, errs)
	}
	// kit.Result of a Stream: the response beside it.
	r, err := kit.Get[kit.NoParams, kit.Result[*kit.Stream[streamRec]]]("/s").Call(t.Context(), c, kit.NoParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Value.Close()
	if r.StatusCode != 200 || r.Value.Response() != r.Response {
		t.Errorf("Result: %d, same response %v", r.StatusCode, r.Value.Response() == r.Response)
	}
	for rec, err := range r.Value.All() {
		if err != nil || rec.N != 1 {
			t.Errorf("%+v, %v", rec, err)
		}
		break
	}
}

func TestStreamDeclarations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a Stream value", errOf2(kit.NewEndpoint[kit.NoParams, kit.Stream[streamRec]]("GET", "/s")), "a Stream result is a pointer, *kit.Stream[T]"},
		{"a Stream of ReadClosers", errOf2(kit.NewEndpoint[kit.NoParams, *kit.Stream[io.ReadCloser]]("GET", "/s")), "T cannot be io.ReadCloser"},
		{"a Stream of Responses", errOf2(kit.NewEndpoint[kit.NoParams, *kit.Stream[*kit.Response]]("GET", "/s")), "T cannot be *kit.Response"},
		{"a Stream of Streams", errOf2(kit.NewEndpoint[kit.NoParams, *kit.Stream[*kit.Stream[int]]]("GET", "/s")), "T cannot be *kit.Stream[int]"},
		{"a Stream of funcs", errOf2(kit.NewEndpoint[kit.NoParams, *kit.Stream[func()]]("GET", "/s")), "cannot be decoded from JSON"},
	} {
		var de *kit.DeclarationError
		if !errors.As(tc.err, &de) || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *DeclarationError saying %q", tc.name, tc.err, tc.want)
		}
	}
	var nilStream *kit.Stream[int]
	if nilStream.Close() != nil || nilStream.Response() != nil {
		t.Error("a nil Stream's Close or Response misbehaves")
	}
	for _, err := range nilStream.All() {
		if err == nil || !strings.Contains(err.Error(), "nil Stream") {
			t.Errorf("ranging a nil Stream: %v", err)
		}
	}
}

func errOf2[T any](_ T, err error) error { return err }

// A stream made by an interceptor (NewResponse) is framed like one from
// the network.
func TestStreamFromInterceptor(t *testing.T) {
	t.Parallel()
	cache := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			return kit.NewResponse(200, http.Header{"Content-Type": {"text/event-stream"}}, []byte("data: {\"n\":5}\n\n")), nil
		}
	}
	_, c := setup(t, http.NotFoundHandler(), kit.WithInterceptors(cache))
	s, err := streamRecs.Call(t.Context(), c, kit.NoParams{})
	if err != nil {
		t.Fatal(err)
	}
	if recs, errs := collectStream(s); len(recs) != 1 || recs[0].N != 5 || errs != nil {
		t.Errorf("%v, %v", recs, errs)
	}
}

// TestStreamContextEnds checks that a stream whose context ends (the
// caller's, or the endpoint's WithTimeout) stops with the context's error.
func TestStreamContextEnds(t *testing.T) {
	t.Parallel()
	stall := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, "{\"n\":1}\n{\"n\":2}\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, stall)
			ctx, cancel := context.WithCancel(t.Context())
			s, err := twinCall(ctx, tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			var errs []error
			for _, err := range s.All() {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if n++; n == 1 {
					cancel() // record 2 is read already; it is not yielded
				}
			}
			if n != 1 || len(errs) != 1 || !errors.Is(errs[0], context.Canceled) || !strings.Contains(errs[0].Error(), ": after 1 record: context canceled") {
				t.Errorf("%d records, %v; want 1 and context.Canceled", n, errs)
			}

			// The endpoint's timeout ends the stream (the server would
			// never end it); how many records come before it depends on
			// the machine's speed, not on what is checked.
			timed := kit.Get[kit.NoParams, *kit.Stream[streamRec]]("/s", kit.WithTimeout(200*time.Millisecond))
			s, err = twinCall(t.Context(), tw, timed, b, kit.NoParams{})
			if err == nil {
				var recs []streamRec
				var errs []error
				recs, errs = collectStream(s)
				if len(recs) > 2 || len(errs) != 1 {
					t.Errorf("WithTimeout: %d records, %v; want at most 2 and one error", len(recs), errs)
				}
				if len(errs) > 0 {
					err = errs[0]
				}
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("WithTimeout: %v, want context.DeadlineExceeded", err)
			}

			// A context that ended before the range.
			ctx, cancel = context.WithCancel(t.Context())
			s, err = twinCall(ctx, tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			cancel()
			if recs, errs := collectStream(s); recs != nil || len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
				t.Errorf("cancelled before the range: %v, %v", recs, errs)
			}
		})
	}
}

// resumeRec is the data of kittest's /events.
type resumeRec = kittest.Event

type eventsParams struct {
	Count     int
	DropEvery int `kit:"drop_every"`
	Retry     *int
	Done      bool
}

var kittestEvents = kit.Get[eventsParams, *kit.Stream[resumeRec]]("/events")

// TestStreamResume checks that a server-sent event stream whose connection
// drops in the middle of an event is resumed with Last-Event-ID: every
// event comes once, in order, against kittest's /events.
func TestStreamResume(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(kittest.NewAPI().ServeHTTP)
			retry := 1
			_, b := tw.setup(t, rec, kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
			s, err := twinCall(t.Context(), tw, kittestEvents, b, eventsParams{Count: 20, DropEvery: 3, Retry: &retry, Done: true})
			if err != nil {
				t.Fatal(err)
			}
			var seqs []int
			var ids []string
			for e, err := range s.Events() {
				if err != nil {
					t.Fatal(err)
				}
				seqs = append(seqs, e.Data.Seq)
				ids = append(ids, e.ID)
				if e.Data.Text != "event "+e.ID || e.Type != "tick" {
					t.Errorf("event %+v", e)
				}
			}
			for i := range 20 {
				if i >= len(seqs) || seqs[i] != i+1 || ids[i] != strconv.Itoa(i+1) {
					t.Fatalf("events %v (ids %v), want 1..20 once each, in order", seqs, ids)
				}
			}
			if len(seqs) != 20 {
				t.Fatalf("%d events, want 20", len(seqs))
			}
			var lastIDs []string
			for _, r := range rec.requests() {
				lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
			}
			wantIDs := []string{"", "3", "6", "9", "12", "15", "18"}
			if !reflect.DeepEqual(lastIDs, wantIDs) {
				t.Errorf("Last-Event-ID of each connection: %q, want %q", lastIDs, wantIDs)
			}
			if got := s.Response().Request.Header.Get("Last-Event-ID"); got != "18" {
				t.Errorf("Response() after resuming is that of the request with Last-Event-ID %q, want 18", got)
			}
		})
	}
}

// TestStreamResumeRules checks when a stream is not resumed, and that the
// server's retry is capped by the policy.
func TestStreamResumeRules(t *testing.T) {
	t.Parallel()
	fast := kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	// dropper serves text/event-stream: each connection sends the events
	// of script (by the Last-Event-ID it got), then is cut.
	dropper := func(connections *atomic.Int32, event func(conn int, lastID string) string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			conn := int(connections.Add(1))
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, event(conn, r.Header.Get("Last-Event-ID")))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
	}
	t.Run("the server's retry is capped by MaxDelay", func(t *testing.T) {
		t.Parallel()
		var conns atomic.Int32
		_, c := setup(t, dropper(&conns, func(conn int, last string) string {
			if last == "1" {
				return "data: [DONE]\n\n"
			}
			return "retry: 3600000\nid: 1\ndata: {\"n\":1}\n\n" // an hour: the test would time out
		}), fast)
		s, err := streamRecs.Call(t.Context(), c, kit.NoParams{})
		if err != nil {
			t.Fatal(err)
		}
		if recs, errs := collectStream(s); len(recs) != 1 || errs != nil || conns.Load() != 2 {
			t.Errorf("%v, %v, %d connections", recs, errs, conns.Load())
		}
	})
	t.Run("no retry policy", func(t *testing.T) {
		t.Parallel()
		var conns atomic.Int32
		_, c := setup(t, dropper(&conns, func(int, string) string { return "id: 1\ndata: {\"n\":1}\n\n" }))
		s, err := streamRecs.Call(t.Context(), c, kit.NoParams{})
		if err != nil {
			t.Fatal(err)
		}
		recs, errs := collectStream(s)
		if len(recs) != 1 || len(errs) != 1 || !errors.Is(errs[0], io.ErrUnexpectedEOF) || conns.Load() != 1 ||
			!strings.Contains(errs[0].Error(), "after 1 record: reading the response body: unexpected EOF") {
			t.Errorf("%v, %v, %d connections; want the drop's error and no reconnection", recs, errs, conns.Load())
		}
	})
	t.Run("no id", func(t *testing.T) {
		t.Parallel()
		var conns atomic.Int32
		_, c := setup(t, dropper(&conns, func(int, string) string { return "data: {\"n\":1}\n\n" }), fast)
		s, _ := streamRecs.Call(t.Context(), c, kit.NoParams{})
		if recs, errs := collectStream(s); len(recs) != 1 || len(errs) != 1 || conns.Load() != 1 {
			t.Errorf("%v, %v, %d connections; want no reconnection", recs, errs, conns.Load())
		}
	})
	t.Run("POST is not resumed unless Idempotent", func(t *testing.T) {
		t.Parallel()
		var conns atomic.Int32
		_, c := setup(t, dropper(&conns, func(_ int, last string) string {
			if last == "1" {
				return "id: 2\ndata: {\"n\":2}\n\ndata: [DONE]\n\n"
			}
			return "id: 1\ndata: {\"n\":1}\n\n"
		}), fast)
		post := kit.Post[kit.NoParams, *kit.Stream[streamRec]]("/s")
		s, _ := post.Call(t.Context(), c, kit.NoParams{})
		if recs, errs := collectStream(s); len(recs) != 1 || len(errs) != 1 || conns.Load() != 1 {
			t.Errorf("POST: %v, %v, %d connections; want no reconnection", recs, errs, conns.Load())
		}
		idem := kit.Post[kit.NoParams, *kit.Stream[streamRec]]("/s", kit.Idempotent())
		s, _ = idem.Call(t.Context(), c, kit.NoParams{})
		if recs, errs := collectStream(s); len(recs) != 2 || errs != nil || conns.Load() != 3 {
			t.Errorf("Idempotent POST: %v, %v, %d connections; want a resume", recs, errs, conns.Load())
		}
	})
	t.Run("NoRetry on the endpoint", func(t *testing.T) {
		t.Parallel()
		var conns atomic.Int32
		_, c := setup(t, dropper(&conns, func(int, string) string { return "id: 1\ndata: {\"n\":1}\n\n" }), fast)
		s, _ := kit.Get[kit.NoParams, *kit.Stream[streamRec]]("/s", kit.NoRetry()).Call(t.Context(), c, kit.NoParams{})
		if _, errs := collectStream(s); len(errs) != 1 || conns.Load() != 1 {
			t.Errorf("%v, %d connections", errs, conns.Load())
		}
	})
	t.Run("drops without a new event use up MaxAttempts", func(t *testing.T) {
		t.Parallel()
		var conns atomic.Int32
		_, c := setup(t, dropper(&conns, func(conn int, _ string) string {
			if conn == 1 {
				return "id: 1\ndata: {\"n\":1}\n\n"
			}
			return ": nothing new\n"
		}), kit.WithRetry(kit.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}))
		s, _ := streamRecs.Call(t.Context(), c, kit.NoParams{})
		recs, errs := collectStream(s)
		if len(recs) != 1 || len(errs) != 1 || conns.Load() != 3 ||
			!strings.Contains(errs[0].Error(), "after 1 record: the connection dropped 3 times without a new event: reading the response body: unexpected EOF") {
			t.Errorf("%v, %v, %d connections; want 3 connections, then the error", recs, errs, conns.Load())
		}
	})
	t.Run("a reconnection that is not an event stream", func(t *testing.T) {
		t.Parallel()
		var conns atomic.Int32
		_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if conns.Add(1) > 1 {
				serveBody("application/json", "[]")(w, r)
				return
			}
			dropper(new(atomic.Int32), func(int, string) string { return "id: 1\ndata: {\"n\":1}\n\n" })(w, r)
		}), fast)
		s, _ := streamRecs.Call(t.Context(), c, kit.NoParams{})
		if _, errs := collectStream(s); len(errs) != 1 || !strings.Contains(errs[0].Error(), `reconnecting with Last-Event-ID "1": the response is 200 application/json, not an event stream`) {
			t.Errorf("%v", errs)
		}
	})
	t.Run("a reconnection that fails", func(t *testing.T) {
		t.Parallel()
		var conns atomic.Int32
		_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if conns.Add(1) > 1 {
				http.Error(w, "no such stream", http.StatusNotFound)
				return
			}
			dropper(new(atomic.Int32), func(int, string) string { return "id: 1\ndata: {\"n\":1}\n\n" })(w, r)
		}), fast)
		s, _ := streamRecs.Call(t.Context(), c, kit.NoParams{})
		_, errs := collectStream(s)
		var he *kit.HTTPError
		if len(errs) != 1 || !errors.As(errs[0], &he) || he.StatusCode != 404 {
			t.Errorf("%v, want the reconnection's *HTTPError", errs)
		}
	})
	t.Run("a body that ends normally is not resumed", func(t *testing.T) {
		t.Parallel()
		var conns atomic.Int32
		_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conns.Add(1)
			serveBody("text/event-stream", "id: 1\ndata: {\"n\":1}\n\nid: 2\ndata: {\"n\":")(w, r)
		}), fast)
		s, _ := streamRecs.Call(t.Context(), c, kit.NoParams{})
		if recs, errs := collectStream(s); len(recs) != 1 || errs != nil || conns.Load() != 1 {
			t.Errorf("%v, %v, %d connections", recs, errs, conns.Load())
		}
	})
}

// Streams whose context ends while they open: the stream is registered to
// close on the context's end while the response is being turned into it,
// and whatever order the two happen in, the stream is released once (its
// connection closed, its in-flight slot and async call given back, its
// observer's StreamEnd and CallEnd called once each). Run with -race.

// cancelKey is the context key of the func that cancelAfterResponse calls.
type cancelKey struct{}

// cancelAfterResponse is a transport that ends the request's call (the
// func under cancelKey in its context) once the response's headers have
// arrived: the call's context ends while kit opens the stream.
type cancelAfterResponse struct{ base http.RoundTripper }

func (c cancelAfterResponse) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if cancel, ok := r.Context().Value(cancelKey{}).(context.CancelFunc); ok {
		cancel()
	}
	return resp, err
}

// openCounts counts the ends an observer sees.
type openCounts struct {
	callEnds, streamEnds atomic.Int64
	ended                chan struct{} // one per CallEnd
}

func (o *openCounts) observer() kit.Observer {
	return kit.Observer{
		CallEnd:   func(context.Context, kit.CallResult) { o.callEnds.Add(1); o.ended <- struct{}{} },
		StreamEnd: func(context.Context, kit.StreamResult) { o.streamEnds.Add(1) },
	}
}

var streamOpenBody = kit.Get[kit.NoParams, io.ReadCloser]("/s")

func TestStreamContextEndsAsItOpens(t *testing.T) {
	leakcheck.Check(t)
	const iterations = 50
	for _, kind := range []string{"Stream", "ReadCloser"} {
		for _, tw := range twins {
			for _, how := range []string{"after the response", "concurrently"} {
				t.Run(kind+"/"+tw.name+"/"+how, func(t *testing.T) {
					var entered atomic.Int64
					exited := make(chan struct{}, 4*iterations) // room for every request
					h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						entered.Add(1)
						defer func() { exited <- struct{}{} }()
						w.Header().Set("Content-Type", "application/x-ndjson")
						io.WriteString(w, "{\"n\":1}\n")
						w.(http.Flusher).Flush()
						<-r.Context().Done() // until the client closes the connection
					})
					counts := &openCounts{ended: make(chan struct{}, iterations)}
					hc := &http.Client{Transport: cancelAfterResponse{http.DefaultTransport.(*http.Transport).Clone()}}
					defer hc.CloseIdleConnections()
					_, b := tw.setup(t, h, kit.WithHTTPClient(hc), kit.WithMaxInFlight(1), kit.WithObserver(counts.observer()))
					for i := range iterations {
						ctx, cancel := context.WithCancel(t.Context())
						if how == "after the response" {
							ctx = context.WithValue(ctx, cancelKey{}, context.CancelFunc(cancel))
						} else {
							go cancel()
						}
						opened := openOnce(t, tw, kind, ctx, b)
						// Released: by the end of the context, or by Close
						// once opened. A slot held by a stream never released
						// (WithMaxInFlight(1)) blocks the next iteration's call.
						select {
						case <-counts.ended:
						case <-time.After(5 * time.Second):
							t.Fatalf("iteration %d: the call never ended (the stream was not released)", i)
						}
						cancel()
						if opened != nil {
							if err := opened.Close(); err != nil {
								t.Errorf("iteration %d: Close: %v", i, err)
							}
						}
					}
					for n := int64(0); n < entered.Load(); n++ {
						waitClosed(t, exited) // each connection was closed
					}
					if c, s := counts.callEnds.Load(), counts.streamEnds.Load(); c != iterations || (kind == "Stream" && s > iterations) || (kind == "ReadCloser" && s != 0) {
						t.Errorf("CallEnd called %d times, StreamEnd %d, for %d calls", c, s, iterations)
					}
				})
			}
		}
	}
}

// openOnce makes one call of the kind of the test with ctx and returns the
// stream or body it opened (nil when the call failed), after reading it
// when it opened.
func openOnce(t *testing.T, tw twin, kind string, ctx context.Context, b kit.Binding) io.Closer {
	t.Helper()
	switch kind {
	case "Stream":
		var s *kit.Stream[streamRec]
		var err error
		if tw.async {
			s, err = streamRecs.Go(ctx, b, kit.NoParams{}).Await(t.Context())
		} else {
			s, err = streamRecs.Call(ctx, b, kit.NoParams{})
		}
		if err != nil {
			return nil
		}
		for range s.All() {
		}
		return s
	default:
		var rc io.ReadCloser
		var err error
		if tw.async {
			rc, err = streamOpenBody.Go(ctx, b, kit.NoParams{}).Await(t.Context())
		} else {
			rc, err = streamOpenBody.Call(ctx, b, kit.NoParams{})
		}
		if err != nil {
			return nil
		}
		io.Copy(io.Discard, rc)
		return rc
	}
}

// TestStreamObserverPanicsOnContextEnd: the observer's StreamEnd and CallEnd
// of a stream (or an io.ReadCloser) that its context ends run on a
// goroutine of the context's. A panic there would end the process; kit
// recovers it and reports it, once, as an error matching *PanicError: the
// range's (or Read's) error, or Close's when nothing was read since.
func TestStreamObserverPanicsOnContextEnd(t *testing.T) {
	leakcheck.Check(t)
	type hookCase struct{ kind, hook, report string }
	var cases []hookCase
	for _, kind := range []string{"Stream", "ReadCloser"} {
		for _, hook := range []string{"StreamEnd", "CallEnd"} {
			if kind == "ReadCloser" && hook == "StreamEnd" {
				continue
			}
			for _, report := range []string{"read", "Close"} {
				cases = append(cases, hookCase{kind, hook, report})
			}
		}
	}
	for _, c := range cases {
		for _, tw := range twins {
			t.Run(c.kind+"/"+c.hook+"/"+c.report+"/"+tw.name, func(t *testing.T) {
				closed := make(chan struct{})
				var o kit.Observer
				entered := make(chan struct{}, 1)
				boom := func() {
					entered <- struct{}{}
					panic("observer boom")
				}
				if c.hook == "StreamEnd" {
					o.StreamEnd = func(context.Context, kit.StreamResult) { boom() }
				} else {
					o.CallEnd = func(_ context.Context, r kit.CallResult) {
						if r.Streamed {
							boom()
						}
					}
				}
				_, b := tw.setup(t, stall(streamFormats[1], closed), kit.WithObserver(o))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				var (
					closer  io.Closer
					readErr func() error // reads on until an error
				)
				if c.kind == "Stream" {
					s, err := twinCall(ctx, tw, streamRecs, b, kit.NoParams{})
					if err != nil {
						t.Fatal(err)
					}
					closer = s
					readErr = func() error {
						var errs []error
						for _, err := range s.All() {
							if err != nil {
								errs = append(errs, err)
							}
							cancel()
						}
						if len(errs) != 1 {
							t.Fatalf("errors %v, want one", errs)
						}
						return errs[0]
					}
				} else {
					rc, err := twinCall(ctx, tw, streamOpenBody, b, kit.NoParams{})
					if err != nil {
						t.Fatal(err)
					}
					closer = rc
					readErr = func() error {
						line := make([]byte, len("{\"n\":1}\n"))
						if _, err := io.ReadFull(rc, line); err != nil {
							t.Fatal(err)
						}
						cancel()
						_, err := io.ReadAll(rc)
						return err
					}
				}
				var got error
				if c.report == "read" {
					got = readErr()
					if !errors.Is(got, context.Canceled) {
						t.Errorf("read error %v, want one matching context.Canceled", got)
					}
					if err := closer.Close(); err != nil {
						t.Errorf("Close after the error reported the panic: %v", err)
					}
				} else {
					cancel()
					waitClosed(t, entered) // the end of the context is closing it
					got = closer.Close()
					if err := closer.Close(); err != nil {
						t.Errorf("second Close: %v", err)
					}
				}
				pe, ok := errors.AsType[*kit.PanicError](got)
				if !ok || pe.Value != "observer boom" {
					t.Fatalf("error %v, want one matching *kit.PanicError with the observer's panic", got)
				}
				if !strings.Contains(got.Error(), "panic: observer boom") {
					t.Errorf("error %q does not say what panicked", got)
				}
				waitClosed(t, closed)
			})
		}
	}
}

// TestStreamObserverPanicsOnClose: a panic of the observer in a Close by
// the caller is the caller's, and everything is released all the same: the
// connection, the in-flight slot (WithMaxInFlight(1): the next call gets
// it) and the async call (the client's Close returns).
func TestStreamObserverPanicsOnClose(t *testing.T) {
	leakcheck.Check(t)
	for _, kind := range []string{"Stream", "ReadCloser"} {
		for _, hook := range []string{"StreamEnd", "CallEnd"} {
			if kind == "ReadCloser" && hook == "StreamEnd" {
				continue
			}
			for _, tw := range twins {
				t.Run(kind+"/"+hook+"/"+tw.name, func(t *testing.T) {
					closed := make(chan struct{}, 2)
					h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						done := make(chan struct{})
						defer func() { <-done; closed <- struct{}{} }()
						stall(streamFormats[1], done)(w, r)
					})
					var panicked atomic.Bool
					boom := func() {
						if panicked.CompareAndSwap(false, true) {
							panic("observer boom")
						}
					}
					var o kit.Observer
					if hook == "StreamEnd" {
						o.StreamEnd = func(context.Context, kit.StreamResult) { boom() }
					} else {
						o.CallEnd = func(context.Context, kit.CallResult) { boom() }
					}
					_, b := tw.setup(t, h, kit.WithObserver(o), kit.WithMaxInFlight(1))
					open := func(ctx context.Context) io.Closer {
						var (
							c   io.Closer
							err error
						)
						if kind == "Stream" {
							c, err = twinCall(ctx, tw, streamRecs, b, kit.NoParams{})
						} else {
							c, err = twinCall(ctx, tw, streamOpenBody, b, kit.NoParams{})
						}
						if err != nil {
							t.Fatal(err)
						}
						return c
					}
					c := open(t.Context())
					func() {
						defer func() {
							if r := recover(); r != "observer boom" {
								t.Errorf("Close panicked with %v, want the observer's panic", r)
							}
						}()
						c.Close()
					}()
					waitClosed(t, closed)
					// The slot was given back: the next call gets it (a
					// guard ends the wait for a slot never given back).
					ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
					defer cancel()
					c = open(ctx)
					if err := c.Close(); err != nil {
						t.Error(err)
					}
					waitClosed(t, closed)
				})
			}
		}
	}
}

// The tests in this file are not parallel: each checks on its own that no
// goroutine outlives it (leakcheck.Check), and TestMain checks the package.
// A stream's connection is released when the server sees it closed: its
// handler's context ends.

// endless serves records of format f until the client goes away, then
// closes closed. Each connection is counted on conns.
func endless(f streamFormat, closed chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer close(closed)
		w.Header().Set("Content-Type", f.ctype)
		io.WriteString(w, f.open)
		for i := 0; r.Context().Err() == nil; i++ {
			if _, err := io.WriteString(w, f.record(i, fmt.Sprintf(`{"n":%d}`, i+1))); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// stall serves one record of format f, then waits until the client goes
// away, and closes closed.
func stall(f streamFormat, closed chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer close(closed)
		w.Header().Set("Content-Type", f.ctype)
		io.WriteString(w, f.open+f.record(0, `{"n":1}`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

func TestStreamBreakReleases(t *testing.T) {
	leakcheck.Check(t)
	for _, f := range streamFormats {
		for _, tw := range twins {
			t.Run(f.name+"/"+tw.name, func(t *testing.T) {
				closed := make(chan struct{})
				_, b := tw.setup(t, endless(f, closed))
				s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for rec, err := range s.All() {
					if err != nil || rec.N != n+1 {
						t.Fatalf("record %d: %+v, %v", n+1, rec, err)
					}
					if n++; n == 100 {
						break
					}
				}
				waitClosed(t, closed)
				if err := s.Close(); err != nil {
					t.Errorf("Close after break: %v", err)
				}
			})
		}
	}
}

func TestStreamCloseReleases(t *testing.T) {
	leakcheck.Check(t)
	f := streamFormats[0]
	for _, tw := range twins {
		t.Run(tw.name+"/during the range", func(t *testing.T) {
			closed := make(chan struct{})
			_, b := tw.setup(t, stall(f, closed))
			s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			var recs []streamRec
			for rec, err := range s.All() {
				if err != nil {
					t.Fatalf("a range that Close ends yields no error, got %v", err)
				}
				recs = append(recs, rec)
				// The next record never comes: Close from elsewhere ends
				// the wait for it.
				go s.Close()
			}
			if len(recs) != 1 {
				t.Errorf("%d records, want 1", len(recs))
			}
			waitClosed(t, closed)
		})
		t.Run(tw.name+"/never ranged", func(t *testing.T) {
			closed := make(chan struct{})
			_, b := tw.setup(t, stall(f, closed))
			s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			waitClosed(t, closed)
			if s.Close() != nil {
				t.Error("a second Close failed")
			}
			_, errs := collectStream(s)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), "ranging over a closed stream") {
				t.Errorf("ranging after Close: %v", errs)
			}
		})
		t.Run(tw.name+"/abandoned, its context ends", func(t *testing.T) {
			closed := make(chan struct{})
			_, b := tw.setup(t, stall(f, closed))
			ctx, cancel := context.WithCancel(t.Context())
			if _, err := twinCall(ctx, tw, streamRecs, b, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			cancel()
			waitClosed(t, closed)
		})
	}
}

func TestStreamCancelReleases(t *testing.T) {
	leakcheck.Check(t)
	for _, f := range streamFormats {
		for _, tw := range twins {
			t.Run(f.name+"/"+tw.name, func(t *testing.T) {
				closed := make(chan struct{})
				_, b := tw.setup(t, stall(f, closed))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				s, err := twinCall(ctx, tw, streamRecs, b, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				var errs []error
				for _, err := range s.All() {
					if err != nil {
						errs = append(errs, err)
						continue
					}
					go cancel() // while the range waits for record 2
				}
				if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
					t.Errorf("errors %v, want one matching context.Canceled", errs)
				}
				waitClosed(t, closed)
			})
		}
	}
}

// A stream waiting to resume is released by Close and by its context too.
func TestStreamResumeWaitReleases(t *testing.T) {
	leakcheck.Check(t)
	drop := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "retry: 3600000\nid: 1\ndata: {\"n\":1}\n\n")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	slow := kit.WithRetry(kit.RetryPolicy{MaxDelay: time.Hour}) // waits the server's hour
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			_, b := tw.setup(t, drop, slow)
			s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			for _, err := range s.All() {
				if err != nil {
					t.Fatalf("Close during the wait yields no error, got %v", err)
				}
				go s.Close()
			}

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s, err = twinCall(ctx, tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			var errs []error
			for _, err := range s.All() {
				if err != nil {
					errs = append(errs, err)
				}
				go cancel()
			}
			if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
				t.Errorf("cancel during the wait: %v", errs)
			}
		})
	}
}

// TestStreamAsyncHolds checks what an open stream holds on an AsyncClient:
// its in-flight slot (WithMaxInFlight), given back when the range ends, and
// the call that Close waits for; Close that gives up ends the range with an
// error matching both context.Canceled and ErrClosed.
func TestStreamAsyncHolds(t *testing.T) {
	leakcheck.Check(t)
	f := streamFormats[0]
	closed := make(chan struct{}, 3)
	var first atomic.Bool
	first.Store(true)
	mux := http.NewServeMux()
	mux.HandleFunc("/s", func(w http.ResponseWriter, r *http.Request) {
		done := make(chan struct{})
		go func() { <-done; closed <- struct{}{} }()
		endless(f, done)(w, r)
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		if first.Load() {
			t.Error("a second request was sent while the stream held the only slot")
		}
		serveBody("application/x-ndjson", "{\"n\":9}\n")(w, r)
	})
	srv := serve(t, mux)
	ac, err := kit.NewAsyncClient(srv.URL, kit.WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	s, err := streamRecs.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	other := kit.Get[kit.NoParams, *kit.Stream[streamRec]]("/other").Go(t.Context(), ac, kit.NoParams{})
	n := 0
	for _, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 10 {
			first.Store(false) // the slot is given back when the range ends
			break
		}
	}
	<-closed
	s2, err := other.Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if recs, errs := collectStream(s2); len(recs) != 1 || errs != nil {
		t.Errorf("%v, %v", recs, errs)
	}

	// Close waits for an open stream, and when its context ends cancels it.
	s, err = streamRecs.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := ac.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Close = %v, want context.Canceled: a stream was open", err)
	}
	var errs []error
	for _, err := range s.All() {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) || !errors.Is(errs[0], kit.ErrClosed) {
		t.Errorf("after Close gave up: %v, want one error matching context.Canceled and ErrClosed", errs)
	}
	<-closed
}

// An AsyncClient's Close returns once open streams are closed.
func TestStreamAsyncCloseWaits(t *testing.T) {
	leakcheck.Check(t)
	closed := make(chan struct{})
	srv := serve(t, stall(streamFormats[1], closed))
	ac, err := kit.NewAsyncClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := streamRecs.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- ac.Close(context.Background()) }()
	select {
	case err := <-done:
		t.Fatalf("Close returned (%v) while a stream was open", err)
	default:
	}
	for rec, err := range s.All() {
		if err != nil || rec.N != 1 {
			t.Fatalf("%+v, %v", rec, err)
		}
		break
	}
	if err := <-done; err != nil {
		t.Errorf("Close = %v", err)
	}
	waitClosed(t, closed)
}

// ---------------------------------------------------------------------------
// Defect 5: an event stream stops resuming after a heartbeat: on a resumed
// connection, ": ping" and a blank line reset the last event id to "", so
// the next drop ends the stream with an error. The id is kept across
// connections, as browsers keep it.

type hsEvent struct {
	N int `json:"n"`
}

var hsEvents = kit.Get[kit.NoParams, *kit.Stream[hsEvent]]("/events")

func TestHostileSecSSEHeartbeatKeepsLastEventID(t *testing.T) { // defect 5
	for _, async := range []bool{false, true} {
		name := "sync"
		if async {
			name = "async"
		}
		t.Run(name, func(t *testing.T) {
			var conns atomic.Int32
			var mu sync.Mutex
			var lastIDs []string
			srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
				n := conns.Add(1)
				mu.Lock()
				lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
				mu.Unlock()
				w.Header().Set("Content-Type", "text/event-stream")
				switch n {
				case 1:
					io.WriteString(w, "id: 1\ndata: {\"n\":1}\n\n")
				case 2:
					io.WriteString(w, ": ping\n\n") // a heartbeat, then the drop
				default:
					io.WriteString(w, "id: 2\ndata: {\"n\":2}\n\ndata: [DONE]\n\n")
					return
				}
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler)
			})
			policy := kit.WithRetry(kit.RetryPolicy{BaseDelay: 1, MaxDelay: 1, MaxAttempts: 5})
			var s *kit.Stream[hsEvent]
			var err error
			if async {
				ac := hxAsyncClient(t, srv.URL, policy)
				s, err = hsEvents.Go(hxCtx(t), ac, kit.NoParams{}).Await(hxCtx(t))
			} else {
				c := hxClient(t, srv.URL, policy)
				s, err = hsEvents.Call(hxCtx(t), c, kit.NoParams{})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got []int
			for e, err := range s.Events() {
				if err != nil {
					t.Fatalf("after events %v: %v", got, err)
				}
				got = append(got, e.Data.N)
				if e.Data.N == 2 && e.ID != "2" {
					t.Errorf("event 2 has ID %q", e.ID)
				}
			}
			if !slices.Equal(got, []int{1, 2}) {
				t.Errorf("events %v, want [1 2]", got)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"", "1", "1"}; !slices.Equal(lastIDs, want) {
				t.Errorf("Last-Event-ID of each connection %q, want %q", lastIDs, want)
			}
		})
	}
}

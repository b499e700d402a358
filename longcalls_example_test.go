package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// Each attempt gets 100 ms; the first one hangs, the retry policy sends a
// second, which answers. The call's own WithTimeout still bounds the
// whole.
func ExampleWithAttemptTimeout() {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			<-r.Context().Done() // the first attempt hangs
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"state":"ok"}`)
	}))
	defer srv.Close()

	c, err := kit.NewClient(srv.URL,
		kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}),
		kit.WithAttemptTimeout(time.Second), // generous: on a loaded machine the second attempt must not time out too
		kit.WithTimeout(30*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	st, err := getStatus.Call(context.Background(), c, kit.NoParams{})
	fmt.Println(st.State, err, "after", n.Load(), "attempts")
	// Output: ok <nil> after 2 attempts
}

// A download that goes silent half way ends with ErrIdleTimeout instead
// of hanging.
func ExampleWithIdleTimeout() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write(make([]byte, 500))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // then silence
	}))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithIdleTimeout(100*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	download := kit.Get[struct{ Bytes int }, io.ReadCloser]("/download")
	body, err := download.Call(context.Background(), c, struct{ Bytes int }{1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer body.Close()
	n, err := io.Copy(io.Discard, body)
	fmt.Println(n, "bytes,", errors.Is(err, kit.ErrIdleTimeout))
	// Output: 500 bytes, true
}

// A job answered 202 Accepted is followed to its end: the poller finds
// the operation's URL in the Operation-Location header, waits what
// Retry-After says between polls, and decodes the result.
func ExamplePoller() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	type start struct {
		Body struct {
			Polls      int `json:"polls"`
			RetryAfter int `json:"retry_after"`
		}
	}
	startJob := kit.Post[start, *kit.Response]("/lro/jobs")
	var p start
	p.Body.Polls = 2 // running for two polls; Retry-After: 0
	resp, err := startJob.Call(context.Background(), c, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	poller, err := kit.NewPoller[kittest.LROResult](c, resp, kit.PollOptions{ResultAt: "result"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, strings.TrimPrefix(poller.Token(), srv.URL))
	r, err := poller.Wait(context.Background())
	fmt.Println(r.Output, err)
	// Output:
	// 202 /lro/jobs/1
	// job 1 output <nil>
}

// Curl renders a request as a command line, secrets redacted: here in an
// attempt interceptor, which sees the client's credentials.
func ExampleCurl() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	show := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			cmd, _ := kit.Curl(req, kit.CurlOptions{})
			fmt.Println(strings.ReplaceAll(cmd, srv.URL, "$API"))
			return next(ctx, req)
		}
	}
	c, err := kit.NewClient(srv.URL, kit.WithAuth(kit.Bearer("s3cret")), kit.WithAttemptInterceptors(show),
		kit.WithHeader("User-Agent", "example"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	type user struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	}
	create := kit.Post[struct{ Body user }, map[string]any]("/users")
	_, err = create.Call(context.Background(), c, struct{ Body user }{user{"Ada's", "ada@example.com"}})
	fmt.Println(err)
	// Output:
	// curl -X POST $API/users -H 'Accept: application/json' -H 'Authorization: REDACTED' -H 'Content-Type: application/json' -H 'User-Agent: example' --data-binary '{"name":"Ada'\''s","email":"ada@example.com"}'
	// <nil>
}

// WithDump writes each attempt, secrets redacted, to an io.Writer; here
// for one call, bodies cut at 40 bytes.
func ExampleWithDump() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"state":"ok"}`)
	}))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithAuth(kit.Bearer("s3cret")), kit.WithHeader("User-Agent", "example"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	var b strings.Builder
	_, err = getStatus.Call(context.Background(), c, kit.NoParams{}, kit.WithDump(&b, 40))
	for line := range strings.Lines(b.String()) {
		if strings.HasPrefix(line, "* ") || strings.HasPrefix(line, "< Date:") || strings.HasPrefix(line, "< Content-Length") {
			continue // the address, the time taken, the date
		}
		fmt.Fprint(os.Stdout, strings.ReplaceAll(line, srv.URL, "URL"))
	}
	fmt.Println(err)
	// Output:
	// > GET URL/status
	// > Accept: application/json
	// > Authorization: REDACTED
	// > User-Agent: example
	// >
	// < 200 OK
	// < Content-Type: application/json
	// <
	// < {"state":"ok"}
	// <nil>
}

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// longcallsTour shows the bounds of long calls (an attempt timeout that
// is retried, an idle timeout that resumes an event stream and a
// download), a poller
// following a long-running operation, and the debugging aids: a dump, a
// curl command line and phase timings.
func longcallsTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Long calls: attempt and idle timeouts, pollers, dumps, curl, timings")

	// A server whose first answer never comes: each attempt gets 200 ms,
	// and the retry policy sends another.
	fs := kittest.NewFaultServer(tourTB{}, nil)
	defer fs.Close()
	fs.Script(kittest.FaultHang)
	var timings kit.Timings
	fc, err := kit.NewClient(fs.URL(), kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}),
		kit.WithAttemptTimeout(200*time.Millisecond), kit.WithTimeout(30*time.Second),
		kit.WithObserver(kit.Observer{MeasureTimings: true, CallEnd: func(_ context.Context, r kit.CallResult) { timings = r.Timings }}))
	if err != nil {
		return err
	}
	defer fc.Close()
	getUser := kit.Get[struct{ ID int }, struct {
		Name string `json:"name"`
	}]("/users/{id}")
	u, err := getUser.Call(ctx, fc, struct{ ID int }{1})
	if err != nil {
		return err
	}
	t.say("WithAttemptTimeout(200ms): the first attempt hung, the second got %s (%d requests)", u.Name, fs.Requests())
	t.say("its phases (Observer.MeasureTimings): connect %v, first byte %v, reused %v",
		timings.Connect > 0, timings.FirstByte > 0, timings.Reused)

	// An event stream that goes silent after 2 events on each connection:
	// the idle timeout ends it, and it resumes with Last-Event-ID.
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc), kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
	if err != nil {
		return err
	}
	defer c.Close()
	events := kit.Get[struct {
		Count      int `kit:"count"`
		StallAfter int `kit:"stall_after"`
	}, *kit.Stream[kittest.Event]]("/events", kit.WithIdleTimeout(200*time.Millisecond))
	s, err := events.Call(ctx, c, struct {
		Count      int `kit:"count"`
		StallAfter int `kit:"stall_after"`
	}{5, 2})
	if err != nil {
		return err
	}
	var seqs []int
	for e, err := range s.All() {
		if err != nil {
			return err
		}
		seqs = append(seqs, e.Seq)
	}
	t.say("WithIdleTimeout(200ms) on a stream silent after every 2 events: got %v, each once", seqs)

	// A download silent at byte 70,000: it resumes with Range and If-Range
	// (the server's ETag), in the same reader.
	type file struct {
		Bytes      int `kit:"bytes"`
		StallAfter int `kit:"stall_after"`
	}
	dl := kit.Get[file, io.ReadCloser]("/download", kit.WithIdleTimeout(200*time.Millisecond))
	body, err := dl.Call(ctx, c, file{200000, 70000})
	if err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, body)
	body.Close()
	if err != nil {
		return err
	}
	t.say("WithIdleTimeout(200ms) on a download silent at byte 70000: %d bytes, the rest resumed with Range: bytes=70000-", n)

	// A long-running operation: 202 Accepted, then polls until done.
	type start struct {
		Body struct {
			Polls      int `json:"polls"`
			RetryAfter int `json:"retry_after"`
		}
	}
	var p start
	p.Body.Polls = 2
	resp, err := kit.Post[start, *kit.Response]("/lro/jobs").Call(ctx, c, p)
	if err != nil {
		return err
	}
	polls := 0
	pc, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc), kit.WithObserver(kit.Observer{Poll: func(context.Context, kit.PollInfo) { polls++ }}))
	if err != nil {
		return err
	}
	defer pc.Close()
	poller, err := kit.NewPoller[kittest.LROResult](pc, resp, kit.PollOptions{ResultAt: "result"})
	if err != nil {
		return err
	}
	r, err := poller.Wait(ctx)
	if err != nil {
		return err
	}
	t.say("a 202 with Operation-Location %s: %q after %d polls", strings.TrimPrefix(poller.Token(), baseURL), r.Output, polls)
	resumed, err := kit.ResumePoller[kittest.LROJob](c, poller.Token(), kit.PollOptions{})
	if err != nil {
		return err
	}
	job, err := resumed.Wait(ctx)
	if err != nil {
		return err
	}
	t.say("kit.ResumePoller goes on from a saved Token (the operation's URL): job %d %s", job.ID, job.Status)

	// Debugging: a dump of one call, and the call as a curl command line.
	var dump strings.Builder
	show := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			cmd, err := kit.Curl(req, kit.CurlOptions{})
			if err != nil {
				return nil, err
			}
			t.say("kit.Curl: %s", strings.ReplaceAll(cmd, baseURL, "$API"))
			return next(ctx, req)
		}
	}
	dc, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc), kit.WithAuth(kit.Bearer("tour-token")), kit.WithAttemptInterceptors(show))
	if err != nil {
		return err
	}
	defer dc.Close()
	if _, err := getUser.Call(ctx, dc, struct{ ID int }{2}, kit.WithDump(&dump, 0)); err != nil {
		return err
	}
	for line := range strings.Lines(dump.String()) {
		if strings.HasPrefix(line, "> Authorization") || strings.HasPrefix(line, "< 200") {
			t.say("kit.WithDump: %s", strings.TrimSpace(line))
		}
	}
	return nil
}

// tourTB is what kittest's servers need of a test, for the tour: they
// are closed by the tour itself.
type tourTB struct{}

func (tourTB) Helper()                           {}
func (tourTB) Cleanup(func())                    {}
func (tourTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

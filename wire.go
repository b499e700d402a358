package kit

import (
	"context"
	"crypto/tls"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// Timings are the phases of one attempt, measured with net/http/httptrace
// when an [Observer] asks for them (MeasureTimings): [CallResult] has the
// last attempt's and [RetryInfo] the failed attempt's. DNS, Connect and
// TLS are zero on a reused connection (Reused) and when the phase did not
// happen (an IP address, plain HTTP).
type Timings struct {
	// DNS is the name lookup.
	DNS time.Duration

	// Connect is the TCP connection (all the addresses tried).
	Connect time.Duration

	// TLS is the TLS handshake.
	TLS time.Duration

	// FirstByte is the time from the attempt's start (connection included)
	// to the first byte of the response.
	FirstByte time.Duration

	// Body is the time from the first byte to the end of a buffered
	// body; zero for a streamed result (a Stream or an io.ReadCloser),
	// which the caller reads.
	Body time.Duration

	// Total is the attempt's time, from its start to its response (body
	// included for a buffered result) or its error.
	Total time.Duration

	// Reused says the attempt went over a connection kept from an
	// earlier request.
	Reused bool
}

// Private implementation past this point.

// timingsBox holds the Timings of a call's last attempt; observeSend makes
// it when an observer asks for timings. Safe for concurrent use.
type timingsBox struct{ last atomic.Pointer[Timings] }

// get returns the last attempt's timings (zero when none was made).
func (b *timingsBox) get() Timings {
	if b == nil {
		return Timings{}
	}
	if t := b.last.Load(); t != nil {
		return *t
	}
	return Timings{}
}

// wireLayer is the chain's wire layer, over the transport (and an async
// client's in-flight limit) and under the attempt interceptors: what it
// sees is what is sent. It measures the attempt's phases when the call's
// observer asks (req.timings), and dumps the attempt when WithDump or
// WithDumpLogger is in force. A request with neither passes through.
type wireLayer struct {
	dump    *dumper // the client's WithDump or WithDumpLogger; nil: none
	secrets *secrets
}

func (l *wireLayer) wrap(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		d := req.policy.dump
		if d == nil {
			d = l.dump
		}
		if req.timings == nil && d == nil {
			return next(ctx, req)
		}
		start := time.Now()
		var tr *attemptTrace
		if req.timings != nil {
			tr = &attemptTrace{start: start}
			ctx = httptrace.WithClientTrace(ctx, tr.clientTrace())
		}
		resp, err := next(ctx, req)
		end := time.Now()
		if tr != nil {
			t := tr.timings(end, resp != nil && resp.stream != nil)
			req.timings.last.Store(&t)
		}
		if d != nil {
			d.dump(ctx, l.secrets, req, resp, err, end.Sub(start))
		}
		return resp, err
	}
}

// attemptTrace collects one attempt's httptrace events. The hooks may run
// on the transport's goroutines (a dial racing the request), so the
// instants are atomic.
type attemptTrace struct {
	start                     time.Time
	dnsStart, dnsDone         atomic.Int64 // nanoseconds since start, +1 (0: never)
	connectStart, connectDone atomic.Int64
	tlsStart, tlsDone         atomic.Int64
	firstByte                 atomic.Int64
	reused                    atomic.Bool
}

func (a *attemptTrace) mark(v *atomic.Int64) { v.Store(int64(time.Since(a.start)) + 1) }

// markFirst keeps the first mark of several (happy eyeballs dials).
func (a *attemptTrace) markFirst(v *atomic.Int64) {
	v.CompareAndSwap(0, int64(time.Since(a.start))+1)
}

func (a *attemptTrace) clientTrace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		DNSStart:             func(httptrace.DNSStartInfo) { a.mark(&a.dnsStart) },
		DNSDone:              func(httptrace.DNSDoneInfo) { a.mark(&a.dnsDone) },
		ConnectStart:         func(string, string) { a.markFirst(&a.connectStart) },
		ConnectDone:          func(string, string, error) { a.mark(&a.connectDone) },
		TLSHandshakeStart:    func() { a.mark(&a.tlsStart) },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { a.mark(&a.tlsDone) },
		GotConn:              func(i httptrace.GotConnInfo) { a.reused.Store(i.Reused) },
		GotFirstResponseByte: func() { a.mark(&a.firstByte) },
	}
}

// span is the time between two marks; 0 when either is missing.
func span(from, to *atomic.Int64) time.Duration {
	f, t := from.Load(), to.Load()
	if f == 0 || t == 0 || t < f {
		return 0
	}
	return time.Duration(t - f)
}

// timings turns the marks into Timings, the attempt having ended at end.
func (a *attemptTrace) timings(end time.Time, streamed bool) Timings {
	t := Timings{
		DNS:     span(&a.dnsStart, &a.dnsDone),
		Connect: span(&a.connectStart, &a.connectDone),
		TLS:     span(&a.tlsStart, &a.tlsDone),
		Total:   end.Sub(a.start),
		Reused:  a.reused.Load(),
	}
	if fb := a.firstByte.Load(); fb != 0 {
		t.FirstByte = time.Duration(fb - 1)
		if !streamed && t.Total > t.FirstByte {
			t.Body = t.Total - t.FirstByte
		}
	}
	return t
}

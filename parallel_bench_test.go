package kit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
)

// BenchmarkParallelGet is BenchmarkCallGet under parallel load: one client
// shared by bursts of 64 goroutines (a fan-out, as with errgroup), each
// calling GET /users/{login} of a loopback server once; an op is one burst,
// and the figures per call divide by 64. Its sub-benchmarks run in this
// order, in the same process, each against a server of its own:
//
//	handwritten      net/http + encoding/json (baselineGet), its transport
//	                 keeping 64 idle connections per host: the baseline
//	kit-default      kit.NewClient as it comes
//	kit-tuned        kit.NewClient over the baseline's *http.Client
//	kit-auth-retry-ratelimit  kit.NewClient with WithAuth(Bearer),
//	                 WithRetry(RetryPolicy{}) and WithRateLimit at a rate
//	                 that never makes a caller wait
//
// The server runs in a process of its own, so that what the benchmark
// counts is the client's. Each reports ns/call, allocs/call and B/call,
// cpu-ns/call (the CPU time of the benchmark's process, the client's
// alone, where the system reports it), dials/call, the connections the
// server accepted per call (64 connections over the whole run is about 0;
// a client that closes idle connections after each burst and dials them
// again is far above), and the kit ones x-handwritten and
// x-handwritten-cpu: their wall and CPU time over the baseline's in the
// same run, so a busy machine slows both. On a shared machine the CPU
// ratio moves far less from run to run than the wall one. Targets:
// kit-default and kit-auth-retry-ratelimit at most 1.0. Run it
// interleaved, and compare medians:
//
//	go test -run '^$' -bench ParallelGet -benchtime 0.3s -count 10 .
func BenchmarkParallelGet(b *testing.B) {
	const goroutines = 64
	var baseline, baselineCPU float64 // ns per call of the handwritten client, wall and CPU

	// run measures get through 64 goroutines against a fresh server, which
	// refuses a request without the bearer token when auth is set.
	run := func(b *testing.B, auth, isBaseline bool, mk func(base string) func(ctx context.Context) (benchUser, error)) {
		base, dials := parallelServer(b, auth)
		get := mk(base + "/api")
		ctx := context.Background()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		cpu := processCPU()
		b.ResetTimer()
		var wg sync.WaitGroup
		for b.Loop() {
			for range goroutines {
				wg.Go(func() {
					u, err := get(ctx)
					if err != nil || u.ID != 42 {
						b.Error(u, err)
					}
				})
			}
			wg.Wait()
		}
		b.StopTimer()
		cpu = processCPU() - cpu
		runtime.ReadMemStats(&after)
		calls := float64(b.N) * goroutines
		perCall := float64(b.Elapsed().Nanoseconds()) / calls
		b.ReportMetric(perCall, "ns/call")
		cpuPerCall := float64(cpu.Nanoseconds()) / calls
		if cpu > 0 {
			b.ReportMetric(cpuPerCall, "cpu-ns/call")
		}
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/calls, "allocs/call")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/calls, "B/call")
		b.ReportMetric(float64(dials())/calls, "dials/call")
		if isBaseline {
			baseline, baselineCPU = perCall, cpuPerCall
		} else if baseline > 0 {
			b.ReportMetric(perCall/baseline, "x-handwritten")
			if baselineCPU > 0 && cpu > 0 {
				b.ReportMetric(cpuPerCall/baselineCPU, "x-handwritten-cpu")
			}
		}
	}
	kitGet := func(b *testing.B, opts ...kit.Option) func(base string) func(ctx context.Context) (benchUser, error) {
		return func(base string) func(ctx context.Context) (benchUser, error) {
			c, err := kit.NewClient(base, opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { c.Close() })
			return func(ctx context.Context) (benchUser, error) {
				return benchGet.Call(ctx, c, getUserParams{Login: "octo", Fields: "all"})
			}
		}
	}
	tuned := func() *http.Client {
		return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: goroutines}}
	}

	b.Run("handwritten", func(b *testing.B) {
		hc := tuned()
		b.Cleanup(hc.CloseIdleConnections)
		run(b, false, true, func(base string) func(ctx context.Context) (benchUser, error) {
			return func(ctx context.Context) (benchUser, error) { return baselineGet(ctx, hc, base, "octo", "all") }
		})
	})
	b.Run("kit-default", func(b *testing.B) {
		run(b, false, false, kitGet(b))
	})
	b.Run("kit-tuned", func(b *testing.B) {
		hc := tuned()
		b.Cleanup(hc.CloseIdleConnections)
		run(b, false, false, kitGet(b, kit.WithHTTPClient(hc)))
	})
	b.Run("kit-auth-retry-ratelimit", func(b *testing.B) {
		run(b, true, false, kitGet(b,
			kit.WithAuth(kit.Bearer(parallelToken)),
			kit.WithRetry(kit.RetryPolicy{}),
			kit.WithRateLimit(1e9, 1e6)))
	})
}

const parallelToken = "bench-token"

// The server of BenchmarkParallelGet runs in a process of its own (this
// test binary, started again with parallelServerEnv set), so that the
// allocations the benchmark counts are the client's alone.
const parallelServerEnv = "KIT_PARALLEL_BENCH_SERVER"

func init() {
	if mode := os.Getenv(parallelServerEnv); mode != "" {
		os.Exit(serveParallel(mode == "auth"))
	}
}

// serveParallel is the server process: benchServer's GET handler on
// 127.0.0.1, which answers 401 to a request without the bearer token when
// auth is set. It prints its URL, serves until its standard input closes,
// and answers GET /dials with the connections it accepted (that one's
// not counted).
func serveParallel(auth bool) int {
	body, _ := json.Marshal(benchRecord)
	var dials atomic.Int64
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/dials":
				fmt.Fprint(w, dials.Load()-1)
			case auth && r.Header.Get("Authorization") != "Bearer "+parallelToken:
				http.Error(w, "no token", http.StatusUnauthorized)
			default:
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				w.Write(body)
			}
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				dials.Add(1)
			}
		},
	}
	go srv.Serve(l)
	fmt.Println("http://" + l.Addr().String())
	io.Copy(io.Discard, os.Stdin)
	srv.Close()
	return 0
}

// parallelServer starts a server process (see serveParallel) and returns
// its URL and a function that reports the connections it has accepted.
func parallelServer(b *testing.B, auth bool) (string, func() int64) {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), parallelServerEnv+"="+map[bool]string{true: "auth", false: "open"}[auth])
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("the server process: %v", err)
	}
	base := strings.TrimSpace(line)
	return base, func() int64 {
		hc := &http.Client{Transport: &http.Transport{}}
		defer hc.CloseIdleConnections()
		resp, err := hc.Get(base + "/dials")
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		n, err := strconv.ParseInt(string(text), 10, 64)
		if err != nil {
			b.Fatalf("GET /dials: %q", text)
		}
		return n
	}
}

package kit_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// BenchmarkTransfer256MiB is the memory proof of streamed bodies: it
// uploads (raw and multipart) and downloads 256 MiB through kit, and the
// same through net/http with io.Copy, against a loopback server that
// discards uploads and generates downloads. Each run reports the peak heap
// in use above where it started (peak-heap-MiB, sampled every
// millisecond) and the bytes allocated (alloc-MiB). kit's runs fail above
// 8 MiB of peak growth. CI runs it once:
//
//	go test -run '^$' -bench Transfer256MiB -benchtime 1x .
func BenchmarkTransfer256MiB(b *testing.B) {
	const size = 256 << 20
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /upload", func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if n < size {
			w.WriteHeader(http.StatusBadRequest)
		}
	})
	mux.HandleFunc("GET /download", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(w, kittest.DownloadContent(size))
	})
	srv := serve(b, mux)
	c := newClient(b, srv.URL)
	ac := newAsyncClient(b, srv.URL)
	generated := kit.File{Name: "big.bin", Open: func() (io.ReadCloser, error) {
		return io.NopCloser(kittest.DownloadContent(size)), nil
	}}
	type form struct {
		Title string   `json:"title"`
		Doc   kit.File `json:"doc"`
	}
	rawUpload := kit.Put[struct{ Body kit.File }, *kit.Response]("/upload")
	mpUpload := kit.Put[struct{ Body form }, *kit.Response]("/upload", kit.Multipart())
	download := kit.Get[kit.NoParams, io.ReadCloser]("/download")
	readAll := func(body io.ReadCloser, err error) error {
		if err != nil {
			return err
		}
		defer body.Close()
		n, err := io.Copy(io.Discard, body)
		if err == nil && n != size {
			b.Fatalf("downloaded %d bytes", n)
		}
		return err
	}
	hc := &http.Client{}
	b.Cleanup(hc.CloseIdleConnections)
	runs := []struct {
		name string
		kit  bool
		run  func(ctx context.Context) error
	}{
		{"kit/upload-raw", true, func(ctx context.Context) error {
			_, err := rawUpload.Call(ctx, c, struct{ Body kit.File }{generated})
			return err
		}},
		{"kit/upload-multipart", true, func(ctx context.Context) error {
			_, err := mpUpload.Call(ctx, c, struct{ Body form }{form{"big", generated}})
			return err
		}},
		{"kit/download", true, func(ctx context.Context) error { return readAll(download.Call(ctx, c, kit.NoParams{})) }},
		{"kit-async/download", true, func(ctx context.Context) error {
			return readAll(download.Go(ctx, ac, kit.NoParams{}).Await(ctx))
		}},
		{"net-http/upload", false, func(ctx context.Context) error {
			req, _ := http.NewRequestWithContext(ctx, "PUT", srv.URL+"/upload", kittest.DownloadContent(size))
			resp, err := hc.Do(req)
			if err != nil {
				return err
			}
			io.Copy(io.Discard, resp.Body)
			return resp.Body.Close()
		}},
		{"net-http/download", false, func(ctx context.Context) error {
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/download", nil)
			resp, err := hc.Do(req)
			return readAll(resp.Body, err)
		}},
	}
	for _, r := range runs {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(size)
			var peak, alloc float64
			for b.Loop() {
				p, a, err := measureHeap(func() error { return r.run(b.Context()) })
				if err != nil {
					b.Fatal(err)
				}
				peak, alloc = max(peak, p), max(alloc, a)
			}
			b.ReportMetric(peak, "peak-heap-MiB")
			b.ReportMetric(alloc, "alloc-MiB")
			if r.kit && peak > 8 {
				b.Errorf("%s: the heap grew by %.1f MiB, more than 8 MiB", r.name, peak)
			}
		})
	}
}

// measureHeap runs f and returns the peak growth of the heap in use
// (objects plus unused span space, as MemStats.HeapInuse), sampled every
// millisecond, and the bytes allocated, both in MiB.
func measureHeap(f func() error) (peakMiB, allocMiB float64, err error) {
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/gc/heap/allocs:bytes"},
	}
	read := func() (inuse, allocs uint64) {
		metrics.Read(samples)
		return samples[0].Value.Uint64() + samples[1].Value.Uint64(), samples[2].Value.Uint64()
	}
	runtime.GC()
	start, startAllocs := read()
	peak := start
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	wg.Add(1)
	go func() {
		defer wg.Done()
		local := make([]metrics.Sample, len(samples))
		copy(local, samples)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				metrics.Read(local)
				v := local[0].Value.Uint64() + local[1].Value.Uint64()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	err = f()
	close(stop)
	wg.Wait()
	end, endAllocs := read()
	peak = max(peak, end)
	return float64(peak-start) / (1 << 20), float64(endAllocs-startAllocs) / (1 << 20), err
}

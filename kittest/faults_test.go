package kittest_test

import (
	"errors"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/kithttp/kit/kittest"
)

func TestFaultServerScriptThenNext(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.Script(503, kittest.Fault401)
	for i, want := range []int{503, 401, 200} {
		resp, err := http.Get(fs.URL() + "/health")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("request %d: status %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	if fs.Requests() != 3 || fs.Pending() != 0 {
		t.Errorf("requests %d, pending %d", fs.Requests(), fs.Pending())
	}
}

func TestFaultServerStallEndsOnClose(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.Script(kittest.FaultStall)
	got := make(chan error, 1)
	go func() {
		resp, err := http.Get(fs.URL() + "/health")
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		got <- err
	}()
	for fs.Requests() == 0 {
		time.Sleep(time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { fs.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked on a stalled request")
	}
	<-got
}

// TestFaultServerHugeSize checks that SetHugeSize sets the length of
// FaultHuge's JSON array body.
func TestFaultServerHugeSize(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.SetHugeSize(100 << 10)
	fs.Script(kittest.FaultHuge)
	resp, err := http.Get(fs.URL() + "/users")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(body); n < 100<<10 || n > 100<<10+64<<10 || body[0] != '[' || body[n-1] != ']' {
		t.Errorf("FaultHuge body of %d bytes (%q...%q), want a JSON array of about 100 KiB", n, body[:1], body[n-1:])
	}
}

// DieAfter(n): n requests are answered, then connections are refused.
func TestFaultServerDieAfter(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.DieAfter(2)
	client := &http.Client{Timeout: 10 * time.Second}
	for i := range 2 {
		resp, err := client.Get(fs.URL() + "/health")
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: status %d", i+1, resp.StatusCode)
		}
	}
	if _, err := client.Get(fs.URL() + "/health"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("after dying: %v, want a refused connection", err)
	}
	if fs.Requests() != 2 {
		t.Errorf("%d requests, want 2", fs.Requests())
	}
	fs.Close() // still safe after dying
}

// DieAfter(0) kills the server at once.
func TestFaultServerDieNow(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.DieAfter(0)
	client := &http.Client{Timeout: 10 * time.Second}
	if _, err := client.Get(fs.URL() + "/health"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("%v, want a refused connection", err)
	}
}

// FaultIgnoreRange answers a Range request with the whole body: what a
// resume gets after the resource changed.
func TestFaultServerIgnoreRange(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.Script(kittest.FaultIgnoreRange)
	for i, want := range []int{http.StatusOK, http.StatusPartialContent} {
		req, _ := http.NewRequest(http.MethodGet, fs.URL()+"/download?bytes=100", nil)
		req.Header.Set("Range", "bytes=40-")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || want == http.StatusOK && len(body) != 100 || want != http.StatusOK && len(body) != 60 {
			t.Errorf("request %d: %d with %d bytes, want %d", i+1, resp.StatusCode, len(body), want)
		}
	}
}

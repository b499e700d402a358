package kit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// A download that goes silent after 70,000 bytes resumes: the server
// (kittest's GET /download) offers byte ranges under an ETag, so kit asks
// for the rest with Range: bytes=70000- and If-Range, and the same reader
// goes on. Had the file changed meanwhile, the read would end with
// ErrDownloadChanged instead of splicing two versions.
func ExampleWithIdleTimeout_resume() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL,
		kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}),
		kit.WithIdleTimeout(200*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	type file struct {
		Bytes      int `kit:"bytes"`
		StallAfter int `kit:"stall_after"`
	}
	download := kit.Get[file, io.ReadCloser]("/download")
	body, err := download.Call(context.Background(), c, file{Bytes: 200000, StallAfter: 70000})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer body.Close()
	got, err := io.ReadAll(body)
	if errors.Is(err, kit.ErrDownloadChanged) {
		fmt.Println("changed on the server: download it again")
		return
	}
	want, _ := io.ReadAll(kittest.DownloadContent(200000))
	fmt.Println(len(got), "bytes,", bytes.Equal(got, want), err)
	// Output: 200000 bytes, true <nil>
}

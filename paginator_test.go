package kit

import (
	"net/http"
	"net/url"
	"testing"
)

// pageResponse is a page response as a walk hands it to NextPage.
func pageResponse(t *testing.T, p Paginator, body string, header http.Header) *Response {
	t.Helper()
	l, err := newPageLayout(p)
	if err != nil {
		t.Fatal(err)
	}
	if header == nil {
		header = http.Header{}
	}
	resp := &Response{StatusCode: 200, Header: header, body: []byte(body)}
	var recs []any
	if err := decodePage(l, resp, &recs); err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestBuiltinPaginators(t *testing.T) {
	t.Parallel()
	full := `{"data":[1,2],"meta":{"next":"c2"},"next_cursor":7}`
	short := `{"data":[1]}`
	tests := []struct {
		name   string
		p      Paginator
		caller url.Values
		first  string // FirstPage params, encoded
		body   string
		header http.Header
		next   string // NextPage params (or URL), "" for stop
	}{
		{"PageNumber defaults", PageNumber{}, url.Values{"q": {"x"}}, "page=1&page_size=100&q=x", short, nil, ""},
		{"PageNumber full page", PageNumber{PageSize: 2}, url.Values{"q": {"x"}}, "page=1&page_size=2&q=x", full, nil, "page=2&page_size=2&q=x"},
		{"PageNumber caller's page and size", PageNumber{PageParam: "p", SizeParam: "n"}, url.Values{"p": {"4"}, "n": {"2"}}, "n=2&p=4", full, nil, "n=2&p=5"},
		{"Offset", Offset{Limit: 2}, nil, "limit=2&offset=0", full, nil, "limit=2&offset=2"},
		{"Offset short page", Offset{OffsetParam: "start", LimitParam: "max", Limit: 2}, nil, "max=2&start=0", short, nil, ""},
		{"Cursor nested", Cursor{NextKey: "meta.next"}, url.Values{"q": {"x"}}, "q=x", full, nil, "cursor=c2&q=x"},
		{"Cursor number", Cursor{CursorParam: "after"}, nil, "", full, nil, "after=7"},
		{"Cursor absent", Cursor{}, nil, "", short, nil, ""},
		{"LinkHeader", LinkHeader{}, url.Values{"q": {"x"}}, "q=x", `[1]`, http.Header{"Link": {`<?page=2>; rel="next last"`}}, "URL ?page=2"},
		{"LinkHeader last", LinkHeader{}, nil, "", `[1]`, http.Header{"Link": {`<?page=1>; rel="first"`}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			callerBefore := tt.caller.Encode()
			first := tt.p.FirstPage(cloneValues(tt.caller))
			if got := first.Params.Encode(); got != tt.first {
				t.Fatalf("FirstPage = %q, want %q", got, tt.first)
			}
			firstBefore := first.Params.Encode()
			next, err := tt.p.NextPage(pageResponse(t, tt.p, tt.body, tt.header), first)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			switch {
			case next == nil:
			case next.URL != "":
				got = "URL " + next.URL
			default:
				got = next.Params.Encode()
			}
			if got != tt.next {
				t.Fatalf("NextPage = %q, want %q", got, tt.next)
			}
			if first.Params.Encode() != firstBefore || tt.caller.Encode() != callerBefore {
				t.Fatal("a paginator modified the request or query it was given")
			}
		})
	}
}

// TestNextPageWithoutWalk checks that the built-ins also work on a
// Response that no walk has scanned (a custom paginator wrapping one).
func TestNextPageWithoutWalk(t *testing.T) {
	t.Parallel()
	resp := &Response{StatusCode: 200, Header: http.Header{}, body: []byte(`{"items":[1,2],"meta":{"next":"z"}}`)}
	next, err := PageNumber{PageSize: 2}.NextPage(resp, PageRequest{Params: url.Values{"page": {"1"}, "page_size": {"2"}}})
	if err != nil || next == nil || next.Params.Get("page") != "2" {
		t.Fatalf("PageNumber.NextPage = %+v, %v", next, err)
	}
	resp.page = nil
	next, err = Cursor{NextKey: "meta.next"}.NextPage(resp, PageRequest{Params: url.Values{}})
	if err != nil || next == nil || next.Params.Get("cursor") != "z" {
		t.Fatalf("Cursor.NextPage = %+v, %v", next, err)
	}
	if _, err := (PageNumber{}).NextPage(&Response{Header: http.Header{}, body: []byte(`{"rows":[]}`)}, PageRequest{Params: url.Values{}}); err == nil {
		t.Fatal("a page without records: want an error")
	}
}

package kit

import (
	"math"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzParams is a parameter struct with a field for each routing rule.
type fuzzParams struct {
	ID     string            // {id}
	Seq    int               // {seq}
	Name   string            // query
	Count  int64             // query
	Ratio  float64           // query; NaN and infinities are an error
	Active bool              // query
	Tags   []string          // query, the key repeats
	Extra  map[string]string // one query parameter per entry
	Cursor *string           // query, dropped when nil
	Since  time.Time         // query, RFC 3339
	Trace  string            `kit:"X-Trace,header"`
}

// FuzzParamRouting routes arbitrary values of fuzzParams through a declared
// endpoint's request builder and checks that the URL parses and gives back
// exactly the values given: path segments, query (after the base URL's and
// the template's static parameters) and header.
func FuzzParamRouting(f *testing.F) {
	f.Add("42", 7, "ann", int64(-3), 0.5, true, "a,b", "k", "v", "name", "dup", true, "c1", int64(1700000000), "trace-1")
	f.Add("a/b?c#d", -1, "", int64(0), math.Copysign(0, -1), false, "", "", "", "", "", false, "", int64(0), "")
	f.Add("..", 0, "x", int64(1), math.Inf(1), false, ",", "id", "1", "seq", "2", true, "", int64(-62135596800), "a\r\nb")
	f.Add("é", 1<<40, "&=?", int64(math.MinInt64), 1e21, true, "x,,y", "key", "extra", "fixed", "0", false, "zz", int64(253402300799), "\x00")
	f.Add(".", 3, "%", int64(9), math.NaN(), false, "%zz", "a b", "+", "cursor", "m", true, "%41", int64(-1), " ")
	f.Add("%2F", 2, "\xff", int64(5), 1e-7, true, "\xfe", "\x00", "\xff", "since", "s", true, "\t", int64(1<<40), "\xc0")
	d, err := newEndpointDecl("GET", "/teams/{id}/items/{seq}?fixed=1", reflect.TypeFor[fuzzParams](), reflect.TypeFor[any](), nil)
	if err != nil {
		f.Fatal(err)
	}
	st, err := newTestState("http://example.com/api/v1?key=k")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, id string, seq int, name string, count int64, ratio float64, active bool,
		tags, k1, v1, k2, v2 string, hasCursor bool, cursor string, since int64, trace string) {
		p := fuzzParams{
			ID: id, Seq: seq, Name: name, Count: count, Ratio: ratio, Active: active,
			Extra: map[string]string{k1: v1, k2: v2},
			Since: time.Unix(since, 0).UTC(), Trace: trace,
		}
		if tags != "" {
			p.Tags = strings.Split(tags, ",")
		}
		if hasCursor {
			p.Cursor = &cursor
		}
		or, err := d.request(st, &p, nil)
		wantErr := id == "" || id == "." || id == ".." || math.IsNaN(ratio) || math.IsInf(ratio, 0)
		if err != nil {
			if !wantErr {
				t.Fatalf("request(%+v) = %v; want success", p, err)
			}
			return
		}
		if wantErr {
			t.Fatalf("request(%+v) = %q; want an error", p, or.URL.String())
		}
		if or.Method != "GET" || (or.GetBody != nil) {
			t.Fatalf("request: method %q, body %v", or.Method, (or.GetBody != nil))
		}

		u, err := url.Parse(or.URL.String())
		if err != nil {
			t.Fatalf("request(%+v) URL %q: url.Parse: %v", p, or.URL.String(), err)
		}
		if u.Scheme != "http" || u.Host != "example.com" || u.Fragment != "" {
			t.Fatalf("URL %q: scheme %q host %q fragment %q", or.URL.String(), u.Scheme, u.Host, u.Fragment)
		}
		wantPath := "/api/v1/teams/" + url.PathEscape(id) + "/items/" + strconv.Itoa(seq)
		if got := u.EscapedPath(); got != wantPath {
			t.Fatalf("URL %q: path %q, want %q", or.URL.String(), got, wantPath)
		}
		segs := strings.Split(u.EscapedPath(), "/")
		if len(segs) != 7 {
			t.Fatalf("URL %q: %d path segments, want 7", or.URL.String(), len(segs))
		}
		if got, err := url.PathUnescape(segs[4]); err != nil || got != id {
			t.Fatalf("URL %q: {id} segment %q unescapes to %q, %v; want %q", or.URL.String(), segs[4], got, err, id)
		}
		if got, err := strconv.Atoi(segs[6]); err != nil || got != seq {
			t.Fatalf("URL %q: {seq} segment %q, want %d", or.URL.String(), segs[6], seq)
		}

		// The query: the base URL's, then the template's, then the fields'
		// in declaration order (a map's entries where the map is).
		want := url.Values{"key": {"k"}, "fixed": {"1"}}
		want.Add("name", name)
		want.Add("count", strconv.FormatInt(count, 10))
		want.Add("ratio", "") // checked numerically below
		want.Add("active", strconv.FormatBool(active))
		for _, tag := range p.Tags {
			want.Add("tags", tag)
		}
		for k, v := range p.Extra {
			want.Add(k, v)
		}
		if p.Cursor != nil {
			want.Add("cursor", cursor)
		}
		want.Add("since", p.Since.Format(time.RFC3339Nano))
		got, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			t.Fatalf("URL %q: query does not parse: %v", or.URL.String(), err)
		}
		// ratio is the one value whose text kit chooses: it is the first
		// "ratio" (a map entry named ratio comes after it).
		const ri = 0
		if len(got["ratio"]) != len(want["ratio"]) {
			t.Fatalf("URL %q: ratio %q, want %d values", or.URL.String(), got["ratio"], len(want["ratio"]))
		}
		rf, err := strconv.ParseFloat(got["ratio"][ri], 64)
		if err != nil || rf != ratio || math.Signbit(rf) != math.Signbit(ratio) {
			t.Fatalf("URL %q: ratio %q reads as %v, %v; want %v", or.URL.String(), got["ratio"][ri], rf, err, ratio)
		}
		want["ratio"][ri] = got["ratio"][ri]
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("URL %q:\nquery %q\nwant  %q", or.URL.String(), got, want)
		}
		if since >= -62135596800 && since <= 253402300799 { // years 1 to 9999
			if tm, err := time.Parse(time.RFC3339Nano, got.Get("since")); err != nil || !tm.Equal(p.Since) {
				// the last "since" is the field's (a map entry may come first)
				vals := got["since"]
				tm, err = time.Parse(time.RFC3339Nano, vals[len(vals)-1])
				if err != nil || !tm.Equal(p.Since) {
					t.Fatalf("URL %q: since %q reads as %v, %v; want %v", or.URL.String(), vals, tm, err, p.Since)
				}
			}
		}
		if hv := or.Header.Values("X-Trace"); len(hv) != 1 || hv[0] != trace || len(or.Header) != 3 {
			t.Fatalf("header %q, want X-Trace %q besides Accept and User-Agent", or.Header, trace)
		}
	})
}

package kit

import (
	"net/url"
	"reflect"
	"testing"
)

func TestMergeQueryOrder(t *testing.T) {
	t.Parallel()
	base := url.Values{"k": {"base"}, "v": {"2"}}
	static := url.Values{"k": {"static"}}
	routed := url.Values{"k": {"call"}, "q": {"x"}}
	got := mergeQuery(base, static, routed)
	want := url.Values{"k": {"base", "static", "call"}, "v": {"2"}, "q": {"x"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mergeQuery = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(base, url.Values{"k": {"base"}, "v": {"2"}}) || !reflect.DeepEqual(static, url.Values{"k": {"static"}}) {
		t.Errorf("mergeQuery modified its inputs: base %v, static %v", base, static)
	}
	if got := mergeQuery(nil, nil, routed); !reflect.DeepEqual(got, routed) {
		t.Errorf("mergeQuery(nil, nil, q) = %v, want q", got)
	}
}

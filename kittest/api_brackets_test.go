package kittest

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestAPI_Brackets: /brackets reads queries and form bodies as Rails, PHP
// and Stripe read brackets, and refuses what they would not agree on.
func TestAPI_Brackets(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	cases := []struct{ query, form, want string }{
		{"a[0][b]=x&a[1][b]=y&a[1][c]=z", "", `{"form":null,"query":{"a":[{"b":"x"},{"b":"y","c":"z"}]}}`},
		{"m[k][b]=x&m[j]=1", "", `{"form":null,"query":{"m":{"j":"1","k":{"b":"x"}}}}`},
		{"t[]=a&t[]=b&x=1&x=2", "", `{"form":null,"query":{"t":["a","b"],"x":"2"}}`},
		{"i[0]=a&i[2]=c", "", `{"form":null,"query":{"i":{"0":"a","2":"c"}}}`}, // a gap: not a list
		{"", "items[0][price]=p&metadata[order]=6735&name=n%20m", `{"form":{"items":[{"price":"p"}],"metadata":{"order":"6735"},"name":"n m"},"query":{}}`},
	}
	for _, c := range cases {
		rq := apiTReq{method: "GET", path: "/brackets?" + c.query}
		if c.form != "" {
			rq = apiTReq{method: "POST", path: "/brackets", ctype: "application/x-www-form-urlencoded", body: c.form}
		}
		var got any
		apiTDo(t, srv, rq).decode(t, &got)
		b, _ := json.Marshal(got)
		if string(b) != c.want {
			t.Errorf("%s %s: %s, want %s", c.query, c.form, b, c.want)
		}
	}
	for _, bad := range []string{"a=1&a[b]=2", "a[b]=2&a=1", "a[][b]=x", "a]=1", "a[b]=1&a[]=2", "%zz=1"} {
		apiTGet(t, srv, "/brackets?"+bad).wantError(t, 400, "bad_request")
	}
	apiTDo(t, srv, apiTReq{method: "POST", path: "/brackets", ctype: "application/x-www-form-urlencoded", body: "a[x=1"}).wantError(t, 400, "bad_request")
}

// FuzzReadBrackets: any query or form is read into a tree that marshals
// as JSON, or refused with an error naming the key; never a panic.
func FuzzReadBrackets(f *testing.F) {
	for _, s := range []string{
		"a[0][b]=x&a[1][b]=y", "m[k][b]=x&m[j]=1", "t[]=a&t[]=b&x=1&x=2", "i[0]=a&i[2]=c",
		"a=1&a[b]=2", "a[][b]=x", "a]=1", "%zz=1", "a[b]=1&a[]=2", "&&=&a[0]=&a[0][x]=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		tree, err := apiReadBrackets(raw)
		if err != nil {
			var be *bracketError
			if !errors.As(err, &be) {
				t.Fatalf("%q: error %v is not a *bracketError", raw, err)
			}
			return
		}
		if _, err := json.Marshal(tree); err != nil {
			t.Fatalf("%q: the tree does not marshal: %v", raw, err)
		}
	})
}

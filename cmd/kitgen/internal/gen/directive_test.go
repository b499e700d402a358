package gen

import (
	"strings"
	"testing"
)

func TestParseDirective(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string // canonical form; "" when not a directive
		wantErr string // substring of the error
	}{
		{in: "// a comment"},
		{in: "// kit: the library"},
		{in: "//go:generate go tool kitgen"},
		{in: "//kit:client", want: "//kit:client"},
		{in: "//kit:get /users/{id}", want: "//kit:get /users/{id}"},
		{in: "//kit:post\t/login   noauth", want: "//kit:post /login noauth"},
		{in: "//kit:delete /x?a=b", want: "//kit:delete /x?a=b"},
		{in: "//kit:header If-None-Match: {etag}", want: "//kit:header If-None-Match: {etag}"},
		{in: "//kit:header Accept:application/json ", want: "//kit:header Accept: application/json"},
		{in: "//kit:header X-A:  a  b", want: "//kit:header X-A: a  b"},
		{in: "//kit:query {opts}", want: "//kit:query {opts}"},
		{in: "//kit:query filter[state]: {state}", want: "//kit:query filter[state]: {state}"},
		{in: "//kit:query $select,csv: {fields}", want: "//kit:query $select,csv: {fields}"},
		{in: "//kit:query q,pipes:{q}", want: "//kit:query q,pipes: {q}"},
		{in: "//kit:omitempty sort  order", want: "//kit:omitempty sort order"},
		{in: "//kit:option kit.WithPaginator(kit.LinkHeader{})", want: "//kit:option kit.WithPaginator(kit.LinkHeader{})"},
		{in: "//kit:poll kit.PollOptions{StatusAt: \"properties.state\"}", want: "//kit:poll kit.PollOptions{StatusAt: \"properties.state\"}"},
		{in: "//kit:resource /user/repos", want: "//kit:resource /user/repos"},
		{in: "//kit:url {next}", want: "//kit:url {next}"},
		{in: "//kit:body  {manifest}", want: "//kit:body {manifest}"},
		{in: "// kit:get /x", wantErr: "no space after the slashes"},
		{in: "//kit:gett /x", wantErr: "unknown directive //kit:gett"},
		{in: "//kit:client x", wantErr: "takes no arguments"},
		{in: "//kit:get", wantErr: "needs a path"},
		{in: "//kit:get /x auth", wantErr: `unexpected "auth"`},
		{in: "//kit:resource /x noauth", wantErr: "takes one path"},
		{in: "//kit:header X-A {a}", wantErr: "want //kit:header"},
		{in: "//kit:header X A: {a}", wantErr: "not an HTTP token"},
		{in: "//kit:header X-A:", wantErr: "missing value"},
		{in: "//kit:header X-A: {a b}", wantErr: "not a parameter name"},
		{in: "//kit:query state: open", wantErr: "write a constant as ?state=open"},
		{in: "//kit:query {a} {b}", wantErr: "unexpected"},
		{in: "//kit:query q,tsv: {q}", wantErr: `query name "q,tsv" cannot be written in a kit tag (after a comma: csv, ssv or pipes`},
		{in: "//kit:query ,csv: {q}", wantErr: `query name "" cannot be written`},
		{in: "//kit:query a,csv,ssv: {q}", wantErr: `query name "a,csv,ssv" cannot be written`},
		{in: "//kit:omitempty", wantErr: "needs parameter names"},
		{in: "//kit:omitempty a-b", wantErr: "not a parameter name"},
		{in: "//kit:option", wantErr: "needs a Go expression"},
		{in: "//kit:option kit.NoAuth(", wantErr: "//kit:option:"},
		{in: "//kit:option kit.NoAuth() // why", wantErr: "a comment cannot follow"},
		{in: "//kit:poll", wantErr: "//kit:poll needs a Go expression"},
		{in: "//kit:poll kit.PollOptions{", wantErr: "//kit:poll:"},
		{in: "//kit:url next", wantErr: "want {param}"},
		{in: "//kit:body", wantErr: "want //kit:body {param}"},
		{in: "//kit:body {a} {b}", wantErr: "want //kit:body {param}"},
	}
	for _, tt := range tests {
		d, ok, err := ParseDirective(tt.in)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseDirective(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("ParseDirective(%q): %v", tt.in, err)
		case ok != (tt.want != ""):
			t.Errorf("ParseDirective(%q) ok = %v, want %v", tt.in, ok, tt.want != "")
		case ok && d.String() != tt.want:
			t.Errorf("ParseDirective(%q) = %q, want %q", tt.in, d.String(), tt.want)
		}
	}
}

func TestDirectiveOffsets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // the text at the offset of the first argument
	}{
		{"//kit:get /users/{id}", "/users"},
		{"//kit:header If-None-Match: {etag}", "If-None-Match"},
		{"//kit:query {opts}", "{opts}"},
		{"//kit:omitempty  sort order", "sort"},
		{"//kit:client", "client"},
	}
	for _, tt := range tests {
		d, _, err := ParseDirective(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := tt.in[d.Off:]; !strings.HasPrefix(got, tt.want) {
			t.Errorf("ParseDirective(%q): argument at %q, want %q", tt.in, got, tt.want)
		}
	}
	_, _, err := ParseDirective("//kit:header X-A: {a b}")
	if e := err.(*DirectiveError); e.Off != len("//kit:header X-A: {") {
		t.Errorf("error offset = %d, want %d", e.Off, len("//kit:header X-A: {"))
	}
}

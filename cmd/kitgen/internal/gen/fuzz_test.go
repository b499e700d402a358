package gen

import (
	"reflect"
	"testing"
)

// FuzzDirective checks that the directive parser never panics and that
// every directive it accepts prints back as itself: parsing the printed
// form gives the same directive, which prints the same again.
func FuzzDirective(f *testing.F) {
	for _, s := range []string{
		"//kit:client",
		"//kit:get /users/{username}",
		"//kit:post /login noauth",
		"//kit:header If-None-Match: {etag}",
		"//kit:header Accept: application/json",
		"//kit:query {opts}",
		"//kit:query filter[state]: {state}",
		"//kit:omitempty sort order",
		"//kit:option kit.WithPaginator(kit.LinkHeader{})",
		"//kit:poll kit.PollOptions{StatusAt: \"state\"}",
		"//kit:resource /user/repos",
		"//kit:url {next}",
		"// kit:get /x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d, ok, err := ParseDirective(text)
		if err != nil {
			de, isDE := err.(*DirectiveError)
			if !isDE || de.Off < 0 || de.Off > len(text) {
				t.Fatalf("ParseDirective(%q): error %#v: want a *DirectiveError inside the text", text, err)
			}
			return
		}
		if !ok {
			return
		}
		if d.Off < 0 || d.Off > len(text) {
			t.Fatalf("ParseDirective(%q): offset %d outside the text", text, d.Off)
		}
		printed := d.String()
		d2, ok2, err := ParseDirective(printed)
		if err != nil || !ok2 {
			t.Fatalf("ParseDirective(%q) = %q, which does not parse back: ok=%v err=%v", text, printed, ok2, err)
		}
		if !sameDirective(d, d2) {
			t.Fatalf("ParseDirective(%q) = %#v, printed %q, parsed back as %#v", text, d, printed, d2)
		}
		if again := d2.String(); again != printed {
			t.Fatalf("ParseDirective(%q) prints %q, then %q", text, printed, again)
		}
	})
}

// sameDirective compares two directives without their offsets.
func sameDirective(a, b Directive) bool {
	texts := func(d Directive) []any {
		ps := []string{}
		for _, p := range d.Params {
			ps = append(ps, p.Text)
		}
		return []any{d.Verb, d.Path.Text, d.NoAuth, d.Name.Text, d.Param.Text, d.Value.Text, ps, d.Expr.Text}
	}
	return reflect.DeepEqual(texts(a), texts(b))
}

package kit

import "net/url"

// Private implementation past this point.
//
// Path templates ("/teams/{id}/users?kind=x") are parsed and expanded by
// internal/pathtmpl, which kitgen shares; what is left here is how a
// request's query is put together.

// mergeQuery combines the base URL's query, the path's static query and the
// call's parameters (which come last for each key). It returns routed itself
// when there is nothing to merge.
func mergeQuery(base, static, routed url.Values) url.Values {
	if len(base) == 0 && len(static) == 0 {
		return routed
	}
	out := make(url.Values, len(base)+len(static)+len(routed))
	for _, src := range []url.Values{base, static, routed} {
		for k, vs := range src {
			out[k] = append(out[k], vs...)
		}
	}
	return out
}

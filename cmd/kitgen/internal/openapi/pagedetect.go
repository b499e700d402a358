package openapi

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// pagingWhy is what the report says of one method's pages: the paginator
// and the evidence for it, or, with no paginator, why the operation looks
// paged although it is generated as one page.
type pagingWhy struct {
	paginator string // the kit paginator literal; "" when one page
	evidence  string
	note      string // a note for the report, "" for none
}

// explain records what the report says of m's pages: evidence for the
// -v listing, and a note when the user should look.
func (g *generator) explain(m *method, paginator, evidence, note string) {
	if g.paging == nil {
		g.paging = map[*method]*pagingWhy{}
	}
	g.paging[m] = &pagingWhy{paginator, evidence, note}
}

// paginate returns an iter.Seq2 result and adds the paginator option when
// the operation is a paged list, as configured (p, nil when the config and
// the document name none) or detected; "" otherwise.
func (g *generator) paginate(m *method, op *Operation, ok *Response, s *Schema, typ string, p *Paging) (string, error) {
	if p != nil {
		return g.pagedAs(m, op, p, s, typ)
	}
	return g.detect(m, op, ok, s, typ), nil
}

// pagedAs applies the pagination a config or an extension names: the
// records are at p.ItemsKey of the page (the page itself when "", or,
// when the page is an object, where detection finds them: an entry may
// name only the walk, as a token-only cursor does). A pageNumber that
// does not say where its pages start takes the start from the page
// parameter's minimum, default or description.
func (g *generator) pagedAs(m *method, op *Operation, p *Paging, s *Schema, typ string) (string, error) {
	if p.Type == "none" {
		return "", nil
	}
	q := *p // what is inferred here is this operation's
	evidence := []string{"named by " + p.from}
	elem := ""
	switch {
	case q.ItemsKey == "" && strings.HasPrefix(typ, "[]"):
		elem = typ[2:]
	case q.ItemsKey == "":
		key, e, why := g.records(s, typ)
		if key == "" {
			return "", fmt.Errorf("%s: no itemsKey, and the page (%s) is neither an array nor an object with one array of records", p.from, typ)
		}
		q.ItemsKey, elem = key, e
		evidence = append(evidence, why)
	default:
		at := s
		for _, k := range strings.Split(q.ItemsKey, ".") {
			var next *Schema
			if at != nil {
				props, _ := flatten(at, map[*Schema]bool{})
				for _, pr := range props {
					if pr.Name == k {
						next = pr.Schema
					}
				}
			}
			if next == nil {
				return "", fmt.Errorf("%s: itemsKey %q: the page has no field %q", p.from, q.ItemsKey, k)
			}
			at = next
		}
		if core(at).Type != "array" {
			return "", fmt.Errorf("%s: itemsKey %q is not an array in the page", p.from, q.ItemsKey)
		}
		t := g.types.goType(at, "")
		if !strings.HasPrefix(t, "[]") {
			return "", fmt.Errorf("%s: itemsKey %q is a %s, not a list", p.from, q.ItemsKey, t)
		}
		elem = t[2:]
	}
	if q.Type == "pageNumber" && q.Start == "" {
		name := q.PageParam
		if name == "" {
			name = "page"
		}
		for _, prm := range op.Params {
			if prm.In == "query" && prm.Name == name {
				if start, why := pageStart(prm); start != "unknown" {
					q.Start = start
					evidence = append(evidence, why)
				}
			}
		}
	}
	lit := q.literal()
	g.explain(m, lit, strings.Join(evidence, "; "), "")
	return g.paged(m, pagingKinds[q.Type], lit, elem), nil
}

// itemsKeys are the keys of a page object's records, most likely first.
var itemsKeys = []string{"data", "items", "results", "records", "entries", "values", "value", "list", "objects"}

// cursorParams are the names of cursor parameters, most likely first;
// nextKeys the members of a page that hold the next cursor for them.
var cursorParams = []string{"starting_after", "after", "cursor", "page_token", "pageToken", "next_token", "continuation_token", "start_cursor", "marker", "page"}
var nextKeys = []string{"next_cursor", "nextCursor", "next_page_token", "nextPageToken", "last_id", "next_token", "cursor", "marker", "next_page", "next"}

// sameNameCursors are the (normalised) names of a cursor parameter that
// the page answers under the same name (AWS's NextToken, a continuation
// token).
var sameNameCursors = map[string]bool{"nexttoken": true, "continuationtoken": true, "continuation": true, "nextpagetoken": true, "cursor": true, "marker": true, "nextmarker": true}

// hasMoreNames are the (normalised) names of a page's has-more flag.
var hasMoreNames = []string{"hasmore", "hasnext", "hasnextpage", "more", "hasmorepages", "hasmoreitems", "hasmoreresults", "istruncated"}

// nextLinkKeys are the members of a page that hold the next page's URL;
// nextLinkNames the same, normalised, found at any of the page's first
// two levels; linkParents the members that hold a "next" URL.
var nextLinkKeys = []string{"next", "next_page_uri", "next_page_url", "nextLink", "@odata.nextLink", "next_url", "nextPage", "next_page"}
var nextLinkNames = map[string]bool{"nextlink": true, "nexturl": true, "nexturi": true, "nextpageurl": true, "nextpageuri": true, "nextpagelink": true, "nexthref": true}
var linkParents = map[string]bool{"links": true, "paging": true, "pagination": true, "meta": true, "pageinfo": true}

// offsetNames are the (normalised) names of an offset parameter: offset
// and skip always; the others when the page echoes the parameter or
// reports a total, and the parameter does not count from 1 (SCIM's
// startIndex does: walked as an offset from 0, each page would repeat the
// last record of the page before, so it is not one). limitNames are those
// of its page size, most likely first; totalNames those of a total count
// in the page.
var offsetNames = []string{"offset", "skip", "start", "startat", "from"}
var limitNames = []string{"limit", "count", "pagesize", "perpage", "size", "top", "maxresults", "maxitems", "take", "rows"}
var totalNames = map[string]bool{"total": true, "totalcount": true, "totalresults": true, "totalitems": true, "totalsize": true, "count": true}

// pageNames are the (normalised) names of a page-number parameter;
// sizeNames those of its page size, most likely first.
var pageNames = map[string]bool{"page": true, "pagenumber": true, "pageno": true, "pagenum": true, "pageindex": true}
var sizeNames = []string{"perpage", "pagesize", "limit", "size", "count", "pagelimit", "itemsperpage", "resultsperpage", "maxresults"}

// positionNames are the (normalised) names of parameters that say where
// a page starts: an operation with one that is generated as one page
// gets a note.
var positionNames = map[string]bool{"page": true, "pagenumber": true, "pageno": true, "pagenum": true, "pageindex": true,
	"pagetoken": true, "nextpagetoken": true, "cursor": true, "startcursor": true, "marker": true, "offset": true, "skip": true,
	"startingafter": true, "endingbefore": true, "nexttoken": true, "continuationtoken": true, "continuation": true, "startindex": true, "startat": true}

// normName is a name without case and separators: next_page_token,
// nextPageToken and NextPageToken are all nextpagetoken.
func normName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// core is the schema an allOf that only annotates another stands for,
// through chains of them.
func core(s *Schema) *Schema {
	for hop := 0; s != nil && hop < MaxRefHops; hop++ {
		one := allOfOne(s)
		if one == nil || one == s {
			break
		}
		s = one
	}
	return s
}

// scalarSchema reports whether s is a string, an integer or a number.
func scalarSchema(s *Schema) bool {
	return s != nil && (s.Type == "string" || s.Type == "integer" || s.Type == "number")
}

// urlLike reports whether a member holds a URL rather than a cursor.
func urlLike(name string, s *Schema) bool {
	n := normName(name)
	return s.Format == "uri" || s.Format == "url" || s.Format == "uri-reference" ||
		strings.HasSuffix(n, "url") || strings.HasSuffix(n, "uri") || strings.HasSuffix(n, "link") || strings.HasSuffix(n, "href")
}

// pageMember is a member of a page object, at its top level or one
// object down.
type pageMember struct {
	key  string  // dotted: next_marker, meta.next_cursor
	name string  // its last segment, normalised
	s    *Schema // core
	top  bool
}

// pageMembers lists a page's members: its own, then those of its object
// members but the records (names with a dot are left out: a dotted key
// could not name them).
func pageMembers(props []*Property, records string) []pageMember {
	var out []pageMember
	for _, p := range props {
		if !strings.Contains(p.Name, ".") {
			out = append(out, pageMember{p.Name, normName(p.Name), core(p.Schema), true})
		}
	}
	for _, p := range props {
		c := core(p.Schema)
		if p.Name == records || strings.Contains(p.Name, ".") || c == nil || !isObject(c) {
			continue
		}
		sub, _ := flatten(c, map[*Schema]bool{})
		for _, q := range sub {
			if !strings.Contains(q.Name, ".") {
				out = append(out, pageMember{p.Name + "." + q.Name, normName(q.Name), core(q.Schema), false})
			}
		}
	}
	return out
}

// pageInput is a parameter a page request can send: a query parameter,
// or a member of a POST's JSON body.
type pageInput struct {
	name       string
	s          *Schema // core
	param      *Parameter
	inBody     bool
	deprecated bool
}

func (in pageInput) where() string {
	if in.inBody {
		return "body member " + in.name
	}
	return "query " + in.name
}

// pageInputs lists what a request of op can send that may page it.
func pageInputs(op *Operation) []pageInput {
	var out []pageInput
	var names []string
	for _, p := range op.Params {
		if p.In == "query" {
			names = append(names, p.Name)
		}
	}
	for _, p := range op.Params {
		if p.In == "query" {
			s := core(p.Schema)
			out = append(out, pageInput{name: p.Name, s: s, param: p,
				deprecated: p.Deprecated || s != nil && s.Deprecated || deprecatedInProse(p.Name, p.Description, names)})
		}
	}
	if op.Method == "POST" && op.Body != nil {
		for _, mt := range op.Body.Content {
			if jsonType(mt.Type) && mt.Schema != nil && isObject(mt.Schema) {
				props, _ := flatten(mt.Schema, map[*Schema]bool{})
				for _, bp := range props {
					s := core(bp.Schema)
					out = append(out, pageInput{name: bp.Name, s: s, inBody: true, deprecated: s != nil && s.Deprecated})
				}
				break
			}
		}
	}
	return out
}

var deprecatedRE = regexp.MustCompile(`(?i)\bdeprecated\b`)

// deprecatedInProse reports whether a parameter's description says it
// is deprecated: the word, unless another of the operation's query
// parameters follows it ("replaces the deprecated `page` parameter" is
// page_token's description; "deprecated, use page_token" is page's).
func deprecatedInProse(name, desc string, names []string) bool {
	for _, loc := range deprecatedRE.FindAllStringIndex(desc, -1) {
		after := strings.TrimLeft(desc[loc[1]:], " `'\"")
		other := false
		for _, n := range names {
			if rest, ok := strings.CutPrefix(after, n); ok && n != name && (rest == "" || !isWordByte(rest[0])) {
				other = true
			}
		}
		if !other {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// records finds the records of a page: the page itself when it is an
// array; else its member named like records (data, items, entries...);
// else its one array member, through allOf compositions and $refs. key is
// "" for an array page; elem "" when there are no records to find.
func (g *generator) records(s *Schema, typ string) (key, elem, why string) {
	if strings.HasPrefix(typ, "[]") {
		return "", typ[2:], "the page is an array of records"
	}
	if s == nil || !isObject(s) {
		return "", "", ""
	}
	props, _ := flatten(s, map[*Schema]bool{})
	var arrays []*Property
	for _, p := range props {
		if c := core(p.Schema); c != nil && c.Type == "array" && !strings.Contains(p.Name, ".") {
			arrays = append(arrays, p)
		}
	}
	pick := func(p *Property, why string) (string, string, string) {
		t := g.types.goType(p.Schema, "")
		if !strings.HasPrefix(t, "[]") {
			return "", "", ""
		}
		return p.Name, t[2:], why
	}
	for _, k := range itemsKeys {
		for _, p := range arrays {
			if p.Name == k {
				return pick(p, "records in "+k)
			}
		}
	}
	if len(arrays) == 1 {
		return pick(arrays[0], "records in "+arrays[0].Name+", the page's one array")
	}
	var objects []*Property // beside lists of names (SCIM's schemas)
	for _, p := range arrays {
		if it := core(core(p.Schema).Items); it != nil && isObject(it) {
			objects = append(objects, p)
		}
	}
	if len(objects) == 1 {
		return pick(objects[0], "records in "+objects[0].Name+", the page's one array of objects")
	}
	return "", "", ""
}

// found is one way detection found to walk an operation's pages.
type found struct {
	p          *Paging
	evidence   []string
	deprecated string // the deprecated parameter it uses, "" when none
}

// detect returns an iter.Seq2 result when the operation looks like a paged
// list: "" otherwise. Ways that use a deprecated parameter come after
// every other; among the others the first of these wins: a cursor
// parameter answered by the page (next_X for X, in any case style; a
// known cursor's next key; Stripe's last record's id with has_more), a
// next-URL member, a declared Link header, an offset with a page size, a
// page number with a page size.
func (g *generator) detect(m *method, op *Operation, ok *Response, s *Schema, typ string) string {
	itemsKey, elem, recordsWhy := g.records(s, typ)
	inputs := pageInputs(op)
	var props []*Property
	if s != nil && isObject(s) && !strings.HasPrefix(typ, "[]") {
		props, _ = flatten(s, map[*Schema]bool{})
	}
	members := pageMembers(props, itemsKey)
	var ways []found
	if itemsKey != "" {
		ways = append(ways, g.cursors(inputs, members, props, itemsKey)...)
		if k, why := nextLinkMember(props, members); k != "" {
			ways = append(ways, found{p: &Paging{Type: "nextLink", Key: k, ItemsKey: itemsKey}, evidence: []string{why}})
		}
	}
	if elem != "" {
		for h := range ok.Headers {
			if strings.EqualFold(h, "Link") {
				ways = append(ways, found{p: &Paging{Type: "linkHeader", ItemsKey: itemsKey}, evidence: []string{fmt.Sprintf("the %d response declares a Link header", ok.Status)}})
				break
			}
		}
		ways = append(ways, offsetWays(inputs, members, itemsKey)...)
		ways = append(ways, pageWays(inputs, members, itemsKey)...)
	}
	var chosen *found
	var passed []string
	for i := range ways {
		if ways[i].deprecated == "" {
			chosen = &ways[i]
			break
		}
		passed = append(passed, ways[i].deprecated)
	}
	if chosen == nil && len(ways) > 0 {
		chosen = &ways[0]
		chosen.evidence = append(chosen.evidence, chosen.deprecated+" is deprecated, but nothing else pages the operation")
		passed = nil
	}
	if chosen == nil {
		g.onePage(m, op, inputs, elem)
		return ""
	}
	ev := chosen.evidence
	if recordsWhy != "" {
		ev = append(ev, recordsWhy)
	}
	for _, d := range dedupe(passed) {
		ev = append(ev, "not "+d+", which is deprecated")
	}
	note := ""
	if chosen.p.Type == "pageNumber" && chosen.p.Start == "unknown" && !reportsPage(members, chosen.p.PageParam) {
		note = fmt.Sprintf("%s %s: the document does not say where the pages of %s start (no minimum, default or base), and the page does not report its number: the walk lets the server pick the first page, and ends with an error after a full page unless the server sends a Link header; a -config entry can say start: 0 or 1", op.Method, op.Path, chosen.p.PageParam)
	}
	lit := chosen.p.literal()
	g.explain(m, lit, strings.Join(ev, "; "), note)
	return g.paged(m, pagingKinds[chosen.p.Type], lit, elem)
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// cursors returns the cursor walks of an operation, the known cursor
// parameters first (in cursorParams' order), then the others in the
// document's order.
func (g *generator) cursors(inputs []pageInput, members []pageMember, props []*Property, itemsKey string) []found {
	hasMore := ""
	for _, n := range hasMoreNames {
		for _, m := range members {
			if hasMore == "" && m.name == n && m.s != nil && m.s.Type == "boolean" {
				hasMore = m.key
			}
		}
	}
	top := func(name string) *Property {
		for _, p := range props {
			if p.Name == name {
				return p
			}
		}
		return nil
	}
	rank := func(name string) int {
		for i, c := range cursorParams {
			if c == name {
				return i
			}
		}
		return len(cursorParams)
	}
	var ways []found
	var ranks []int
	// A cursor both in the query and in a POST's body is the body's: AWS's
	// JSON APIs read only the body, and documents converted from them
	// declare the token in both.
	inBody := map[string]bool{}
	for _, in := range inputs {
		inBody[in.name] = inBody[in.name] || in.inBody
	}
	for _, in := range inputs {
		if in.s == nil || !scalarSchema(in.s) || inBody[in.name] && !in.inBody {
			continue
		}
		n := normName(in.name)
		p := &Paging{Type: "cursor", CursorParam: in.name, ItemsKey: itemsKey, HasMoreKey: hasMore, InBody: in.inBody}
		why := ""
		// next_X answers X, in any case style.
		for _, m := range members {
			if why == "" && m.name == "next"+n && scalarSchema(m.s) && !urlLike(m.key, m.s) && (in.s.Type == "string" || m.s.Type != "string") {
				p.NextKey, why = m.key, fmt.Sprintf("%s, answered by %s in the page", in.where(), m.key)
			}
		}
		// A known cursor and a known next key.
		if why == "" && rank(in.name) < len(cursorParams) && in.s.Type == "string" {
			for _, k := range nextKeys {
				if q := top(k); why == "" && q != nil {
					if c := core(q.Schema); c != nil && c.Type != "array" && c.Type != "object" && c.Type != "boolean" {
						p.NextKey, why = k, fmt.Sprintf("%s, answered by %s in the page", in.where(), k)
					}
				}
			}
		}
		// A token the page answers under its own name.
		if why == "" && sameNameCursors[n] {
			for _, m := range members {
				if why == "" && m.name == n && m.top && scalarSchema(m.s) {
					p.NextKey, why = m.key, fmt.Sprintf("%s, answered by %s in the page", in.where(), m.key)
				}
			}
		}
		// Stripe: the cursor is the last record's id, and has_more says
		// whether there is a page after.
		if why == "" && (in.name == "starting_after" || in.name == "after") && hasMore != "" && in.s.Type == "string" {
			if items := top(itemsKey); items != nil && core(items.Schema).Items != nil {
				recProps, _ := flatten(core(items.Schema).Items, map[*Schema]bool{})
				for _, rp := range recProps {
					if rp.Name == "id" && why == "" {
						p.RecordKey, why = "id", fmt.Sprintf("%s, the last record's id, while %s", in.where(), hasMore)
					}
				}
			}
		}
		if why == "" {
			continue
		}
		if hasMore != "" && p.RecordKey == "" {
			why += ", while " + hasMore
		}
		f := found{p: p, evidence: []string{why}}
		if in.deprecated {
			f.deprecated = in.name
		}
		// Insert by rank: known cursors first, then document order.
		r := rank(in.name)
		at := len(ways)
		for i := range ways {
			if ranks[i] > r {
				at = i
				break
			}
		}
		ways = append(ways[:at], append([]found{f}, ways[at:]...)...)
		ranks = append(ranks[:at], append([]int{r}, ranks[at:]...)...)
	}
	return ways
}

// nextLinkMember returns the member of a page that holds the next page's
// URL, or "".
func nextLinkMember(props []*Property, members []pageMember) (key, why string) {
	for _, k := range nextLinkKeys {
		for _, p := range props {
			if p.Name == k && core(p.Schema) != nil && core(p.Schema).Type == "string" {
				return k, k + " in the page: the next page's URL"
			}
		}
	}
	for _, m := range members {
		parent, _, nested := strings.Cut(m.key, ".")
		if m.s == nil || m.s.Type != "string" {
			continue
		}
		if nested && m.name == "next" && (linkParents[normName(parent)] || parent == "_links") {
			return m.key, m.key + " in the page: the next page's URL"
		}
		if nextLinkNames[m.name] {
			return m.key, m.key + " in the page: the next page's URL"
		}
	}
	return "", ""
}

// size returns the page size to send for a size parameter: none (kit's
// 100) when the document allows 100; else its maximum; else, without a
// maximum, its default, which the server surely honours. A server that
// answers fewer records than asked ends the walk, so asking more than it
// gives would lose the rest.
func size(in pageInput) (int, string) {
	s := in.s
	if s == nil {
		return 0, ""
	}
	if s.Maximum != nil {
		if *s.Maximum >= 100 {
			return 0, ""
		}
		if *s.Maximum >= 1 {
			return int(*s.Maximum), fmt.Sprintf("%s at most %d", in.name, int(*s.Maximum))
		}
	}
	if d, ok := s.Default.(int); ok && d > 0 {
		return d, fmt.Sprintf("%s by default %d", in.name, d)
	}
	return 0, ""
}

// firstInput returns the first query input (not in a body) whose
// normalised name is in names, in names' order.
func firstInput(inputs []pageInput, names []string, ok func(pageInput) bool) (pageInput, bool) {
	for _, n := range names {
		for _, in := range inputs {
			if !in.inBody && normName(in.name) == n && ok(in) {
				return in, true
			}
		}
	}
	return pageInput{}, false
}

// fromOne reports whether a number's default or minimum is 1.
func fromOne(s *Schema) bool {
	d, _ := s.Default.(int)
	return d == 1 || s.Minimum != nil && *s.Minimum == 1
}

func numeric(in pageInput) bool {
	return in.s != nil && (in.s.Type == "integer" || in.s.Type == "number")
}

// offsetWays returns the offset walk of an operation: an offset
// parameter with a page size, the page's offset and total members as
// more evidence.
func offsetWays(inputs []pageInput, members []pageMember, itemsKey string) []found {
	var reported []string
	for _, m := range members {
		if m.top && (totalNames[m.name] || m.name == "offset") {
			reported = append(reported, m.key)
		}
	}
	echoes := func(name string) bool {
		for _, m := range members {
			if m.top && m.name == normName(name) {
				return true
			}
		}
		return false
	}
	total := false
	for _, m := range members {
		total = total || m.top && totalNames[m.name] && m.s != nil && (m.s.Type == "integer" || m.s.Type == "number")
	}
	off, ok := firstInput(inputs, offsetNames, func(in pageInput) bool {
		n := normName(in.name)
		return n == "offset" || n == "skip" || numeric(in) && (echoes(in.name) || total) && !fromOne(in.s)
	})
	if !ok {
		return nil
	}
	lim, ok := firstInput(inputs, limitNames, func(in pageInput) bool { return in.name != off.name })
	if !ok {
		return nil
	}
	p := &Paging{Type: "offset", OffsetParam: off.name, LimitParam: lim.name, ItemsKey: itemsKey}
	why := fmt.Sprintf("query %s and %s", off.name, lim.name)
	var sizeWhy string
	p.Limit, sizeWhy = size(lim)
	if sizeWhy != "" {
		why += " (" + sizeWhy + ")"
	}
	if len(reported) > 0 {
		why += ", the page reports " + strings.Join(reported, ", ")
	}
	f := found{p: p, evidence: []string{why}}
	switch {
	case off.deprecated:
		f.deprecated = off.name
	case lim.deprecated:
		f.deprecated = lim.name
	}
	return []found{f}
}

// pageWays returns the page-number walk of an operation: an integer page
// parameter with a page size, starting where the parameter says.
func pageWays(inputs []pageInput, members []pageMember, itemsKey string) []found {
	var page pageInput
	ok := false
	for _, in := range inputs {
		if !ok && !in.inBody && pageNames[normName(in.name)] && in.s != nil && in.s.Type == "integer" {
			page, ok = in, true
		}
	}
	if !ok {
		return nil
	}
	sz, ok := firstInput(inputs, sizeNames, func(in pageInput) bool { return in.name != page.name })
	if !ok {
		return nil
	}
	p := &Paging{Type: "pageNumber", PageParam: page.name, SizeParam: sz.name, ItemsKey: itemsKey}
	var sizeWhy, startWhy string
	p.PageSize, sizeWhy = size(sz)
	p.Start, startWhy = pageStart(page.param)
	why := fmt.Sprintf("query %s and %s", page.name, sz.name)
	if sizeWhy != "" {
		why += " (" + sizeWhy + ")"
	}
	why += "; " + startWhy
	if p.Start == "unknown" && reportsPage(members, page.name) {
		why += ", and the page reports " + page.name
	}
	f := found{p: p, evidence: []string{why}}
	switch {
	case page.deprecated:
		f.deprecated = page.name
	case sz.deprecated:
		f.deprecated = sz.name
	}
	return []found{f}
}

// reportsPage reports whether a page has a top-level member named like
// the page parameter, which a StartUnknown walk reads.
func reportsPage(members []pageMember, name string) bool {
	for _, m := range members {
		if m.top && m.key == name && m.s != nil && (m.s.Type == "integer" || m.s.Type == "number" || m.s.Type == "string") {
			return true
		}
	}
	return false
}

var (
	zeroBasedRE = regexp.MustCompile(`(?i)\b(0|zero)[- ]based\b|\b(start|begin)s?( counting)? (at|from|with) (0|zero)\b|\bfirst page is (page )?(0|zero)\b`)
	oneBasedRE  = regexp.MustCompile(`(?i)\b(1|one)[- ]based\b|\b(start|begin)s?( counting)? (at|from|with) (1|one)\b|\bfirst page is (page )?(1|one)\b`)
)

// pageStart returns where a page parameter's pages start, "0", "1" or
// "unknown", and why: its default, else its minimum, else its
// description ("0-based", "starts at 1").
func pageStart(p *Parameter) (start, why string) {
	if p == nil || p.Schema == nil {
		return "unknown", "no first page given: the server picks it"
	}
	s := core(p.Schema)
	if d, ok := s.Default.(int); ok && (d == 0 || d == 1) {
		return strconv.Itoa(d), fmt.Sprintf("%s by default %d: pages from %d", p.Name, d, d)
	}
	if s.Minimum != nil && (*s.Minimum == 0 || *s.Minimum == 1) {
		n := int(*s.Minimum)
		return strconv.Itoa(n), fmt.Sprintf("%s at least %d: pages from %d", p.Name, n, n)
	}
	zero, one := zeroBasedRE.MatchString(p.Description), oneBasedRE.MatchString(p.Description)
	switch {
	case zero && !one:
		return "0", fmt.Sprintf("%s's description says pages start at 0", p.Name)
	case one && !zero:
		return "1", fmt.Sprintf("%s's description says pages start at 1", p.Name)
	}
	return "unknown", fmt.Sprintf("%s has no minimum, default or base: the server picks the first page", p.Name)
}

// onePage notes an operation whose parameters look like paging but whose
// next page detection cannot find: it is generated as one page.
func (g *generator) onePage(m *method, op *Operation, inputs []pageInput, elem string) {
	var looks []string
	for _, in := range inputs {
		n := normName(in.name)
		if positionNames[n] || n == "after" && in.s != nil && in.s.Type == "string" && in.s.Format == "" {
			looks = append(looks, in.name)
		}
	}
	if len(looks) == 0 {
		return
	}
	for _, in := range inputs {
		if n := normName(in.name); !positionNames[n] && (containsName(sizeNames, n) || containsName(limitNames, n)) {
			looks = append(looks, in.name)
		}
	}
	why := "the document does not say how the next page is asked for"
	if elem == "" {
		why = "its page has no one array of records"
	}
	verb := "look"
	if len(looks) == 1 {
		verb = "looks"
	}
	says := fmt.Sprintf("%s %s like paging, but %s", strings.Join(looks, ", "), verb, why)
	g.explain(m, "", says, fmt.Sprintf("%s %s: %s: generated as one page (a -config entry can name its pagination)", op.Method, op.Path, says))
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

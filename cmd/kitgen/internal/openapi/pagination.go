package openapi

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Paging is how one operation's pages are walked, as a config file or an
// extension of the document names it: kit's paginators, field for field.
type Paging struct {
	// Type is cursor, linkHeader, nextLink, offset, pageNumber, or none (a
	// list that is one page: no walk).
	Type string `yaml:"type"`
	// ItemsKey is the dotted key of the records in a page; "" when the
	// page is the array itself.
	ItemsKey string `yaml:"itemsKey"`
	// cursor
	CursorParam string `yaml:"cursorParam"`
	NextKey     string `yaml:"nextKey"`
	RecordKey   string `yaml:"recordKey"`
	HasMoreKey  string `yaml:"hasMoreKey"`
	InBody      bool   `yaml:"inBody"`
	// nextLink
	Key string `yaml:"key"`
	// offset
	OffsetParam string `yaml:"offsetParam"`
	LimitParam  string `yaml:"limitParam"`
	Limit       int    `yaml:"limit"`
	// pageNumber
	PageParam string `yaml:"pageParam"`
	SizeParam string `yaml:"sizeParam"`
	PageSize  int    `yaml:"pageSize"`
	// Start is where the page numbers start: 0, 1, or unknown (the
	// server picks the first page: kit.StartUnknown); "" takes it from
	// the page parameter's minimum, default or description, else 1.
	Start string `yaml:"start"`

	from string // where it was said, for messages
}

// pagingKinds maps a Paging type to the report's paginator kind.
var pagingKinds = map[string]string{
	"cursor": "Cursor", "linkHeader": "LinkHeader", "nextLink": "NextLink",
	"offset": "Offset", "pageNumber": "PageNumber", "none": "",
}

// pageStarts maps a Paging's start to its kit.PageStart.
var pageStarts = map[string]string{"0": "kit.StartAtZero", "1": "kit.StartAtOne", "unknown": "kit.StartUnknown"}

// literal returns the kit paginator of p, as Go.
func (p *Paging) literal() string {
	var fs []string
	str := func(name, v string) {
		if v != "" {
			fs = append(fs, name+": "+strconv.Quote(v))
		}
	}
	num := func(name string, v int) {
		if v != 0 {
			fs = append(fs, name+": "+strconv.Itoa(v))
		}
	}
	switch p.Type {
	case "cursor":
		str("CursorParam", p.CursorParam)
		str("NextKey", p.NextKey)
		str("ItemsKey", p.ItemsKey)
		str("HasMoreKey", p.HasMoreKey)
		str("RecordKey", p.RecordKey)
		if p.InBody {
			fs = append(fs, "InBody: true")
		}
	case "linkHeader":
		str("ItemsKey", p.ItemsKey)
	case "nextLink":
		str("Key", p.Key)
		str("ItemsKey", p.ItemsKey)
	case "offset":
		str("OffsetParam", p.OffsetParam)
		str("LimitParam", p.LimitParam)
		num("Limit", p.Limit)
		str("ItemsKey", p.ItemsKey)
	case "pageNumber":
		str("PageParam", p.PageParam)
		str("SizeParam", p.SizeParam)
		num("PageSize", p.PageSize)
		str("ItemsKey", p.ItemsKey)
		if c := pageStarts[p.Start]; c != "" {
			fs = append(fs, "Start: "+c)
		}
	}
	return "kit." + pagingKinds[p.Type] + "{" + strings.Join(fs, ", ") + "}"
}

// check reports what is wrong with p, without the operation.
func (p *Paging) check() error {
	if _, ok := pagingKinds[p.Type]; !ok {
		return fmt.Errorf("type %q is not one of cursor, linkHeader, nextLink, offset, pageNumber, none", p.Type)
	}
	if p.Limit < 0 || p.PageSize < 0 {
		return fmt.Errorf("a negative limit or pageSize")
	}
	if _, ok := pageStarts[p.Start]; p.Start != "" && !ok {
		return fmt.Errorf("start %q is not 0, 1 or unknown", p.Start)
	}
	if p.Start != "" && p.Type != "pageNumber" {
		return fmt.Errorf("start is a pageNumber's, not a %s's", p.Type)
	}
	if p.Type == "cursor" && p.NextKey != "" && p.RecordKey != "" {
		return fmt.Errorf("a cursor reads nextKey or recordKey, not both")
	}
	for _, k := range []string{p.ItemsKey, p.NextKey, p.RecordKey, p.HasMoreKey, p.Key} {
		if strings.HasPrefix(k, ".") || strings.HasSuffix(k, ".") || strings.Contains(k, "..") {
			return fmt.Errorf("key %q is not a dotted key (like data or links.next)", k)
		}
	}
	return nil
}

// ConfigFile is what a -config file says: how to walk the pages of
// operations the document does not describe well enough to detect.
//
//	pagination:
//	  listEvents:          # an operationId, or "GET /events"
//	    type: cursor
//	    cursorParam: after
//	    nextKey: next
//	    itemsKey: data
//	  GET /reports:        # pages counted from 0
//	    type: pageNumber
//	    start: 0             # 0, 1, or unknown: the server picks the first page
//	  GET /health: none    # a list that is one page
type ConfigFile struct {
	Pagination map[string]*Paging
	Pos        map[string]Pos // where each entry is, for messages
	Name       string         // the file as given
}

// LoadConfig reads a -config file. Unknown keys and malformed entries are
// errors with their positions: the file is the user's, and a typo in it
// should not pass for "no pagination".
func LoadConfig(file string) (*ConfigFile, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("kitgen openapi: read config: %w", err)
	}
	return parseConfig(file, b)
}

// parseConfig reads a -config file's bytes; file names it in messages.
func parseConfig(file string, b []byte) (*ConfigFile, error) {
	name := filepath.Base(file)
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cfg := &ConfigFile{Pagination: map[string]*Paging{}, Pos: map[string]Pos{}, Name: file}
	if len(root.Content) == 0 {
		return cfg, nil
	}
	doc := root.Content[0]
	at := func(n *yaml.Node) Pos { return Pos{File: name, Line: n.Line, Col: n.Column} }
	if doc.Kind != yaml.MappingNode {
		return nil, &Error{Pos: at(doc), Msg: "a config is a mapping with the key pagination"}
	}
	for k, v := range pairs(doc) {
		if k.Value != "pagination" {
			return nil, &Error{Pos: at(k), Msg: fmt.Sprintf("unknown key %q (a config has pagination)", k.Value)}
		}
		if v.Kind != yaml.MappingNode {
			return nil, &Error{Pos: at(v), Msg: "pagination maps operations (an operationId, or \"GET /path\") to how their pages are walked"}
		}
		for op, pv := range pairs(v) {
			p, err := decodePaging(pv)
			if err != nil {
				return nil, &Error{Pos: at(pv), Msg: fmt.Sprintf("pagination of %s: %v", op.Value, err)}
			}
			p.from = fmt.Sprintf("%s:%d", name, pv.Line)
			cfg.Pagination[op.Value] = p
			cfg.Pos[op.Value] = at(op)
		}
	}
	return cfg, nil
}

// decodePaging reads a Paging from "none" or a mapping, refusing unknown
// keys.
func decodePaging(n *yaml.Node) (*Paging, error) {
	if n.Kind == yaml.ScalarNode {
		p := &Paging{Type: n.Value}
		if p.Type != "none" {
			return nil, fmt.Errorf("%q: want none or a mapping with a type", n.Value)
		}
		return p, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("want none or a mapping with a type")
	}
	known := map[string]bool{}
	for _, f := range []string{"type", "itemsKey", "cursorParam", "nextKey", "recordKey", "hasMoreKey", "inBody",
		"key", "offsetParam", "limitParam", "limit", "pageParam", "sizeParam", "pageSize", "start"} {
		known[f] = true
	}
	for k := range pairs(n) {
		if !known[k.Value] {
			return nil, fmt.Errorf("unknown key %q", k.Value)
		}
	}
	var p Paging
	if err := n.Decode(&p); err != nil {
		return nil, err
	}
	return &p, p.check()
}

// configured returns how op's pages are walked when the config file or
// the document says so (in this order: the -config file, x-kit-pagination,
// x-speakeasy-pagination, x-fern-pagination, x-ms-pageable), nil when
// neither does: then kitgen detects it.
func (g *generator) configured(op *Operation) (*Paging, error) {
	if g.config != nil {
		for _, key := range []string{op.ID, op.Method + " " + op.Path} {
			if p, ok := g.config.Pagination[key]; ok && key != "" {
				return p, nil
			}
		}
	}
	ext := func(name string, read func(any) (*Paging, error)) (*Paging, error) {
		v, ok := op.Extensions[name]
		if !ok {
			return nil, nil
		}
		p, err := read(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		p.from = name
		return p, p.check()
	}
	for _, e := range []struct {
		name string
		read func(any) (*Paging, error)
	}{
		{"x-kit-pagination", kitPaging},
		{"x-speakeasy-pagination", speakeasyPaging},
		{"x-fern-pagination", fernPaging},
		{"x-ms-pageable", msPaging},
	} {
		if p, err := ext(e.name, e.read); p != nil || err != nil {
			return p, err
		}
	}
	return nil, nil
}

// checkConfig refuses a config entry that names no operation of the
// document: a typo should not pass for "no pagination".
func checkConfig(doc *Doc, cfg *ConfigFile) error {
	if cfg == nil {
		return nil
	}
	known := map[string]bool{}
	for _, op := range doc.Ops {
		known[op.Method+" "+op.Path] = true
		if op.ID != "" {
			known[op.ID] = true
		}
	}
	for _, s := range doc.Skipped {
		known[s.Method+" "+s.Path] = true
	}
	var bad []string
	for key := range cfg.Pagination {
		if !known[key] {
			bad = append(bad, key)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Slice(bad, func(i, j int) bool { return cfg.Pos[bad[i]].Line < cfg.Pos[bad[j]].Line })
	return &Error{Pos: cfg.Pos[bad[0]], Msg: fmt.Sprintf("pagination of %s: the document has no such operation (write an operationId, or a method and path as in \"GET /users\")", bad[0])}
}

// kitPaging reads x-kit-pagination: the config file's entry, in the
// document.
func kitPaging(v any) (*Paging, error) {
	if s, ok := v.(string); ok {
		if s != "none" {
			return nil, fmt.Errorf("%q: want none or a mapping with a type", s)
		}
		return &Paging{Type: "none"}, nil
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return decodePaging(&n)
}

// jsonPathKey turns a JSONPath into a dotted key: "$.data.items" →
// "data.items", "$response.data" (Fern) → "data".
func jsonPathKey(s, prefix string) (string, error) {
	k, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return "", fmt.Errorf("%q: want a path that starts with %s", s, prefix)
	}
	k = strings.TrimPrefix(k, ".")
	if k == "" {
		return "", nil
	}
	if strings.ContainsAny(k, "[]*?@()'\" ") {
		return "", fmt.Errorf("%q: kit reads dotted keys only", s)
	}
	return k, nil
}

// speakeasyPaging reads x-speakeasy-pagination: type offsetLimit, cursor
// or url, inputs naming the parameters, outputs the JSONPaths of the
// results and the next cursor or URL.
func speakeasyPaging(v any) (*Paging, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a mapping")
	}
	outputs, _ := m["outputs"].(map[string]any)
	p := &Paging{}
	if r, ok := outputs["results"].(string); ok {
		k, err := jsonPathKey(r, "$")
		if err != nil {
			return nil, fmt.Errorf("outputs.results: %w", err)
		}
		p.ItemsKey = k
	}
	inputs := map[string]string{} // type → name
	inBody := false
	list, _ := m["inputs"].([]any)
	for _, in := range list {
		im, _ := in.(map[string]any)
		typ, _ := im["type"].(string)
		name, _ := im["name"].(string)
		if typ == "" || name == "" {
			return nil, fmt.Errorf("an input needs a name and a type")
		}
		inputs[typ] = name
		if where, _ := im["in"].(string); where == "requestBody" && typ == "cursor" {
			inBody = true
		}
	}
	switch t, _ := m["type"].(string); t {
	case "offsetLimit":
		switch {
		case inputs["page"] != "":
			p.Type, p.PageParam, p.SizeParam = "pageNumber", inputs["page"], inputs["limit"]
		case inputs["offset"] != "":
			p.Type, p.OffsetParam, p.LimitParam = "offset", inputs["offset"], inputs["limit"]
		default:
			return nil, fmt.Errorf("type offsetLimit needs an input of type offset or page")
		}
	case "cursor":
		p.Type, p.CursorParam, p.InBody = "cursor", inputs["cursor"], inBody
		next, _ := outputs["nextCursor"].(string)
		if next == "" || p.CursorParam == "" {
			return nil, fmt.Errorf("type cursor needs an input of type cursor and outputs.nextCursor")
		}
		// "$.data[-1].id": the last record's id.
		if rest, ok := strings.CutSuffix(next, "]"); ok && strings.Contains(rest, "[-1") {
			return nil, fmt.Errorf("outputs.nextCursor %q: write the last record's key as $.<results>[-1].<key>", next)
		}
		if items, key, ok := strings.Cut(next, "[-1]."); ok {
			ik, err := jsonPathKey(items, "$")
			if err != nil || ik != p.ItemsKey {
				return nil, fmt.Errorf("outputs.nextCursor %q: a last record's key must be of outputs.results", next)
			}
			p.RecordKey = key
		} else {
			k, err := jsonPathKey(next, "$")
			if err != nil {
				return nil, fmt.Errorf("outputs.nextCursor: %w", err)
			}
			p.NextKey = k
		}
	case "url":
		next, _ := outputs["nextUrl"].(string)
		k, err := jsonPathKey(next, "$")
		if err != nil || k == "" {
			return nil, fmt.Errorf("type url needs outputs.nextUrl, a JSONPath like $.next")
		}
		p.Type, p.Key = "nextLink", k
	default:
		return nil, fmt.Errorf("type %q is not offsetLimit, cursor or url", t)
	}
	return p, nil
}

// fernPaging reads x-fern-pagination: cursor with next_cursor, offset
// (with step: an offset; without: a page number), or next_uri; results
// is the records.
func fernPaging(v any) (*Paging, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a mapping")
	}
	field := func(key, prefix string) (string, error) {
		s, _ := m[key].(string)
		if s == "" {
			return "", nil
		}
		k, err := jsonPathKey(s, prefix)
		if err != nil {
			return "", fmt.Errorf("%s: %w", key, err)
		}
		return k, nil
	}
	p := &Paging{}
	var err error
	if p.ItemsKey, err = field("results", "$response"); err != nil {
		return nil, err
	}
	request := func(key string) (name string, inBody bool, err error) {
		name, err = field(key, "$request")
		if b, ok := strings.CutPrefix(name, "body."); ok {
			return b, true, err
		}
		return name, false, err
	}
	switch {
	case m["cursor"] != nil:
		p.Type = "cursor"
		if p.CursorParam, p.InBody, err = request("cursor"); err != nil {
			return nil, err
		}
		if p.NextKey, err = field("next_cursor", "$response"); err != nil {
			return nil, err
		}
		if p.NextKey == "" {
			return nil, fmt.Errorf("cursor needs next_cursor")
		}
		if p.HasMoreKey, err = field("has-next-page", "$response"); err != nil {
			return nil, err
		}
	case m["offset"] != nil:
		offset, _, err := request("offset")
		if err != nil {
			return nil, err
		}
		step, _, err := request("step")
		if err != nil {
			return nil, err
		}
		if step != "" {
			p.Type, p.OffsetParam, p.LimitParam = "offset", offset, step
		} else {
			p.Type, p.PageParam = "pageNumber", offset
		}
	case m["next_uri"] != nil:
		p.Type = "nextLink"
		if p.Key, err = field("next_uri", "$response"); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("want cursor, offset or next_uri")
	}
	return p, nil
}

// msPaging reads x-ms-pageable: nextLinkName (null: one page) and
// itemName ("value" when absent).
func msPaging(v any) (*Paging, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a mapping")
	}
	items, _ := m["itemName"].(string)
	if items == "" {
		items = "value"
	}
	next, _ := m["nextLinkName"].(string)
	if next == "" {
		return &Paging{Type: "none"}, nil
	}
	return &Paging{Type: "nextLink", Key: next, ItemsKey: items}, nil
}

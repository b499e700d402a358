package openapi

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A Swagger 2.0 document is converted on load into the OpenAPI 3.0 tree it
// stands for, and read as any 3.0 document. The converted nodes keep the
// positions of the ones they come from, so that skips and notes name the
// line of the Swagger document. What has no OpenAPI 3 form is noted.

// swagger2 converts a Swagger 2.0 document's root mapping, of file name,
// into an OpenAPI 3.0 one, and returns it with notes on what it could not
// map.
func swagger2(name string, root *yaml.Node) (*yaml.Node, []Note) {
	c := &swaggerConv{file: name, root: root, bodyParams: map[string]*yaml.Node{}}
	return c.convert(), c.notes
}

type swaggerConv struct {
	file     string
	root     *yaml.Node
	consumes []string // the document's default media types of request bodies
	produces []string // and of responses
	// bodyParams are the document's parameters (#/parameters/...) in body
	// or formData: a reference to one is replaced by the parameter, which
	// becomes part of a request body.
	bodyParams map[string]*yaml.Node
	notes      []Note
}

func (c *swaggerConv) note(at *yaml.Node, format string, args ...any) {
	c.notes = append(c.notes, Note{Pos: node{c.file, at}.pos(), Msg: fmt.Sprintf(format, args...)})
}

// Node constructors: each new node takes the position of at.
func mapping(at *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: at.Line, Column: at.Column}
}

func sequence(at *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: at.Line, Column: at.Column}
}

func scalar(at *yaml.Node, tag, v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v, Line: at.Line, Column: at.Column}
}

// set adds or replaces key in the mapping m.
func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, scalar(v, "!!str", key), v)
}

// copyKeys copies the listed keys and the x- extensions of from into to.
func copyKeys(to, from *yaml.Node, keys ...string) {
	for k, v := range pairs(from) {
		if strings.HasPrefix(k.Value, "x-") || containsString(keys, k.Value) {
			to.Content = append(to.Content, k, v)
		}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func strings_(n *yaml.Node) []string {
	var out []string
	for _, it := range items(n) {
		if s := str(it); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (c *swaggerConv) convert() *yaml.Node {
	root := c.root
	c.consumes, c.produces = strings_(get(root, "consumes")), strings_(get(root, "produces"))
	c.rewrite(root)
	swaggerKey, swaggerVal := entry(root, "swagger")
	// The components first: paths read the body parameters they name.
	comps := mapping(root)
	if k, v := entry(root, "definitions"); v != nil {
		comps.Content = append(comps.Content, scalar(k, "!!str", "schemas"), v)
	}
	if k, v := entry(root, "parameters"); v != nil {
		params := mapping(v)
		for pk, pv := range pairs(v) {
			if in := str(get(pv, "in")); in == "body" || in == "formData" {
				c.bodyParams[pk.Value] = pv
				continue
			}
			params.Content = append(params.Content, pk, c.parameter(pv))
		}
		comps.Content = append(comps.Content, scalar(k, "!!str", "parameters"), params)
	}
	if k, v := entry(root, "responses"); v != nil {
		resps := mapping(v)
		for rk, rv := range pairs(v) {
			resps.Content = append(resps.Content, rk, c.response(rv, c.produces))
		}
		comps.Content = append(comps.Content, scalar(k, "!!str", "responses"), resps)
	}
	if k, v := entry(root, "securityDefinitions"); v != nil {
		schemes := mapping(v)
		for sk, sv := range pairs(v) {
			schemes.Content = append(schemes.Content, sk, c.securityScheme(sk.Value, sv))
		}
		comps.Content = append(comps.Content, scalar(k, "!!str", "securitySchemes"), schemes)
	}
	out := mapping(root)
	out.Content = append(out.Content, scalar(swaggerKey, "!!str", "openapi"), scalar(swaggerVal, "!!str", "3.0.3"))
	for k, v := range pairs(root) {
		switch k.Value {
		case "info", "tags", "externalDocs", "security":
			out.Content = append(out.Content, k, v)
		case "paths":
			out.Content = append(out.Content, k, c.paths(v))
		default:
			if strings.HasPrefix(k.Value, "x-") {
				out.Content = append(out.Content, k, v)
			}
		}
	}
	if servers := c.servers(); servers != nil {
		set(out, "servers", servers)
	}
	if len(comps.Content) > 0 {
		out.Content = append(out.Content, scalar(root, "!!str", "components"), comps)
	}
	return out
}

// rewrite walks the document, the values of examples and extensions
// aside: it points the $refs into the document's own definitions,
// parameters and responses at their OpenAPI 3 places, and writes the
// schema idioms of Swagger 2.0 as OpenAPI 3.0's (type file, x-nullable, a
// discriminator named by a string). A $ref into another file is left as
// it is: that file is read as it is written.
func (c *swaggerConv) rewrite(n *yaml.Node) {
	switch n.Kind {
	case yaml.SequenceNode:
		for _, it := range n.Content {
			c.rewrite(it)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch {
			case k.Value == "example" || k.Value == "examples" || strings.HasPrefix(k.Value, "x-") && k.Value != "x-nullable":
				continue
			case k.Value == "$ref" && v.Kind == yaml.ScalarNode:
				for _, r := range [][2]string{{"#/definitions/", "#/components/schemas/"}, {"#/responses/", "#/components/responses/"}} {
					if rest, ok := strings.CutPrefix(v.Value, r[0]); ok {
						v.Value = r[1] + rest
					}
				}
				// #/parameters/ is rewritten where parameters are read: a
				// body parameter is not a parameter in OpenAPI 3.
			case k.Value == "type" && v.Kind == yaml.ScalarNode && v.Value == "file":
				v.Value = "string"
				if get(n, "format") == nil {
					n.Content = append(n.Content, scalar(k, "!!str", "format"), scalar(v, "!!str", "binary"))
				}
			case k.Value == "x-nullable" && boolean(v):
				if get(n, "nullable") == nil {
					n.Content = append(n.Content, scalar(k, "!!str", "nullable"), scalar(v, "!!bool", "true"))
				}
			case k.Value == "discriminator" && v.Kind == yaml.ScalarNode:
				d := mapping(v)
				d.Content = append(d.Content, scalar(v, "!!str", "propertyName"), v)
				n.Content[i+1] = d
			default:
				c.rewrite(v)
			}
		}
	}
}

// servers builds the servers of host, basePath and schemes.
func (c *swaggerConv) servers() *yaml.Node {
	hostKey, host := entry(c.root, "host")
	basePath := str(get(c.root, "basePath"))
	if host == nil && basePath == "" {
		return nil
	}
	at := hostKey
	if at == nil {
		at, _ = entry(c.root, "basePath")
	}
	out := sequence(at)
	add := func(u string) {
		s := mapping(at)
		s.Content = append(s.Content, scalar(at, "!!str", "url"), scalar(at, "!!str", u))
		out.Content = append(out.Content, s)
	}
	if host == nil {
		add(basePath)
		return out
	}
	schemes := strings_(get(c.root, "schemes"))
	if len(schemes) == 0 {
		schemes = []string{"https"} // the spec: the scheme the document was read with
	}
	for _, s := range schemes {
		add(s + "://" + str(host) + basePath)
	}
	return out
}

// paths converts the path items: their operations' body and formData
// parameters become request bodies, their responses' schemas content.
func (c *swaggerConv) paths(paths *yaml.Node) *yaml.Node {
	out := mapping(paths)
	for pk, item := range pairs(paths) {
		if item.Kind != yaml.MappingNode || get(item, "$ref") != nil {
			out.Content = append(out.Content, pk, item)
			continue
		}
		shared := c.params(get(item, "parameters"))
		ni := mapping(item)
		for k, v := range pairs(item) {
			switch {
			case k.Value == "parameters":
				ps := sequence(v)
				for _, p := range shared {
					if p.body == nil {
						ps.Content = append(ps.Content, p.param)
					}
				}
				ni.Content = append(ni.Content, k, ps)
			case containsString(methods, k.Value) && v.Kind == yaml.MappingNode:
				ni.Content = append(ni.Content, k, c.operation(pk.Value, k, v, shared))
			default:
				ni.Content = append(ni.Content, k, v)
			}
		}
		out.Content = append(out.Content, pk, ni)
	}
	return out
}

// sparam is a converted parameter: param, or, for one in body or
// formData, the raw parameter in body.
type sparam struct {
	name, in string
	param    *yaml.Node
	body     *yaml.Node
}

func (c *swaggerConv) params(list *yaml.Node) []sparam {
	var out []sparam
	for _, p := range items(list) {
		if r := str(get(p, "$ref")); r != "" {
			if name, ok := strings.CutPrefix(r, "#/parameters/"); ok {
				if raw := c.bodyParams[name]; raw != nil {
					out = append(out, sparam{name: str(get(raw, "name")), in: str(get(raw, "in")), body: raw})
					continue
				}
				ref := mapping(p)
				ref.Content = append(ref.Content, scalar(p, "!!str", "$ref"), scalar(get(p, "$ref"), "!!str", "#/components/parameters/"+name))
				out = append(out, sparam{name: "$ref:" + name, param: ref})
				continue
			}
			out = append(out, sparam{name: "$ref:" + r, param: p})
			continue
		}
		name, in := str(get(p, "name")), str(get(p, "in"))
		if in == "body" || in == "formData" {
			out = append(out, sparam{name: name, in: in, body: p})
			continue
		}
		out = append(out, sparam{name: name, in: in, param: c.parameter(p)})
	}
	return out
}

// operation converts one operation; shared are its path item's
// parameters.
func (c *swaggerConv) operation(path string, key, op *yaml.Node, shared []sparam) *yaml.Node {
	consumes, produces := c.consumes, c.produces
	if v := get(op, "consumes"); v != nil {
		consumes = strings_(v)
	}
	if v := get(op, "produces"); v != nil {
		produces = strings_(v)
	}
	own := c.params(get(op, "parameters"))
	// The operation's parameters replace the path item's of the same name
	// and place; body and formData ones make the request body.
	var bodies []sparam
	for _, p := range shared {
		if p.body == nil {
			continue
		}
		overridden := false
		for _, q := range own {
			overridden = overridden || q.name == p.name && q.in == p.in
		}
		if !overridden {
			bodies = append(bodies, p)
		}
	}
	out := mapping(op)
	for k, v := range pairs(op) {
		switch k.Value {
		case "consumes", "produces":
		case "schemes":
			c.note(k, "%s %s: the operation's own schemes are left out: the document's servers are used", strings.ToUpper(key.Value), path)
		case "parameters":
			ps := sequence(v)
			for _, p := range own {
				if p.body != nil {
					bodies = append(bodies, p)
				} else {
					ps.Content = append(ps.Content, p.param)
				}
			}
			out.Content = append(out.Content, k, ps)
		case "responses":
			rs := mapping(v)
			for rk, rv := range pairs(v) {
				rs.Content = append(rs.Content, rk, c.response(rv, produces))
			}
			out.Content = append(out.Content, k, rs)
		default:
			out.Content = append(out.Content, k, v)
		}
	}
	if rb := c.requestBody(strings.ToUpper(key.Value)+" "+path, key, bodies, consumes); rb != nil {
		set(out, "requestBody", rb)
	}
	return out
}

// parameter converts a parameter not in body or formData: its type,
// format, items and constraints make its schema, its collectionFormat its
// style.
func (c *swaggerConv) parameter(p *yaml.Node) *yaml.Node {
	if p.Kind != yaml.MappingNode {
		return p
	}
	out := mapping(p)
	copyKeys(out, p, "name", "in", "description", "required", "allowEmptyValue")
	sch := c.paramSchema(p)
	set(out, "schema", sch)
	in := str(get(p, "in"))
	if str(get(p, "type")) == "array" {
		style, explode := c.collectionFormat(p, in)
		if style != "" {
			set(out, "style", scalar(p, "!!str", style))
		}
		set(out, "explode", scalar(p, "!!bool", fmt.Sprint(explode)))
	}
	return out
}

// paramSchema is the schema a parameter, a header or an items object
// describes with its own fields.
func (c *swaggerConv) paramSchema(p *yaml.Node) *yaml.Node {
	sch := mapping(p)
	for k, v := range pairs(p) {
		switch k.Value {
		case "type", "format", "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
			"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf":
			sch.Content = append(sch.Content, k, v)
		case "items":
			if get(v, "collectionFormat") != nil {
				c.note(k, "items: a collectionFormat of nested lists has no OpenAPI 3 form: left out")
			}
			sch.Content = append(sch.Content, k, c.paramSchema(v))
		case "x-nullable":
			sch.Content = append(sch.Content, k, v)
			if boolean(v) {
				set(sch, "nullable", scalar(v, "!!bool", "true"))
			}
		}
	}
	return sch
}

// collectionFormat gives the style and explode of a list parameter in in.
func (c *swaggerConv) collectionFormat(p *yaml.Node, in string) (string, bool) {
	cf := str(get(p, "collectionFormat"))
	switch cf {
	case "", "csv":
		if in == "query" || in == "formData" {
			return "form", false
		}
		return "simple", false
	case "multi":
		return "form", true
	case "ssv":
		return "spaceDelimited", false
	case "pipes":
		return "pipeDelimited", false
	}
	// tsv and the unknown: a style OpenAPI 3 does not have, which the
	// operation is skipped for, rather than sent as another.
	k, _ := entry(p, "collectionFormat")
	c.note(k, "parameter %s: collectionFormat %s has no OpenAPI 3 style", str(get(p, "name")), cf)
	return "collectionFormat " + cf, false
}

// requestBody makes the request body of an operation's body parameter or
// formData parameters, in the media types it consumes.
func (c *swaggerConv) requestBody(op string, key *yaml.Node, params []sparam, consumes []string) *yaml.Node {
	var body *yaml.Node
	var form []sparam
	for _, p := range params {
		if p.in == "body" {
			body = p.body
		} else {
			form = append(form, p)
		}
	}
	if body != nil && len(form) > 0 {
		c.note(key, "%s: a body parameter and formData parameters: the formData ones are left out", op)
	}
	switch {
	case body != nil:
		rb := mapping(body)
		copyKeys(rb, body, "description", "required")
		if len(consumes) == 0 {
			consumes = []string{"application/json"}
		}
		sch := get(body, "schema")
		if sch == nil {
			sch = mapping(body)
		}
		content := mapping(body)
		for _, mt := range consumes {
			m := mapping(body)
			m.Content = append(m.Content, scalar(body, "!!str", "schema"), sch)
			content.Content = append(content.Content, scalar(body, "!!str", mt), m)
		}
		set(rb, "content", content)
		return rb
	case len(form) > 0:
		at := form[0].body
		mt := ""
		for _, m := range consumes {
			if m := mediaType(m); m == "multipart/form-data" || m == "application/x-www-form-urlencoded" && mt == "" {
				mt = m
			}
		}
		sch, required := mapping(at), sequence(at)
		props, enc := mapping(at), mapping(at)
		for _, p := range form {
			if str(get(p.body, "type")) == "file" || str(get(p.body, "type")) == "string" && str(get(p.body, "format")) == "binary" {
				mt = "multipart/form-data" // a file is sent in parts only
			}
			ps := c.paramSchema(p.body)
			copyKeys(ps, p.body, "description")
			k, _ := entry(p.body, "name")
			if k == nil {
				k = p.body
			}
			props.Content = append(props.Content, scalar(k, "!!str", p.name), ps)
			if boolean(get(p.body, "required")) {
				required.Content = append(required.Content, scalar(k, "!!str", p.name))
			}
			if str(get(p.body, "type")) == "array" {
				style, explode := c.collectionFormat(p.body, "formData")
				e := mapping(k)
				e.Content = append(e.Content, scalar(k, "!!str", "style"), scalar(k, "!!str", style),
					scalar(k, "!!str", "explode"), scalar(k, "!!bool", fmt.Sprint(explode)))
				enc.Content = append(enc.Content, scalar(k, "!!str", p.name), e)
			}
		}
		if mt == "" {
			mt = "application/x-www-form-urlencoded"
		}
		sch.Content = append(sch.Content, scalar(at, "!!str", "type"), scalar(at, "!!str", "object"), scalar(at, "!!str", "properties"), props)
		if len(required.Content) > 0 {
			sch.Content = append(sch.Content, scalar(at, "!!str", "required"), required)
		}
		m := mapping(at)
		m.Content = append(m.Content, scalar(at, "!!str", "schema"), sch)
		if len(enc.Content) > 0 {
			m.Content = append(m.Content, scalar(at, "!!str", "encoding"), enc)
		}
		content := mapping(at)
		content.Content = append(content.Content, scalar(at, "!!str", mt), m)
		rb := mapping(at)
		if len(required.Content) > 0 {
			rb.Content = append(rb.Content, scalar(at, "!!str", "required"), scalar(at, "!!bool", "true"))
		}
		rb.Content = append(rb.Content, scalar(at, "!!str", "content"), content)
		return rb
	}
	return nil
}

// response converts a response: its schema is its content in the media
// types of produces, its headers' fields their schemas.
func (c *swaggerConv) response(r *yaml.Node, produces []string) *yaml.Node {
	if r.Kind != yaml.MappingNode || get(r, "$ref") != nil {
		return r
	}
	out := mapping(r)
	copyKeys(out, r, "description")
	if get(r, "description") == nil {
		set(out, "description", scalar(r, "!!str", ""))
	}
	if hs := get(r, "headers"); hs != nil {
		headers := mapping(hs)
		for hk, hv := range pairs(hs) {
			h := mapping(hv)
			copyKeys(h, hv, "description")
			set(h, "schema", c.paramSchema(hv))
			headers.Content = append(headers.Content, hk, h)
		}
		set(out, "headers", headers)
	}
	if sch := get(r, "schema"); sch != nil {
		if len(produces) == 0 {
			produces = []string{"application/json"}
		}
		content := mapping(sch)
		for _, mt := range produces {
			m := mapping(sch)
			m.Content = append(m.Content, scalar(sch, "!!str", "schema"), sch)
			content.Content = append(content.Content, scalar(sch, "!!str", mt), m)
		}
		set(out, "content", content)
	}
	return out
}

// securityScheme converts a security definition: basic is HTTP's scheme,
// an oauth2 flow one of OpenAPI 3's flows.
func (c *swaggerConv) securityScheme(name string, s *yaml.Node) *yaml.Node {
	if s.Kind != yaml.MappingNode {
		return s
	}
	out := mapping(s)
	typ := str(get(s, "type"))
	switch typ {
	case "basic":
		out.Content = append(out.Content, scalar(s, "!!str", "type"), scalar(s, "!!str", "http"), scalar(s, "!!str", "scheme"), scalar(s, "!!str", "basic"))
		copyKeys(out, s, "description")
	case "apiKey":
		copyKeys(out, s, "type", "name", "in", "description")
	case "oauth2":
		copyKeys(out, s, "type", "description")
		flow := map[string]string{"implicit": "implicit", "password": "password", "application": "clientCredentials", "accessCode": "authorizationCode"}[str(get(s, "flow"))]
		if flow == "" {
			c.note(s, "security scheme %s: oauth2 flow %q is not implicit, password, application or accessCode", name, str(get(s, "flow")))
			break
		}
		f := mapping(s)
		copyKeys(f, s, "authorizationUrl", "tokenUrl")
		scopes := get(s, "scopes")
		if scopes == nil {
			scopes = mapping(s)
		}
		set(f, "scopes", scopes)
		flows := mapping(s)
		flows.Content = append(flows.Content, scalar(s, "!!str", flow), f)
		set(out, "flows", flows)
	default:
		c.note(s, "security scheme %s: type %q is not basic, apiKey or oauth2", name, typ)
		copyKeys(out, s, "type", "description")
	}
	return out
}

package openapi

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/kithttp/kit/cmd/kitgen/internal/safetext"
)

// Webhook is a request the API sends: an entry of OpenAPI 3.1's webhooks,
// or a callback of an operation (3.0), whose POST body is the payload.
type Webhook struct {
	// Name is the webhooks key, or the callback's name.
	Name string
	// Op is the POST operation that describes the delivery.
	Op *Operation
	// Payload is the JSON body's schema.
	Payload *Schema
}

// webhooks reads the document's webhooks (3.1) and its operations'
// callbacks (3.0 and later): each POST with a JSON body is one; anything
// else is noted and left out.
func (l *loader) webhooks(d *Doc, name string, root node) {
	for k, v := range pairs(get(root.n, "webhooks")) {
		l.webhook(d, k.Value, node{name, v}, node{name, k}.pos())
	}
	for path, item := range pairs(get(root.n, "paths")) {
		pi, err := l.deref(node{name, item})
		if err != nil {
			continue // pathItem reported it
		}
		for _, m := range methods {
			_, opn := entry(pi.n, m)
			for cbName, cb := range pairs(get(opn, "callbacks")) {
				cbn, err := l.deref(node{pi.file, cb})
				if err != nil {
					l.notes = append(l.notes, Note{Pos: node{pi.file, cbName}.pos(), Msg: fmt.Sprintf("callback %s of %s %s: %v", cbName.Value, strings.ToUpper(m), path.Value, err)})
					continue
				}
				for _, exprItem := range pairs(cbn.n) {
					l.webhook(d, cbName.Value, node{cbn.file, exprItem}, node{cbn.file, cbName}.pos())
				}
			}
		}
	}
}

func (l *loader) webhook(d *Doc, name string, item node, at Pos) {
	resolved, err := l.deref(item)
	if err != nil {
		l.notes = append(l.notes, Note{Pos: at, Msg: fmt.Sprintf("webhook %s: %v", name, err)})
		return
	}
	item = resolved
	for _, m := range methods {
		key, opn := entry(item.n, m)
		if opn == nil {
			continue
		}
		opAt := node{item.file, key}.pos()
		if m != "post" {
			l.notes = append(l.notes, Note{Pos: opAt, Msg: fmt.Sprintf("webhook %s: %s: only POST deliveries are received; left out", name, strings.ToUpper(m))})
			continue
		}
		op, err := l.operation(node{item.file, opn}, opAt, "POST", "webhook "+name, node{})
		if err != nil {
			l.notes = append(l.notes, Note{Pos: opAt, Msg: fmt.Sprintf("webhook %s: %v; left out", name, err)})
			continue
		}
		var payload *Schema
		if op.Body != nil {
			for _, mt := range op.Body.Content {
				if mt.Type == "application/json" || strings.HasSuffix(mt.Type, "+json") {
					payload = mt.Schema
					break
				}
			}
		}
		if payload == nil {
			l.notes = append(l.notes, Note{Pos: opAt, Msg: fmt.Sprintf("webhook %s: no JSON body; left out", name)})
			continue
		}
		d.Webhooks = append(d.Webhooks, &Webhook{Name: name, Op: op, Payload: payload})
	}
}

// hook is a webhook as generated: its method, payload type and the event
// type that routes to it ("" when the document gives none).
type hook struct {
	w      *Webhook
	method string
	typ    string
	event  string
	ctor   string // its own handler's constructor, when the webhooks share none
}

// eventKeys are the members a payload's event type is looked for in, after
// the payload's own discriminator.
var eventKeys = []string{"type", "event", "event_type", "eventType", "kind"}

// buildWebhooks gives each webhook its method name and payload type, and
// finds the member whose single value tells the webhooks apart.
func (g *generator) buildWebhooks() {
	names := newNamer("ServeHTTP")
	for _, w := range g.doc.Webhooks {
		g.types.err = nil
		method := names.name(exported(w.Name, "Webhook"))
		typ := g.types.goType(w.Payload, method+"Payload")
		if e := g.types.err; e != nil {
			g.note(e.Pos, fmt.Sprintf("webhook %s: left out: %s", w.Name, e.Msg))
			g.types.err = nil
			continue
		}
		g.hooks = append(g.hooks, &hook{w: w, method: method, typ: typ})
	}
	if len(g.hooks) == 0 {
		return
	}
	// Top-level names after every type's: a schema named Webhooks keeps
	// its name, and the interface gets another.
	g.hookIface = g.names.name("Webhooks")
	g.hookCtor = g.names.name("New" + g.hookIface + "Handler")
	if len(g.hooks) < 2 {
		return
	}
	for _, key := range g.eventKeyCandidates() {
		values := map[string]bool{}
		ok := true
		for _, h := range g.hooks {
			v := constMember(h.w.Payload, key)
			if v == "" || values[v] {
				ok = false
				break
			}
			values[v] = true
		}
		if ok {
			g.hookKey = key
			for _, h := range g.hooks {
				h.event = constMember(h.w.Payload, key)
			}
			return
		}
	}
	for _, h := range g.hooks {
		h.ctor = g.names.name("New" + h.method + "Handler")
	}
	g.note(g.hooks[0].w.Op.Pos, "webhooks: no payload member holds a single value that tells them apart (a discriminator, or type/event/kind with one enum value); each gets a handler of its own to mount at its own URL")
}

func (g *generator) eventKeyCandidates() []string {
	var keys []string
	if d := objectOf(g.hooks[0].w.Payload).Discriminator; d != nil && d.Property != "" {
		keys = append(keys, d.Property)
	}
	return append(keys, eventKeys...)
}

// objectOf is s, or the one object of an allOf composition.
func objectOf(s *Schema) *Schema {
	if s == nil {
		return &Schema{}
	}
	if o := allOfOne(s); o != nil {
		return o
	}
	return s
}

// constMember returns the single string value that object schema s gives
// its member key (an enum of one, or a const), looking through allOf.
func constMember(s *Schema, key string) string {
	if s == nil {
		return ""
	}
	for _, p := range s.Properties {
		if p.Name == key && p.Schema != nil && len(p.Schema.Enum) == 1 {
			if v, ok := p.Schema.Enum[0].(string); ok {
				return v
			}
		}
	}
	for _, part := range s.AllOf {
		if v := constMember(part, key); v != "" {
			return v
		}
	}
	return ""
}

// webhookDecls writes the Webhooks interface and the constructors of its
// handlers.
func (g *generator) webhookDecls(b *bytes.Buffer, specName string) {
	if len(g.hooks) == 0 {
		return
	}
	hooks := append([]*hook(nil), g.hooks...)
	sort.SliceStable(hooks, func(i, j int) bool { return hooks[i].method < hooks[j].method })
	iface, ctor := g.hookIface, g.hookCtor
	fmt.Fprintf(b, "\n// %s is what the API sends: one method per webhook of the document,\n", iface)
	b.WriteString("// each given the verified delivery with its payload decoded. Implement it\n")
	if len(hooks) == 1 || g.hookKey != "" {
		fmt.Fprintf(b, "// and mount the handler %s returns where the API delivers.\n", ctor)
	} else {
		b.WriteString("// and mount the handler of each where the API delivers it.\n")
	}
	b.WriteString("// A method's error answers 500, and the API sends the delivery again.\n")
	fmt.Fprintf(b, "type %s interface {\n", iface)
	for i, h := range hooks {
		if i > 0 {
			b.WriteString("\n")
		}
		m := &method{name: h.method, op: h.w.Op}
		g.methodDoc(b, m)
		fmt.Fprintf(b, "\t// openapi: %s:%d\n", specName, h.w.Op.Pos.Line)
		fmt.Fprintf(b, "\t%s(ctx context.Context, d *kitwebhook.Delivery[%s]) error\n", h.method, h.typ)
	}
	b.WriteString("}\n")
	if len(hooks) == 1 || g.hookKey != "" {
		fmt.Fprintf(b, "\n// %s returns the handler of the API's webhooks: it verifies\n", ctor)
		b.WriteString("// each delivery with scheme (the scheme the API signs with, and its secrets),\n")
		b.WriteString("// drops the ones it already took, and calls impl's method")
		if g.hookKey != "" {
			fmt.Fprintf(b, " for the\n// payload's %q member:\n//\n", g.hookKey)
			for _, h := range hooks {
				fmt.Fprintf(b, "//   - %s: %s\n", safetext.Comment(h.event), h.method)
			}
			b.WriteString("//\n// A delivery of another event type is acknowledged and left alone.\n")
		} else {
			b.WriteString(".\n")
		}
		b.WriteString("// opts are kitwebhook's (WithSeenStore, WithTolerance, WithObserver, ...).\n")
		fmt.Fprintf(b, "func %s(impl %s, scheme kitwebhook.Scheme, opts ...kitwebhook.Option) (*kitwebhook.Handler, error) {\n", ctor, iface)
		if g.hookKey != "" && g.hookKey != "type" {
			fmt.Fprintf(b, "\topts = append([]kitwebhook.Option{kitwebhook.WithEventKey(%q)}, opts...)\n", g.hookKey)
		}
		b.WriteString("\th, err := kitwebhook.NewHandler(scheme, opts...)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n")
		for _, h := range hooks {
			fmt.Fprintf(b, "\tkitwebhook.Handle(h, %q, impl.%s)\n", h.event, h.method)
		}
		b.WriteString("\treturn h, nil\n}\n")
		return
	}
	for _, h := range hooks {
		fmt.Fprintf(b, "\n// %s returns the handler of the API's %s webhook, to mount at\n", h.ctor, safetext.Comment(h.w.Name))
		b.WriteString("// the URL the API delivers it to: it verifies each delivery with scheme,\n")
		fmt.Fprintf(b, "// drops the ones it already took, and calls impl.%s.\n", h.method)
		fmt.Fprintf(b, "func %s(impl %s, scheme kitwebhook.Scheme, opts ...kitwebhook.Option) (*kitwebhook.Handler, error) {\n", h.ctor, iface)
		b.WriteString("\th, err := kitwebhook.NewHandler(scheme, opts...)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n")
		fmt.Fprintf(b, "\tkitwebhook.Handle(h, \"\", impl.%s)\n\treturn h, nil\n}\n", h.method)
	}
}

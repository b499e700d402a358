package openapi

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// lro is how the poller of a long-running operation follows it, and why.
type lro struct {
	// result is the schema of the operation's result, decoded from its
	// last poll; nil when that is not the result (the method's poller
	// then gives the last poll's *kit.Response).
	result *resultSchema
	// statusAt is where a poll's body holds the operation's state, ""
	// for none: the operation is done when a poll answers other than 202.
	statusAt string
	// evidence is what in the document says so (the -v listing), and
	// note a remark for the report, "" for none.
	evidence []string
	note     string
}

// operationHeaders are the response headers that name the URL of an
// operation's status, which kit's poller follows before Location.
var operationHeaders = []string{"Operation-Location", "Azure-AsyncOperation"}

// successStates are the states kit's default terminal-state rule takes
// as success (poller.go's isDone).
var successStates = []string{"succeeded", "success", "successful", "completed", "complete", "done"}

// longRunning reports whether op is a long-running operation, and how
// its poller follows it: marked x-ms-long-running-operation: true, or
// answering 202 with a Location, Operation-Location or
// Azure-AsyncOperation header. nil for any other operation.
func (g *generator) longRunning(op *Operation) *lro {
	l := &lro{}
	marked, _ := op.Extensions["x-ms-long-running-operation"].(bool)
	var accepted *Response
	var declared []string // the operation headers the answers declare
	hasLocation := false
	for _, r := range op.Responses {
		if r.Status < 200 || r.Status >= 300 {
			continue
		}
		for h := range r.Headers {
			switch {
			case strings.EqualFold(h, "Location"):
				hasLocation = true
			case slices.ContainsFunc(operationHeaders, func(o string) bool { return strings.EqualFold(h, o) }):
				if !slices.Contains(declared, h) {
					declared = append(declared, h)
				}
			}
		}
		if r.Status == http.StatusAccepted {
			accepted = r
		}
	}
	slices.Sort(declared)
	switch {
	case marked:
		l.evidence = append(l.evidence, "x-ms-long-running-operation: true")
	case accepted != nil && (hasLocation || len(declared) > 0):
		var hs []string
		for h := range accepted.Headers {
			if strings.EqualFold(h, "Location") || slices.ContainsFunc(operationHeaders, func(o string) bool { return strings.EqualFold(h, o) }) {
				hs = append(hs, h)
			}
		}
		if len(hs) == 0 {
			return nil // the headers are another answer's: a 202 that names no operation
		}
		slices.Sort(hs)
		l.evidence = append(l.evidence, "a 202 answer declaring "+strings.Join(hs, " and "))
	default:
		return nil
	}

	// Where the result is: the last poll's body, unless the document says
	// it is read from another URL than the one kit's poller follows.
	via := ""
	if opts, ok := op.Extensions["x-ms-long-running-operation-options"].(map[string]any); ok {
		via, _ = opts["final-state-via"].(string)
	}
	final := finalResult(op)
	switch {
	case strings.EqualFold(via, "original-uri"):
		l.evidence = append(l.evidence, "final-state-via original-uri")
		l.note = fmt.Sprintf("%s %s: its result is read with a GET of the resource once the operation ends (final-state-via original-uri), which kit's poller does not send: the poller ends with the last poll's *kit.Response", op.Method, op.Path)
		final = nil
	case via == "" && marked && (op.Method == "PUT" || op.Method == "PATCH") && len(declared) > 0:
		l.evidence = append(l.evidence, "final-state-via original-uri (Azure's rule for a PUT or PATCH that declares "+declared[0]+")")
		l.note = fmt.Sprintf("%s %s: its result is read with a GET of the resource once the operation ends (Azure's rule for a PUT or PATCH answered with %s), which kit's poller does not send: the poller ends with the last poll's *kit.Response", op.Method, op.Path, declared[0])
		final = nil
	case strings.EqualFold(via, "location") && len(declared) > 0:
		l.evidence = append(l.evidence, "final-state-via location")
		l.note = fmt.Sprintf("%s %s: its result is read from the Location URL once the operation ends (final-state-via location), but kit's poller follows the %s URL: the poller ends with the last poll's *kit.Response", op.Method, op.Path, declared[0])
		final = nil
	case via != "":
		l.evidence = append(l.evidence, "final-state-via "+via)
	}
	switch {
	case final != nil:
		l.result = final
		l.evidence = append(l.evidence, "the result from the "+final.from+" answer")
	case l.note == "" && accepted != nil && jsonSchema(accepted) != nil:
		// The 202 is the operation's status, which the poller reads
		// until it ends: the result is that status.
		l.result = &resultSchema{jsonSchema(accepted), "202"}
		l.evidence = append(l.evidence, "the result from the 202 answer (the operation's status)")
	case l.note == "":
		l.evidence = append(l.evidence, "no result (the last poll's *kit.Response)")
	}

	// The terminal state: a status member of what the poller reads, else
	// the HTTP status.
	var polled *Schema
	if accepted != nil {
		polled = jsonSchema(accepted)
	}
	if polled == nil && l.result != nil {
		polled = l.result.schema
	}
	if at, why := stateMember(polled); at != "" {
		l.statusAt = at
		l.evidence = append(l.evidence, why)
	} else {
		if why != "" {
			l.evidence = append(l.evidence, why)
		}
		l.evidence = append(l.evidence, "done when a poll answers other than 202 (or by an Azure operation status)")
	}
	return l
}

// resultSchema is a result's schema and the status of the answer that
// declares it.
type resultSchema struct {
	schema *Schema
	from   string
}

// finalResult is the schema of the 200 or 201 JSON answer, in that order;
// nil when neither has one.
func finalResult(op *Operation) *resultSchema {
	for _, status := range []int{http.StatusOK, http.StatusCreated} {
		for _, r := range op.Responses {
			if r.Status == status {
				if s := jsonSchema(r); s != nil {
					return &resultSchema{s, fmt.Sprint(status)}
				}
			}
		}
	}
	return nil
}

// jsonSchema is the schema of an answer's JSON content, nil when it has
// none.
func jsonSchema(r *Response) *Schema {
	for _, mt := range r.Content {
		if jsonType(mt.Type) && mt.Schema != nil {
			return mt.Schema
		}
	}
	return nil
}

// stateMember finds the member of a poll's body that holds the
// operation's state: status, state or provisioningState (Azure's), a
// string whose values, when the document lists them, include one kit's
// poller takes as success. why says what was found, or why a member was
// passed over.
func stateMember(s *Schema) (at, why string) {
	if s == nil || !isObject(s) {
		return "", ""
	}
	props, _ := flatten(s, map[*Schema]bool{})
	for _, name := range []string{"status", "state", "provisioningState"} {
		for _, p := range props {
			if p.Name != name || p.Schema == nil || p.Schema.Type != "" && p.Schema.Type != "string" {
				continue
			}
			if len(p.Schema.Enum) == 0 {
				return name, "the state at its " + name + " member"
			}
			var values []string
			known := false
			for _, v := range p.Schema.Enum {
				text := fmt.Sprint(v)
				values = append(values, text)
				known = known || slices.Contains(successStates, strings.ToLower(text))
			}
			if known {
				return name, "the state at its " + name + " member (" + strings.Join(values, ", ") + ")"
			}
			why = "its " + name + " member names no state kit takes as success (" + strings.Join(values, ", ") + ")"
		}
	}
	return "", why
}

// pollOptions is the kit.PollOptions literal of a poller; doneFunc names
// the terminal-state rule of the HTTP status, for an operation that shows
// no state.
func (l *lro) pollOptions(doneFunc string) string {
	switch l.statusAt {
	case "status":
		return "kit.PollOptions{}"
	case "":
		return "kit.PollOptions{Done: " + doneFunc + "}"
	}
	return fmt.Sprintf("kit.PollOptions{StatusAt: %q}", l.statusAt)
}

// pollerResult makes m the method that starts op and returns its poller,
// and declares the function that resumes it from a token.
func (g *generator) pollerResult(m *method, l *lro, base string) {
	typ := "*kit.Response"
	if l.result != nil {
		typ = g.types.goType(l.result.schema, base+"Result")
	}
	m.result = "(*kit.Poller[" + typ + "], error)"
	m.poller = l
	done := ""
	if l.statusAt == "" {
		done = g.doneByStatus()
	}
	opts := l.pollOptions(done)
	if opts != "kit.PollOptions{}" {
		m.directives = append(m.directives, "//kit:poll "+opts)
	}
	resume := g.names.name("Resume" + base)
	var doc strings.Builder
	for _, line := range wrap76(fmt.Sprintf("%s returns the poller of the operation that %s started, from its Token (kept in this process or another), through c (a *Client).", resume, m.name)) {
		doc.WriteString("// " + line + "\n")
	}
	m.decls = append(m.decls, fmt.Sprintf("%sfunc %s(c kit.Binding, token string) (*kit.Poller[%s], error) {\n\treturn kit.ResumePoller[%s](c, token, %s)\n}\n", doc.String(), resume, typ, typ, opts))
}

// doneByStatus returns the name of the terminal-state rule of the
// pollers whose operation shows no state, declaring it on first use.
func (g *generator) doneByStatus() string {
	if g.doneFunc == "" {
		g.doneFunc = g.names.name("operationDone")
		for _, im := range []string{"encoding/json", "fmt", "net/http", "strings"} {
			g.types.imports[im] = true
		}
	}
	return g.doneFunc
}

// doneByStatusDecl is the declaration of that rule, "" when unused.
func (g *generator) doneByStatusDecl() string {
	if g.doneFunc == "" {
		return ""
	}
	return strings.ReplaceAll(`// NAME is the terminal-state rule of the operations whose document
// shows no state. The first answer (to a request other than a GET) ends
// the operation unless it names where to poll it (an Operation-Location,
// Azure-AsyncOperation or Location header). A poll answered 202 Accepted
// is running; another 2xx ends it, unless it is an operation's status as
// Azure's guidelines write it ({"status": "Running"}, also NotStarted and
// InProgress, running; Failed, Canceled, failed).
func NAME(resp *kit.Response) (bool, error) {
	if resp.Request != nil && resp.Request.Method != http.MethodGet {
		h := resp.Header
		return h.Get("Operation-Location") == "" && h.Get("Azure-AsyncOperation") == "" && h.Get("Location") == "", nil
	}
	if resp.StatusCode == http.StatusAccepted {
		return false, nil
	}
	var op struct {
		Status string `+"`json:\"status\"`"+`
	}
	if json.Unmarshal(resp.Bytes(), &op) == nil {
		switch strings.ToLower(op.Status) {
		case "notstarted", "running", "inprogress":
			return false, nil
		case "failed", "canceled", "cancelled":
			return true, fmt.Errorf("its state is %q", op.Status)
		}
	}
	return true, nil
}
`, "NAME", g.doneFunc)
}

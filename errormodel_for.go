package kit

import (
	"fmt"
	"strconv"
	"strings"
)

// WithErrorModelFor is [WithErrorModel] for some statuses only: the body of
// a response with one of statuses is decoded into a new E, kept as a *E in
// HTTPError.Model; other statuses keep the model they had. An API whose
// failed login answers 400 with a login flow, and every other error with
// its usual model, is declared
//
//	c, _ := kit.NewClient(base, kit.WithErrorModel[APIError]())
//	login := kit.Post[LoginParams, Session]("/login",
//		kit.WithErrorModelFor[LoginFlow](http.StatusBadRequest))
//
// and then errors.As finds a *LoginFlow in what a failed login returns
// for a 400, a *APIError for a 500.
//
// It is a [RequestOption], and the option rule holds status by status:
// for a response's status, the call's options are looked at first, then
// the declaration's, then the client's; at each level a model given for
// that status wins over the level's model for every status
// ([WithErrorModel], [WithErrorModelAt]), and of two given for the same
// status the last wins. The first level that has a model for the status
// decodes the body. Bodies that are not the model (see [HTTPError])
// leave Model nil, as with WithErrorModel. Each status must be a
// client or server error status (400-599), and at least one must be
// given; otherwise NewClient, the declaration or the call fails.
func WithErrorModelFor[E any](statuses ...int) RequestOption {
	m := newErrorModel[E](nil, "")
	f := &errorModelFor{m: m, statuses: statuses}
	if m.problem == "" {
		if len(statuses) == 0 {
			f.problem = fmt.Sprintf("%s: no status given", f)
		}
		for _, s := range statuses {
			if s < 400 || s > 599 {
				f.problem = fmt.Sprintf("%s: %d is not an error status (400-599)", f, s)
				break
			}
		}
	} else {
		f.problem = f.String() + strings.TrimPrefix(m.problem, m.name())
	}
	return requestOption[errorModelForOption]{errorModelForOption{f}}
}

// Private implementation past this point.

// errorModels is the error models of one level (a client, a declaration,
// a call): its model for every status, and its models for some.
type errorModels struct {
	all    *errorModel   // WithErrorModel(At); nil: none at this level
	status []statusModel // WithErrorModelFor, in the order given
	// outer is the next level out, for a call's models: its declaration's.
	// nil: the client's apply (transport.go's httpError looks them up).
	outer *errorModels
}

type statusModel struct {
	status int
	m      *errorModel
}

// find returns the model for status: at the first level that has one, its
// model for that status, else its model for every status. nil: none.
func (ms *errorModels) find(status int) *errorModel {
	for ; ms != nil; ms = ms.outer {
		for i := len(ms.status) - 1; i >= 0; i-- {
			if ms.status[i].status == status {
				return ms.status[i].m
			}
		}
		if ms.all != nil {
			return ms.all
		}
	}
	return nil
}

// with returns a copy of ms (nil: empty) changed by set: a level's
// settings are copied before they change, as a declaration's are shared
// with the calls already made.
func (ms *errorModels) with(set func(*errorModels)) *errorModels {
	out := &errorModels{}
	if ms != nil {
		out.all, out.outer = ms.all, ms.outer
		out.status = append([]statusModel(nil), ms.status...)
	}
	set(out)
	return out
}

// over returns the call's models ms over the declaration's outer: ms
// itself when it has a model for every status (outer would never be
// looked at), else a copy that falls back on outer.
func (ms *errorModels) over(outer *errorModels) *errorModels {
	if ms == nil {
		return outer
	}
	if ms.all != nil || outer == nil {
		return ms
	}
	return ms.with(func(c *errorModels) { c.outer = outer })
}

// errorModelFor is WithErrorModelFor's setting.
type errorModelFor struct {
	m        *errorModel
	statuses []int
	problem  string
}

func (f *errorModelFor) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "WithErrorModelFor[%s](", f.m.typ)
	for i, s := range f.statuses {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(s))
	}
	b.WriteByte(')')
	return b.String()
}

// errorModelForOption is WithErrorModelFor. It holds a pointer, so it
// stays comparable.
type errorModelForOption struct{ f *errorModelFor }

func (o errorModelForOption) applyRequest(c *requestConfig, _ level) error {
	if o.f.problem != "" {
		return fmt.Errorf("%s", o.f.problem)
	}
	c.errorModel = c.errorModel.with(func(ms *errorModels) {
		for _, s := range o.f.statuses {
			ms.status = append(ms.status, statusModel{s, o.f.m})
		}
	})
	return nil
}

func (o errorModelForOption) String() string { return "kit." + o.f.String() }

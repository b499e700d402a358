//go:build !kit_novalidator

package kit

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-playground/validator/v10"
)

// tagChecker checks `validate` tags with go-playground/validator (the
// default build; validate_notags.go is the kit_novalidator build's).
type tagChecker struct {
	v atomic.Pointer[validator.Validate]

	// go-playground/validator sees a Nullable[T] field through a custom
	// type function registered per instantiation. Registering is not safe
	// while the validator is in use, so a validator is never changed once
	// published: a model with a Nullable type not yet registered publishes
	// a new one, with every type so far (a rare event: once per type).
	mu        sync.Mutex
	nullables []reflect.Type
}

// check validates the tags of v, a struct of type t or a pointer to one,
// returning the fields that fail, or an error when the tags cannot be
// checked.
func (tc *tagChecker) check(v any, t reflect.Type) ([]FieldError, error) {
	err := tc.run(v)
	var fes validator.ValidationErrors
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &fes):
		fields := make([]FieldError, 0, len(fes))
		for _, fe := range fes {
			fields = append(fields, FieldError{
				Path:    trimModelName(fe.StructNamespace(), t.Name()),
				Rule:    fe.Tag(),
				Message: ruleMessage(fe),
			})
		}
		return fields, nil
	}
	return nil, err
}

// run runs go-playground/validator, turning the panic it raises on a
// malformed `validate` tag (a typo such as "requried") into an error: a call
// must not crash the program.
func (tc *tagChecker) run(v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bad validate tag: %v", r)
		}
	}()
	return tc.validator().Struct(v)
}

// validator returns the published validator, making the first.
func (tc *tagChecker) validator() *validator.Validate {
	if v := tc.v.Load(); v != nil {
		return v
	}
	tc.register(nil)
	return tc.v.Load()
}

// register publishes a validator that knows the Nullable types ts, unless
// the published one does.
func (tc *tagChecker) register(ts []reflect.Type) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	added := false
	for _, t := range ts {
		if !slices.Contains(tc.nullables, t) {
			tc.nullables = append(tc.nullables, t)
			added = true
		}
	}
	if !added && tc.v.Load() != nil {
		return
	}
	v := validator.New(validator.WithRequiredStructEnabled())
	if len(tc.nullables) > 0 {
		zeros := make([]any, len(tc.nullables))
		for i, t := range tc.nullables {
			zeros[i] = reflect.Zero(t).Interface()
		}
		v.RegisterCustomTypeFunc(nullableValidated, zeros...)
	}
	tc.v.Store(v)
}

// trimModelName turns "User.Address.City" into "Address.City". name is the
// model's type name, which may itself hold dots: a generic type's name is
// like "Page[example.com/api.User]".
func trimModelName(ns, name string) string {
	if rest, ok := strings.CutPrefix(ns, name+"."); ok {
		return rest
	}
	if _, rest, ok := strings.Cut(ns, "."); ok {
		return rest
	}
	return ns
}

func ruleMessage(fe validator.FieldError) string {
	p := fe.Param()
	switch fe.Tag() {
	case "required":
		return "is required"
	case "email":
		return "must be an email address"
	case "url", "http_url":
		return "must be a URL"
	case "uuid", "uuid4":
		return "must be a UUID"
	case "min":
		return "must be at least " + p
	case "max":
		return "must be at most " + p
	case "len":
		return "must have length " + p
	case "gt":
		return "must be greater than " + p
	case "gte":
		return "must be at least " + p
	case "lt":
		return "must be less than " + p
	case "lte":
		return "must be at most " + p
	case "oneof":
		return "must be one of " + p
	}
	if p != "" {
		return fmt.Sprintf("failed rule %s=%s", fe.Tag(), p)
	}
	return "failed rule " + fe.Tag()
}

package kit

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Validator validates data models: request bodies before they are sent and
// response models after they are decoded. v is a pointer to a struct. It
// returns nil, a [*ValidationError], or another error describing the failure.
// Implementations must be safe for concurrent use.
//
// The default validator applies go-playground/validator struct tags
// (`validate:"required,email"`) and then, where the type has one, a
// Validate() error method. Slices are validated element by element by kit.
//
// A program built with the kit_novalidator build tag
// (go build -tags kit_novalidator) does not link go-playground/validator,
// which makes it about 2.5 MiB smaller (a one-endpoint program, stripped:
// 9.9 MiB, 7.4 MiB with the tag). Its default validator runs Validate()
// methods only, and a model with `validate` tags fails its call with an
// error saying so (never a silent pass). Code kitgen generates carries no
// `validate` tags, so a generated client loses nothing.
type Validator interface {
	Validate(v any) error
}

// Private implementation past this point.

// selfValidator is a data model with its own validation.
type selfValidator interface{ Validate() error }

var selfValidatorType = reflect.TypeFor[selfValidator]()

// defaultValidator is the build's tag checker plus Validate() methods.
var defaultValidator Validator = &tagValidator{}

type tagValidator struct {
	need sync.Map   // reflect.Type (struct) -> needs (validation work to do)
	tags tagChecker // checks `validate` tags: validate_tags.go, or validate_notags.go under kit_novalidator
}

type needs struct{ tags, method bool }

// Validate implements [Validator].
func (tv *tagValidator) Validate(v any) error {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
		return nil
	}
	t := rv.Type()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	n := tv.needsOf(t)
	if !n.tags && !n.method {
		return nil
	}
	verr := &ValidationError{Model: t.String()}
	if n.tags {
		fields, err := tv.tags.check(v, t)
		if err != nil {
			return fmt.Errorf("validating %s: %w", t, err)
		}
		verr.Fields = fields
	}
	if n.method {
		if sv, ok := v.(selfValidator); ok {
			verr.Err = sv.Validate()
		} else if rv.Kind() != reflect.Pointer {
			p := reflect.New(t)
			p.Elem().Set(rv)
			verr.Err = p.Interface().(selfValidator).Validate()
		}
	}
	if len(verr.Fields) == 0 && verr.Err == nil {
		return nil
	}
	return verr
}

func (tv *tagValidator) needsOf(t reflect.Type) needs {
	if n, ok := tv.need.Load(t); ok {
		return n.(needs)
	}
	var nullables []reflect.Type
	n := needs{
		tags:   hasValidateTags(t, map[reflect.Type]bool{}, &nullables),
		method: t.Implements(selfValidatorType) || reflect.PointerTo(t).Implements(selfValidatorType),
	}
	if n.tags && len(nullables) > 0 {
		tv.tags.register(nullables)
	}
	tv.need.Store(t, n)
	return n
}

// hasValidateTags reports whether t, or a struct reachable from its fields,
// has a `validate` tag, and adds the Nullable types met to nullables.
func hasValidateTags(t reflect.Type, seen map[reflect.Type]bool, nullables *[]reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return false
	}
	seen[t] = true
	if isNullableType(t) {
		*nullables = append(*nullables, t)
		return hasValidateTags(nullableInner(t), seen, nullables)
	}
	found := false
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if _, ok := f.Tag.Lookup("validate"); ok {
			found = true
		}
		if hasValidateTags(f.Type, seen, nullables) {
			found = true
		}
	}
	return found
}

// validateValue validates v with val: a struct or pointer to one directly, a
// slice or array element by element (paths prefixed with "[i]"), a map
// entry by entry in the order of its keys' text (paths prefixed with
// "[key]"). Other values have nothing to validate.
func validateValue(val Validator, v reflect.Value) error {
	if val == nil || !v.IsValid() {
		return nil
	}
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
			return val.Validate(v.Interface())
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		return val.Validate(addressable(v).Addr().Interface())
	case reflect.Slice, reflect.Array:
		all := &elemErrors{model: v.Type().String()}
		for i := 0; i < v.Len(); i++ {
			if err := all.add(fmt.Sprintf("[%d]", i), validateValue(val, v.Index(i))); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		return all.result()
	case reflect.Map:
		if v.Len() == 0 || !validatable(v.Type().Elem()) {
			return nil
		}
		// Entries are validated in the map's order; the failures (usually
		// none) are then reported in the order of their keys' text.
		type failed struct {
			label string
			err   error
		}
		var fails []failed
		for it := v.MapRange(); it.Next(); {
			if err := validateValue(val, it.Value()); err != nil {
				fails = append(fails, failed{fmt.Sprintf("[%v]", it.Key()), err})
			}
		}
		slices.SortFunc(fails, func(a, b failed) int { return strings.Compare(a.label, b.label) })
		all := &elemErrors{model: v.Type().String()}
		for _, f := range fails {
			if err := all.add(f.label, f.err); err != nil {
				return fmt.Errorf("entry %s: %w", f.label, err)
			}
		}
		return all.result()
	}
	return nil
}

// validatable reports whether values of type t hold a struct to validate:
// a struct, or a pointer, slice, array or map of them. The values an
// interface holds (a map[string]any of raw JSON) are not walked: they may
// contain themselves. Nor are types that do (type T map[string]T): they
// come back to a type met already, which holds no struct.
func validatable(t reflect.Type) bool {
	var seen map[reflect.Type]bool
	for hops := 0; ; hops++ {
		switch t.Kind() {
		case reflect.Struct:
			return true
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			if hops >= 8 { // a few hops in, remember the types met
				if seen[t] {
					return false
				}
				if seen == nil {
					seen = map[reflect.Type]bool{}
				}
				seen[t] = true
			}
			t = t.Elem()
			continue
		}
		return false
	}
}

// elemErrors gathers the validation errors of the elements (or entries) of
// a slice or map into one *ValidationError, paths prefixed with the
// element's label ("[2]", "[key]").
type elemErrors struct {
	model string
	all   *ValidationError
	errs  []error
}

// add records the error of the element labelled label; an error that is
// not a *ValidationError is returned, to end the validation.
func (e *elemErrors) add(label string, err error) error {
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	if e.all == nil {
		e.all = &ValidationError{Model: e.model}
	}
	for _, f := range ve.Fields {
		f.Path = label + "." + f.Path
		e.all.Fields = append(e.all.Fields, f)
	}
	if ve.Err != nil {
		e.errs = append(e.errs, fmt.Errorf("%s: %w", label, ve.Err))
	}
	return nil
}

func (e *elemErrors) result() error {
	if e.all == nil {
		return nil
	}
	e.all.Err = errors.Join(e.errs...)
	return e.all
}

//go:build kit_novalidator

package kit

import (
	"errors"
	"reflect"
)

// errTagsNotChecked is the error of a model with `validate` tags in a
// program built with the kit_novalidator tag.
var errTagsNotChecked = errors.New("its `validate` tags cannot be checked: the program was built with the kit_novalidator tag, " +
	"which leaves go-playground/validator out (build without the tag, check the model in a Validate() error method, or set kit.WithValidator)")

// tagChecker is the kit_novalidator build's: it checks no tags, and fails
// the call of a model that has some rather than letting it pass unchecked.
type tagChecker struct{}

func (*tagChecker) check(any, reflect.Type) ([]FieldError, error) { return nil, errTagsNotChecked }

func (*tagChecker) register([]reflect.Type) {}

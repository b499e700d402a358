package kitredis

import (
	"errors"
	"testing"
)

// Replies of the wrong type are errors matching errReply, never panics.
func TestInt64sWrongTypes(t *testing.T) {
	for _, reply := range []any{nil, "OK", int64(1), []any{}, []any{int64(1)}, []any{"1", int64(2)}, []any{int64(1), 2.5}, []any{int64(1), nil}} {
		if _, err := int64s(reply, 2); !errors.Is(err, errReply) {
			t.Errorf("int64s(%#v) = %v, want errReply", reply, err)
		}
	}
	v, err := int64s([]any{int64(1), int64(7), "extra"}, 2)
	if err != nil || v[0] != 1 || v[1] != 7 {
		t.Errorf("int64s = %v, %v", v, err)
	}
}

package kitredis

import "fmt"

// int64s reads a script's reply that must be an array of at least n
// integers.
func int64s(reply any, n int) ([]int64, error) {
	arr, ok := reply.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: %T, want an array", errReply, reply)
	}
	if len(arr) < n {
		return nil, fmt.Errorf("%w: %d values, want %d", errReply, len(arr), n)
	}
	out := make([]int64, n)
	for i := range n {
		v, ok := arr[i].(int64)
		if !ok {
			return nil, fmt.Errorf("%w: value %d is a %T, want an integer", errReply, i, arr[i])
		}
		out[i] = v
	}
	return out, nil
}

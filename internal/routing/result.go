package routing

import "fmt"

// ResultKind is how an endpoint's result R is made from a response.
type ResultKind uint8

// The kinds of results.
const (
	ResultTyped    ResultKind = iota // JSON decoded into R, then validated
	ResultRaw                        // R is an empty interface: raw JSON
	ResultResponse                   // R is *kit.Response
	ResultBody                       // R is io.ReadCloser: the body, unread
	ResultWrapped                    // R is kit.Result[T]: T, with the response
	ResultRecords                    // R is *kit.Stream[T]: records decoded as the caller ranges
)

// Result classifies the result type R of an endpoint, or says why it
// cannot be one. For R = kit.Result[T], inner is how T is made.
func Result(r Type) (kind, inner ResultKind, err error) {
	if kind, err = resultKind(r); err != nil {
		return 0, 0, err
	}
	switch kind {
	case ResultRecords:
		if err := records(r); err != nil {
			return 0, 0, err
		}
		return kind, 0, nil
	case ResultWrapped:
	default:
		return kind, 0, nil
	}
	t := r.Arg()
	if inner, err = resultKind(t); err != nil {
		return 0, 0, err
	}
	if inner == ResultWrapped {
		return 0, 0, fmt.Errorf("result type %s: a Result of a Result", r)
	}
	if inner == ResultRecords {
		if err := records(t); err != nil {
			return 0, 0, err
		}
	}
	return kind, inner, nil
}

func resultKind(r Type) (ResultKind, error) {
	shape := r.Shape()
	switch {
	case r.Is(ResponsePointer):
		return ResultResponse, nil
	case r.Is(ReadCloser):
		return ResultBody, nil
	case shape == InterfaceShape && !r.HasMethods():
		return ResultRaw, nil
	case shape == InterfaceShape:
		return 0, fmt.Errorf("result type %s is an interface; use a concrete type, any, io.ReadCloser or *kit.Response", r)
	case shape == NoTextShape:
		return 0, fmt.Errorf("result type %s cannot be decoded from JSON", r)
	case isFile(r):
		return 0, fmt.Errorf("result type %s: a download is an io.ReadCloser (or a kit.Result[io.ReadCloser])", r)
	case r.Is(KitResult):
		return ResultWrapped, nil
	case shape == PointerShape && r.Elem().Is(KitStream):
		return ResultRecords, nil
	case r.Is(KitStream):
		return 0, fmt.Errorf("result type %s: a Stream result is a pointer, *kit.Stream[T]", r)
	}
	return ResultTyped, nil
}

// records checks the record type T of a result *kit.Stream[T]: a JSON value
// decoded into T, as for R = T.
func records(stream Type) error {
	t := stream.Elem().Arg()
	kind, err := resultKind(t)
	if err != nil {
		return fmt.Errorf("result type %s: %w", stream, err)
	}
	if kind != ResultTyped && kind != ResultRaw {
		return fmt.Errorf("result type %s: a record is a JSON value decoded into T, and T cannot be %s", stream, t)
	}
	return nil
}

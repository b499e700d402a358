package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// Models for validation tests.
type (
	coreAddress struct {
		City string `json:"city" validate:"required"`
		Zip  string `json:"zip" validate:"len=5"`
	}
	coreCustomer struct {
		Name    string      `json:"name" validate:"required"`
		Address coreAddress `json:"address"`
	}
	coreLine struct {
		SKU string `json:"sku" validate:"required"`
		Qty int    `json:"qty" validate:"min=1"`
	}
	coreOrder struct {
		Customer coreCustomer `json:"customer"`
		Lines    []coreLine   `json:"lines" validate:"dive"`
	}
	// coreRange validates itself with a value receiver.
	coreRange struct {
		Min int `json:"min"`
		Max int `json:"max"`
	}
	// coreSlot validates itself with a pointer receiver, and has tags.
	coreSlot struct {
		Name string `json:"name" validate:"required"`
	}
	// coreSlotError is what coreSlot.Validate returns.
	coreSlotError struct{ Slot string }
)

var errCoreRange = errors.New("min is above max")

func (r coreRange) Validate() error {
	if r.Min > r.Max {
		return fmt.Errorf("range %d..%d: %w", r.Min, r.Max, errCoreRange)
	}
	return nil
}

func (s *coreSlot) Validate() error {
	if s.Name == "taken" {
		return &coreSlotError{s.Name}
	}
	return nil
}

func (e *coreSlotError) Error() string { return "slot " + e.Slot + " is taken" }

// fe is a FieldError without its message, for comparisons.
type fe struct{ Path, Rule string }

func fieldsOf(ve *kit.ValidationError) []fe {
	var out []fe
	for _, f := range ve.Fields {
		out = append(out, fe{f.Path, f.Rule})
	}
	return out
}

// validationCase is one invalid model and the ValidationError it gives.
type validationCase struct {
	name      string
	call      coreCaller
	model     string
	fields    []fe
	wantIs    error // matched by errors.Is, when set
	wantSlot  bool  // a *coreSlotError is reachable by errors.As
	wantInErr string
}

func checkValidationError(t *testing.T, tt validationCase, err error) {
	t.Helper()
	var ve *kit.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *kit.ValidationError", err)
	}
	if ve.Model != tt.model {
		t.Errorf("Model = %q, want %q", ve.Model, tt.model)
	}
	got := fieldsOf(ve)
	slices.SortFunc(got, func(a, b fe) int { return strings.Compare(a.Path+a.Rule, b.Path+b.Rule) })
	if !slices.Equal(got, tt.fields) {
		t.Errorf("Fields = %+v, want %+v", got, tt.fields)
	}
	for _, f := range ve.Fields {
		if f.Message == "" {
			t.Errorf("field %s: empty Message", f.Path)
		}
		if f.Rule == "required" && f.Message != "is required" {
			t.Errorf("field %s: Message %q, want \"is required\"", f.Path, f.Message)
		}
	}
	if tt.wantIs != nil {
		if !errors.Is(err, tt.wantIs) || !errors.Is(ve.Err, tt.wantIs) {
			t.Errorf("errors.Is(err, %v) = false; ValidationError.Err = %v", tt.wantIs, ve.Err)
		}
	} else if tt.wantSlot {
		var se *coreSlotError
		if !errors.As(err, &se) || se.Slot != "taken" {
			t.Errorf("errors.As(err, *coreSlotError) failed; ValidationError.Err = %v", ve.Err)
		}
	} else if ve.Err != nil {
		t.Errorf("ValidationError.Err = %v, want nil (no Validate method failed)", ve.Err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("Error() = %q, want one line", msg)
	}
	for _, f := range tt.fields {
		if !strings.Contains(msg, f.Path) {
			t.Errorf("Error() = %q, want it to name %s", msg, f.Path)
		}
	}
	if tt.wantInErr != "" && !strings.Contains(msg, tt.wantInErr) {
		t.Errorf("Error() = %q, want it to contain %q", msg, tt.wantInErr)
	}
}

func TestValidationOfRequestBodyBeforeSending(t *testing.T) {
	t.Parallel()
	post := func(body any) coreCaller {
		switch b := body.(type) {
		case coreUser:
			return coreCall(kit.Post[struct{ B coreUser }, *kit.Response]("/x"), struct{ B coreUser }{b})
		case *coreUser:
			return coreCall(kit.Post[struct{ B *coreUser }, *kit.Response]("/x"), struct{ B *coreUser }{b})
		case []coreUser:
			return coreCall(kit.Post[struct{ B []coreUser }, *kit.Response]("/x"), struct{ B []coreUser }{b})
		case []*coreUser:
			return coreCall(kit.Post[struct{ B []*coreUser }, *kit.Response]("/x"), struct{ B []*coreUser }{b})
		case coreOrder:
			return coreCall(kit.Post[struct{ B coreOrder }, *kit.Response]("/x"), struct{ B coreOrder }{b})
		case coreRange:
			return coreCall(kit.Post[struct{ B coreRange }, *kit.Response]("/x"), struct{ B coreRange }{b})
		case *coreRange:
			return coreCall(kit.Post[struct{ B *coreRange }, *kit.Response]("/x"), struct{ B *coreRange }{b})
		case []coreRange:
			return coreCall(kit.Post[struct{ B []coreRange }, *kit.Response]("/x"), struct{ B []coreRange }{b})
		case coreSlot:
			return coreCall(kit.Post[struct{ B coreSlot }, *kit.Response]("/x"), struct{ B coreSlot }{b})
		case *coreSlot:
			return coreCall(kit.Post[struct{ B *coreSlot }, *kit.Response]("/x"), struct{ B *coreSlot }{b})
		}
		panic(fmt.Sprintf("no endpoint for %T", body))
	}
	good := coreUser{ID: 1, Name: "Ada", Email: "ada@example.com"}
	goodLine := coreLine{SKU: "a", Qty: 1}
	tests := []validationCase{
		{name: "struct", call: post(coreUser{Email: "nope"}), model: "kit_test.coreUser",
			fields: []fe{{"Email", "email"}, {"Name", "required"}}, wantInErr: "request body"},
		{name: "pointer", call: post(&coreUser{Name: "x"}), model: "kit_test.coreUser",
			fields: []fe{{"Email", "required"}}},
		{name: "slice", call: post([]coreUser{good, {Name: "b", Email: "b"}, good, {Email: "d@example.com"}}), model: "[]kit_test.coreUser",
			fields: []fe{{"[1].Email", "email"}, {"[3].Name", "required"}}},
		{name: "slice of pointers with nil", call: post([]*coreUser{nil, &good, {Name: "c"}}), model: "[]*kit_test.coreUser",
			fields: []fe{{"[2].Email", "required"}}},
		{name: "nested", call: post(coreOrder{
			Customer: coreCustomer{Name: "c", Address: coreAddress{Zip: "123"}},
			Lines:    []coreLine{goodLine, {SKU: "b"}, {Qty: 2}},
		}), model: "kit_test.coreOrder", fields: []fe{
			{"Customer.Address.City", "required"}, {"Customer.Address.Zip", "len"},
			{"Lines[1].Qty", "min"}, {"Lines[2].SKU", "required"},
		}},
		{name: "Validate value receiver", call: post(coreRange{Min: 2, Max: 1}), model: "kit_test.coreRange",
			wantIs: errCoreRange, wantInErr: "min is above max"},
		{name: "Validate value receiver through pointer", call: post(&coreRange{Min: 2, Max: 1}), model: "kit_test.coreRange",
			wantIs: errCoreRange},
		{name: "Validate on elements", call: post([]coreRange{{1, 2}, {3, 2}, {0, 0}, {9, 1}}), model: "[]kit_test.coreRange",
			wantIs: errCoreRange, wantInErr: "[3]"},
		{name: "Validate pointer receiver on a value field", call: post(coreSlot{Name: "taken"}), model: "kit_test.coreSlot",
			wantSlot: true},
		{name: "Validate pointer receiver", call: post(&coreSlot{Name: "taken"}), model: "kit_test.coreSlot",
			wantSlot: true},
		{name: "tags and Validate both reported", call: post(&coreSlot{}), model: "kit_test.coreSlot",
			fields: []fe{{"Name", "required"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(nil)
			_, c := setup(t, rec)
			err := tt.call(t.Context(), c)
			checkValidationError(t, tt, err)
			if n := len(rec.requests()); n != 0 {
				t.Errorf("server saw %d requests, want none: a request body is validated before sending", n)
			}
		})
	}
}

func TestValidBodiesAreSent(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	calls := []coreCaller{
		coreCall(kit.Post[struct{ B coreUser }, *kit.Response]("/x"), struct{ B coreUser }{coreUser{Name: "a", Email: "a@example.com"}}),
		coreCall(kit.Post[struct{ B []coreRange }, *kit.Response]("/x"), struct{ B []coreRange }{[]coreRange{{1, 1}}}),
		coreCall(kit.Post[struct{ B *coreSlot }, *kit.Response]("/x"), struct{ B *coreSlot }{&coreSlot{"free"}}),
		coreCall(kit.Post[struct{ B *coreUser }, *kit.Response]("/x"), struct{ B *coreUser }{nil}),
	}
	for i, call := range calls {
		if err := call(t.Context(), c); err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if n := len(rec.requests()); n != len(calls) {
		t.Errorf("server saw %d requests, want %d", n, len(calls))
	}
}

// respond returns a caller of GET /x whose result type is R.
func respond[R any]() coreCaller {
	return coreCall(kit.Get[kit.NoParams, R]("/x"), kit.NoParams{})
}

func TestValidationOfResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		validationCase
		body string
	}{
		{validationCase{name: "struct", call: respond[coreUser](), model: "kit_test.coreUser",
			fields: []fe{{"Email", "email"}}, wantInErr: "response"}, `{"id":1,"name":"a","email":"not-an-email"}`},
		{validationCase{name: "pointer", call: respond[*coreUser](), model: "kit_test.coreUser",
			fields: []fe{{"Email", "required"}, {"Name", "required"}}}, `{"id":1}`},
		{validationCase{name: "slice", call: respond[[]coreUser](), model: "[]kit_test.coreUser",
			fields: []fe{{"[2].Email", "email"}}},
			`[{"name":"a","email":"a@example.com"},{"name":"b","email":"b@example.com"},{"name":"c","email":"c"}]`},
		{validationCase{name: "nested", call: respond[coreOrder](), model: "kit_test.coreOrder",
			fields: []fe{{"Customer.Address.Zip", "len"}, {"Customer.Name", "required"}, {"Lines[0].Qty", "min"}}},
			`{"customer":{"address":{"city":"x","zip":"1"}},"lines":[{"sku":"a","qty":0}]}`},
		{validationCase{name: "Validate value receiver", call: respond[coreRange](), model: "kit_test.coreRange",
			wantIs: errCoreRange}, `{"min":5,"max":1}`},
		{validationCase{name: "Validate pointer receiver", call: respond[coreSlot](), model: "kit_test.coreSlot",
			wantSlot: true}, `{"name":"taken"}`},
		{validationCase{name: "Validate on elements", call: respond[[]*coreRange](), model: "[]*kit_test.coreRange",
			wantIs: errCoreRange, wantInErr: "[1]"}, `[{"min":1,"max":2},{"min":3,"max":2}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, serve(t, replyJSON(http.StatusOK, tt.body)).URL+"/api?api_key=SECRET-K")
			err := tt.call(t.Context(), c)
			checkValidationError(t, tt.validationCase, err)
			if msg := err.Error(); !strings.Contains(msg, "GET") || !strings.Contains(msg, "/api/x") || strings.Contains(msg, "SECRET-K") {
				t.Errorf("Error() = %q, want method and URL, without the secret", msg)
			}
		})
	}
}

func TestValidationFailureGivesZeroResult(t *testing.T) {
	t.Parallel()
	_, c := setup(t, replyJSON(http.StatusOK, `[{"name":"a","email":"bad"}]`))
	got, err := kit.Get[kit.NoParams, []coreUser]("/x").Call(t.Context(), c, kit.NoParams{})
	if err == nil || got != nil {
		t.Errorf("got %v, %v; want nil and a validation error", got, err)
	}
}

func TestWithValidatorNilTurnsValidationOff(t *testing.T) {
	t.Parallel()
	rec := newRecorder(replyJSON(http.StatusOK, `{"id":1,"email":"not-an-email"}`))
	_, c := setup(t, rec, kit.WithValidator(nil))
	ep := kit.Post[struct{ B coreUser }, coreUser]("/x")
	got, err := ep.Call(t.Context(), c, struct{ B coreUser }{coreUser{Email: "nope"}})
	if err != nil {
		t.Fatalf("with validation off: %v", err)
	}
	if want := (coreUser{ID: 1, Email: "not-an-email"}); got != want {
		t.Errorf("got %+v, want the invalid model as decoded, %+v", got, want)
	}
	if r := rec.only(t); string(r.Body) != `{"id":0,"name":"","email":"nope"}` {
		t.Errorf("sent %s, want the invalid body", r.Body)
	}
	rng, err := kit.Get[kit.NoParams, coreRange]("/x").Call(t.Context(),
		newClient(t, serve(t, replyJSON(http.StatusOK, `{"min":2,"max":1}`)).URL, kit.WithValidator(nil)), kit.NoParams{})
	if err != nil || rng != (coreRange{2, 1}) {
		t.Errorf("with validation off, Validate() failing: %+v, %v; want the model", rng, err)
	}
}

var errCoreCustom = errors.New("custom validator says no")

// coreValidator records what it is asked to validate and refuses notes whose
// text is "bad" (with a ValidationError) or "worse" (with a plain error).
type coreValidator struct {
	mu   sync.Mutex
	seen []string
}

func (v *coreValidator) Validate(x any) error {
	v.mu.Lock()
	v.seen = append(v.seen, fmt.Sprintf("%T", x))
	v.mu.Unlock()
	n, ok := x.(*coreNote)
	if !ok {
		return nil
	}
	switch n.Text {
	case "bad":
		return &kit.ValidationError{Model: "note", Fields: []kit.FieldError{{Path: "Text", Rule: "custom", Message: "is bad"}}}
	case "worse":
		return errCoreCustom
	}
	return nil
}

func (v *coreValidator) calls() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.seen...)
}

func TestCustomValidator(t *testing.T) {
	t.Parallel()
	type one struct{ N coreNote }
	type many struct{ N []coreNote }
	tests := []struct {
		name     string
		call     coreCaller
		response string
		seen     []string
		sent     int
		check    func(t *testing.T, err error)
	}{
		{
			name: "request ok, response ok", call: coreCall(kit.Post[one, coreNote]("/x"), one{coreNote{"fine"}}),
			response: `{"text":"fine"}`, seen: []string{"*kit_test.coreNote", "*kit_test.coreNote"}, sent: 1,
			check: func(t *testing.T, err error) {
				if err != nil {
					t.Error(err)
				}
			},
		},
		{
			name: "request refused", call: coreCall(kit.Post[one, coreNote]("/x"), one{coreNote{"worse"}}),
			seen: []string{"*kit_test.coreNote"}, sent: 0,
			check: func(t *testing.T, err error) {
				if !errors.Is(err, errCoreCustom) {
					t.Errorf("err = %v, want the validator's error", err)
				}
			},
		},
		{
			name: "request slice, element by element", call: coreCall(kit.Post[many, *kit.Response]("/x"), many{[]coreNote{{"a"}, {"bad"}, {"c"}}}),
			seen: []string{"*kit_test.coreNote", "*kit_test.coreNote", "*kit_test.coreNote"}, sent: 0,
			check: func(t *testing.T, err error) {
				var ve *kit.ValidationError
				if !errors.As(err, &ve) || !slices.Equal(fieldsOf(ve), []fe{{"[1].Text", "custom"}}) {
					t.Errorf("err = %v, want a ValidationError for [1].Text", err)
				}
			},
		},
		{
			name: "response refused", call: coreCall(kit.Get[kit.NoParams, []coreNote]("/x"), kit.NoParams{}),
			response: `[{"text":"ok"},{"text":"worse"}]`, seen: []string{"*kit_test.coreNote", "*kit_test.coreNote"}, sent: 1,
			check: func(t *testing.T, err error) {
				if !errors.Is(err, errCoreCustom) || !strings.Contains(err.Error(), "element 1") {
					t.Errorf("err = %v, want the validator's error for element 1", err)
				}
			},
		},
		{
			name: "raw results are not validated", call: coreCall(kit.Get[kit.NoParams, any]("/x"), kit.NoParams{}),
			response: `{"text":"worse"}`, seen: nil, sent: 1,
			check: func(t *testing.T, err error) {
				if err != nil {
					t.Error(err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(replyJSON(http.StatusOK, tt.response))
			v := &coreValidator{}
			_, c := setup(t, rec, kit.WithValidator(v))
			err := tt.call(t.Context(), c)
			tt.check(t, err)
			if got := v.calls(); !reflect.DeepEqual(got, tt.seen) {
				t.Errorf("validator saw %q, want %q", got, tt.seen)
			}
			if n := len(rec.requests()); n != tt.sent {
				t.Errorf("server saw %d requests, want %d", n, tt.sent)
			}
		})
	}
}

// coreBadTag has a typo in its validate tag.
type coreBadTag struct {
	Name string `json:"name" validate:"requried"`
}

func TestMalformedValidateTagIsAnErrorNotAPanic(t *testing.T) {
	t.Parallel()
	rec := newRecorder(replyJSON(http.StatusOK, `{"name":"x"}`))
	_, c := setup(t, rec)
	calls := []coreCaller{
		coreCall(kit.Post[struct{ B coreBadTag }, *kit.Response]("/x"), struct{ B coreBadTag }{}),
		respond[coreBadTag](),
	}
	for i, call := range calls {
		err := call(t.Context(), c)
		if err == nil || !strings.Contains(err.Error(), "requried") {
			t.Errorf("call %d: err = %v, want an error naming the bad rule", i, err)
		}
	}
	if n := len(rec.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1 (the request body is checked before sending)", n)
	}
}

// coreEnvelope is a generic model: its type name holds dots and slashes.
type coreEnvelope[T any] struct {
	Data  T      `json:"data"`
	Items []T    `json:"items" validate:"dive"`
	Note  string `json:"note" validate:"required"`
}

func TestValidationPathsOfGenericModel(t *testing.T) {
	t.Parallel()
	_, c := setup(t, replyJSON(http.StatusOK, `{"data":{"name":"a","email":"bad"},"items":[{"email":"a@example.com"}]}`))
	err := respond[coreEnvelope[coreUser]]()(t.Context(), c)
	checkValidationError(t, validationCase{
		model:  "kit_test.coreEnvelope[github.com/kithttp/kit_test.coreUser]",
		fields: []fe{{"Data.Email", "email"}, {"Items[0].Name", "required"}, {"Note", "required"}},
	}, err)
	anon := respond[struct {
		Note string `validate:"required"`
	}]()
	checkValidationError(t, validationCase{
		model:  `struct { Note string "validate:\"required\"" }`,
		fields: []fe{{"Note", "required"}},
	}, anon(t.Context(), c))
}

// Types that contain themselves, as kitgen openapi declares a schema that
// does (GeoJSON's coordinates, a tree of maps).
type (
	selfMap  map[string]selfMap
	selfList []selfList
)

// TestSelfContainingResultTypes: a result whose type contains itself
// (type T map[string]T) is decoded and validated, sync and async; the
// validator asked whether such a map holds a struct without end.
func TestSelfContainingResultTypes(t *testing.T) {
	t.Parallel()
	within := func(t *testing.T, call func(ctx context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- call(ctx) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the call did not end within 30s")
		}
	}
	srv, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := `{"a":{"b":{}}}`
		if r.URL.Path == "/list" {
			body = `[[],[[]]]`
		}
		replyJSON(http.StatusOK, body)(w, r)
	}))
	async := newAsyncClient(t, srv.URL)
	tree, list := kit.Get[kit.NoParams, selfMap]("/map"), kit.Get[kit.NoParams, selfList]("/list")
	check := func(m selfMap, l selfList) error {
		if m["a"]["b"] == nil || len(l) != 2 || len(l[1]) != 1 {
			t.Errorf("map %v, list %v", m, l)
		}
		return nil
	}
	within(t, func(ctx context.Context) error {
		m, err := tree.Call(ctx, c, kit.NoParams{})
		if err != nil {
			return err
		}
		l, err := list.Call(ctx, c, kit.NoParams{})
		if err != nil {
			return err
		}
		return check(m, l)
	})
	within(t, func(ctx context.Context) error {
		m, err := tree.Go(ctx, async, kit.NoParams{}).Await(ctx)
		if err != nil {
			return err
		}
		l, err := list.Go(ctx, async, kit.NoParams{}).Await(ctx)
		if err != nil {
			return err
		}
		return check(m, l)
	})
}

// TestNoValidatorBuildLeavesValidatorOut checks what the kit_novalidator
// build tag promises: go-playground/validator (and the packages it brings)
// are not linked. The build's behaviour is tested by
// validate_notags_ext_test.go, under the tag.
func TestNoValidatorBuildLeavesValidatorOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	list := func(tags ...string) []string {
		args := append([]string{"list", "-deps"}, tags...)
		out, err := exec.Command("go", append(args, ".")...).Output()
		if err != nil {
			t.Fatalf("go %v: %v", args, err)
		}
		return strings.Fields(string(out))
	}
	const pkg = "github.com/go-playground/validator/v10"
	if !slices.Contains(list(), pkg) {
		t.Fatalf("the default build does not link %s: the contract says it backs the default validator", pkg)
	}
	if deps := list("-tags", "kit_novalidator"); slices.Contains(deps, pkg) {
		t.Fatalf("the kit_novalidator build links %s", pkg)
	}
}

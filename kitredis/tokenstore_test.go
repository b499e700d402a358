package kitredis_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitredis"
)

// Eight stores (as eight processes would have) renew once for a stale
// token; the callers that waited take the renewed one.
func TestTokenStoreOneRenewal(t *testing.T) {
	rdb := newRedis(t)
	key := uniqueKey(t)
	var renewals atomic.Int64
	renew := func(ctx context.Context, cur kit.Token) (kit.Token, error) {
		n := renewals.Add(1)
		time.Sleep(20 * time.Millisecond) // let the others queue at the lock
		return kit.Token{Value: fmt.Sprintf("t%d", n), Refresh: "r" + cur.Refresh}, nil
	}
	first, err := kitredis.NewTokenStore(rdb, key).Token(t.Context(), kit.Token{}, renew)
	if err != nil || first.Value != "t1" {
		t.Fatalf("first token: %v, %v", first.Value, err)
	}
	var wg sync.WaitGroup
	got := make([]kit.Token, 8)
	for i := range got {
		s := kitredis.NewTokenStore(rdb, key, kitredis.WithLockPoll(5*time.Millisecond))
		wg.Go(func() {
			tok, err := s.Token(t.Context(), first, renew)
			if err != nil {
				t.Error(err)
			}
			got[i] = tok
		})
	}
	wg.Wait()
	for i, tok := range got {
		if tok.Value != "t2" || tok.Refresh != "rr" {
			t.Errorf("caller %d got %v (refresh %q), want t2", i, tok.Value, tok.Refresh)
		}
	}
	if n := renewals.Load(); n != 2 {
		t.Errorf("%d renewals, want 2", n)
	}
}

// A holder whose renewal outlives its lock cannot overwrite the token of
// the holder that came after it.
func TestTokenStoreFencing(t *testing.T) {
	rdb := newRedis(t)
	key := uniqueKey(t)
	slowIn, slowOut := make(chan struct{}), make(chan struct{})
	slow := kitredis.NewTokenStore(rdb, key, kitredis.WithLockExpiry(100*time.Millisecond))
	result := make(chan error, 1)
	go func() {
		_, err := slow.Token(context.Background(), kit.Token{}, func(ctx context.Context, _ kit.Token) (kit.Token, error) {
			close(slowIn)
			<-slowOut // ignores its context: wakes after the lock expired
			return kit.Token{Value: "late"}, nil
		})
		result <- err
	}()
	<-slowIn
	fast := kitredis.NewTokenStore(rdb, key, kitredis.WithLockPoll(5*time.Millisecond))
	tok, err := fast.Token(t.Context(), kit.Token{}, func(context.Context, kit.Token) (kit.Token, error) {
		return kit.Token{Value: "newer"}, nil
	})
	if err != nil || tok.Value != "newer" {
		t.Fatalf("second holder: %v, %v", tok.Value, err)
	}
	close(slowOut)
	if err := <-result; err != nil {
		t.Errorf("late holder: %v (it should get the newer token)", err)
	}
	tok, err = fast.Token(t.Context(), kit.Token{}, nil)
	if err != nil || tok.Value != "newer" {
		t.Errorf("stored token: %v, %v; want newer", tok.Value, err)
	}
}

// A renew function that panics releases the lock; through kit the caller
// gets a *kit.PanicError.
func TestTokenStoreRenewPanics(t *testing.T) {
	rdb := newRedis(t)
	key := uniqueKey(t)
	s := kitredis.NewTokenStore(rdb, key)
	func() {
		defer func() { recover() }()
		s.Token(t.Context(), kit.Token{}, func(context.Context, kit.Token) (kit.Token, error) { panic("boom") })
	}()
	if n, _ := rdb.Exists(t.Context(), "{"+key+"}:lock").Result(); n != 0 {
		t.Error("the lock is still held after a panic")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{}`) }))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithAuth(kit.RenewingTokenAuth(func(context.Context, kit.Token) (kit.Token, error) {
		panic("renew broke")
	}, kit.WithTokenStore(s))))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = kit.Get[kit.NoParams, *kit.Response]("/").Call(t.Context(), c, kit.NoParams{})
	var pe *kit.PanicError
	if !errors.As(err, &pe) {
		t.Errorf("err = %v, want a *kit.PanicError", err)
	}
	if n, _ := rdb.Exists(t.Context(), "{"+key+"}:lock").Result(); n != 0 {
		t.Error("the lock is still held after a panic through kit")
	}
}

func TestTokenStoreBadValues(t *testing.T) {
	rdb := newRedis(t)
	key := uniqueKey(t)
	rdb.HSet(t.Context(), "{"+key+"}:token", "token", "not json")
	tok, err := kitredis.NewTokenStore(rdb, key).Token(t.Context(), kit.Token{}, func(context.Context, kit.Token) (kit.Token, error) {
		return kit.Token{Value: "fresh"}, nil
	})
	if err != nil || tok.Value != "fresh" {
		t.Errorf("over a value that does not decode: %v, %v", tok.Value, err)
	}
	key = uniqueKey(t)
	rdb.Set(t.Context(), "{"+key+"}:token", "a string, not a hash", 0)
	_, err = kitredis.NewTokenStore(rdb, key).Token(t.Context(), kit.Token{}, nil)
	if err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("a string under the key: %v", err)
	}
}

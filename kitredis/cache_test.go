package kitredis_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit/kitredis"
)

func TestCacheStore(t *testing.T) {
	rdb := newRedis(t)
	prefix := uniqueKey(t) + ":"
	c := kitredis.NewCache(rdb, prefix)
	ctx := t.Context()
	if _, ok, err := c.Get(ctx, "k"); ok || err != nil {
		t.Errorf("empty Get = %v, %v", ok, err)
	}
	if err := c.Set(ctx, "k", []byte("entry"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if b, ok, err := c.Get(ctx, "k"); !ok || err != nil || string(b) != "entry" {
		t.Errorf("Get = %q, %v, %v", b, ok, err)
	}
	if ttl := rdb.PTTL(ctx, prefix+"k").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("PTTL = %v", ttl)
	}
	c.Delete(ctx, "k")
	if _, ok, _ := c.Get(ctx, "k"); ok {
		t.Error("Delete left the entry")
	}
	rdb.HSet(ctx, prefix+"h", "a", "b")
	if _, _, err := c.Get(ctx, "h"); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("a hash under the key: %v", err)
	}
}

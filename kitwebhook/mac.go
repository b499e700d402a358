package kitwebhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"sync"
)

// macKeys computes one MAC per secret over a message given in parts, with
// a pool of hashers per secret so that a verification allocates nothing
// for them.
type macKeys struct {
	pools []*sync.Pool
	size  int
}

func newMACKeys(newHash func() hash.Hash, secrets [][]byte) *macKeys {
	if newHash == nil {
		newHash = sha256.New
	}
	k := &macKeys{size: newHash().Size()}
	for _, s := range secrets {
		s := s
		k.pools = append(k.pools, &sync.Pool{New: func() any { return hmac.New(newHash, s) }})
	}
	return k
}

// sums returns the MAC of the concatenated parts under each secret.
func (k *macKeys) sums(parts ...[]byte) [][]byte {
	out := make([][]byte, len(k.pools))
	buf := make([]byte, 0, len(k.pools)*k.size)
	for i, p := range k.pools {
		h := p.Get().(hash.Hash)
		h.Reset()
		for _, part := range parts {
			h.Write(part)
		}
		start := len(buf)
		buf = h.Sum(buf)
		out[i] = buf[start:len(buf):len(buf)]
		p.Put(h)
	}
	return out
}

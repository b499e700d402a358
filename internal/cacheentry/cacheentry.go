// Package cacheentry is the format of what a private HTTP cache stores: a
// versioned binary record with a checksum, so that an entry another
// version wrote, or a store corrupted, is told from a good one and treated
// as a miss. It knows nothing of kit's types.
package cacheentry

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"net/http"
	"time"

	"github.com/kithttp/kit/internal/httpcache"
)

// Entry is one stored response.
type Entry struct {
	Status     int
	RespTime   time.Time     // when the response arrived
	InitialAge time.Duration // its corrected initial age (RFC 9111 §4.2.3)
	Lifetime   time.Duration // its freshness lifetime (§4.2.1)
	NoCache    bool          // it must be revalidated before each use
	Vary       []string      // pairs: a header the response varies on, the request's value of it
	Header     http.Header
	Body       []byte // shares the encoded entry's bytes
}

// entryMagic starts every entry: the format and its version.
const entryMagic = "kitc\x01"

// ErrBad is what Decode returns for bytes that are not an entry.
var ErrBad = errors.New("the stored entry does not decode")

// Encode returns the entry's bytes.
func (e *Entry) Encode() []byte {
	n := len(entryMagic) + 5*binary.MaxVarintLen64 + len(e.Body) + 4
	for _, s := range e.Vary {
		n += len(s) + binary.MaxVarintLen64
	}
	for k, vs := range e.Header {
		n += len(k) + 2*binary.MaxVarintLen64
		for _, v := range vs {
			n += len(v) + binary.MaxVarintLen64
		}
	}
	b := make([]byte, 0, n)
	b = append(b, entryMagic...)
	b = binary.AppendUvarint(b, uint64(e.Status))
	b = binary.AppendVarint(b, e.RespTime.UnixNano())
	b = binary.AppendVarint(b, int64(e.InitialAge))
	b = binary.AppendVarint(b, int64(e.Lifetime))
	flags := byte(0)
	if e.NoCache {
		flags |= 1
	}
	b = append(b, flags)
	// The strings of vary and header are in one run, so that decoding
	// makes one string of them all.
	b = binary.AppendUvarint(b, uint64(len(e.Vary)))
	b = binary.AppendUvarint(b, uint64(len(e.Header)))
	for _, s := range e.Vary {
		b = appendString(b, s)
	}
	for k, vs := range e.Header {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = appendString(b, v)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(e.Body)))
	b = append(b, e.Body...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Decode reads what Encode wrote. The body shares data's bytes. Any
// inconsistency (another format, a bad checksum, a length past the end)
// is ErrBad.
func Decode(data []byte) (*Entry, error) {
	if len(data) < len(entryMagic)+4 || string(data[:len(entryMagic)]) != entryMagic {
		return nil, ErrBad
	}
	end := len(data) - 4
	if crc32.ChecksumIEEE(data[:end]) != binary.BigEndian.Uint32(data[end:]) {
		return nil, ErrBad
	}
	r := entryReader{b: data[len(entryMagic):end]}
	e := &Entry{}
	status := r.uvarint()
	resp := r.varint()
	// Kept to [0, httpcache.MaxAge] like every age and lifetime worked out:
	// the store is not the cache's, and what it holds is added to and
	// subtracted from.
	e.InitialAge = httpcache.ClampAge(time.Duration(r.varint()))
	e.Lifetime = httpcache.ClampAge(time.Duration(r.varint()))
	flags := r.byte()
	nVary, nHeader := r.uvarint(), r.uvarint()
	if r.bad || status < 100 || status > 999 || nVary > uint64(len(r.b)) || nHeader > uint64(len(r.b)) {
		return nil, ErrBad
	}
	e.Status, e.RespTime, e.NoCache = int(status), time.Unix(0, resp), flags&1 != 0
	// One string holds every name and value; the entries are slices of it.
	start := len(data) - 4 - len(r.b)
	strs := r
	for range nVary {
		strs.bytes()
	}
	values := 0
	for range nHeader {
		strs.bytes()
		nv := strs.uvarint()
		if strs.bad || nv > uint64(len(strs.b)) {
			return nil, ErrBad
		}
		for range nv {
			strs.bytes()
		}
		values += int(nv)
	}
	if strs.bad {
		return nil, ErrBad
	}
	stop := len(data) - 4 - len(strs.b)
	all := string(data[start:stop]) // one allocation for every string
	s := stringReader{s: all}
	if nVary > 0 {
		e.Vary = make([]string, nVary)
		for i := range e.Vary {
			e.Vary[i] = s.str()
		}
	}
	e.Header = make(http.Header, nHeader)
	vals := make([]string, values)
	for range nHeader {
		k := s.str()
		nv := int(s.uvarint())
		vs := vals[:nv:nv]
		vals = vals[nv:]
		for i := range vs {
			vs[i] = s.str()
		}
		e.Header[k] = vs
	}
	body := strs.bytes()
	if strs.bad || len(strs.b) != 0 || s.bad {
		return nil, ErrBad
	}
	if len(body) > 0 {
		e.Body = body[:len(body):len(body)]
	}
	return e, nil
}

// entryReader reads varints and length-prefixed bytes; a read past the
// end sets bad and returns zero values.
type entryReader struct {
	b   []byte
	bad bool
}

func (r *entryReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *entryReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *entryReader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *entryReader) bytes() []byte {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

// stringReader reads the same layout from a string, without copying.
type stringReader struct {
	s   string
	bad bool
}

func (r *stringReader) uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64 && len(r.s) > 0; shift += 7 {
		c := r.s[0]
		r.s = r.s[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	r.bad = true
	return 0
}

func (r *stringReader) str() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.s)) {
		r.bad = true
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// Age is the entry's current age at now (RFC 9111 §4.2.3): never
// negative, and at most httpcache.MaxAge whatever the entry says (it may
// come from a store the cache does not control) and however far the clock is
// from its time of arrival, so that no sum overflows.
func (e *Entry) Age(now time.Time) time.Duration {
	return min(httpcache.ClampAge(e.InitialAge)+httpcache.ClampAge(now.Sub(e.RespTime)), httpcache.MaxAge)
}

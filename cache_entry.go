package kit

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"net/http"
	"time"
)

// Private implementation past this point.
//
// cache_entry.go is the format of what WithCache stores: a versioned binary
// record with a checksum, so that an entry another version of kit wrote, or
// a store corrupted, is told from a good one and treated as a miss.

// cacheEntry is one stored response.
type cacheEntry struct {
	status     int
	respTime   time.Time     // when the response arrived
	initialAge time.Duration // its corrected initial age (RFC 9111 §4.2.3)
	lifetime   time.Duration // its freshness lifetime (§4.2.1)
	noCache    bool          // it must be revalidated before each use
	vary       []string      // pairs: a header the response varies on, the request's value of it
	header     http.Header
	body       []byte // shares the encoded entry's bytes
}

// entryMagic starts every entry: the format and its version.
const entryMagic = "kitc\x01"

var errBadEntry = errors.New("the stored entry does not decode")

// encode returns the entry's bytes.
func (e *cacheEntry) encode() []byte {
	n := len(entryMagic) + 5*binary.MaxVarintLen64 + len(e.body) + 4
	for _, s := range e.vary {
		n += len(s) + binary.MaxVarintLen64
	}
	for k, vs := range e.header {
		n += len(k) + 2*binary.MaxVarintLen64
		for _, v := range vs {
			n += len(v) + binary.MaxVarintLen64
		}
	}
	b := make([]byte, 0, n)
	b = append(b, entryMagic...)
	b = binary.AppendUvarint(b, uint64(e.status))
	b = binary.AppendVarint(b, e.respTime.UnixNano())
	b = binary.AppendVarint(b, int64(e.initialAge))
	b = binary.AppendVarint(b, int64(e.lifetime))
	flags := byte(0)
	if e.noCache {
		flags |= 1
	}
	b = append(b, flags)
	// The strings of vary and header are in one run, so that decoding
	// makes one string of them all.
	b = binary.AppendUvarint(b, uint64(len(e.vary)))
	b = binary.AppendUvarint(b, uint64(len(e.header)))
	for _, s := range e.vary {
		b = appendString(b, s)
	}
	for k, vs := range e.header {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = appendString(b, v)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(e.body)))
	b = append(b, e.body...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodeEntry reads what encode wrote. The body shares data's bytes. Any
// inconsistency (another format, a bad checksum, a length past the end)
// is errBadEntry.
func decodeEntry(data []byte) (*cacheEntry, error) {
	if len(data) < len(entryMagic)+4 || string(data[:len(entryMagic)]) != entryMagic {
		return nil, errBadEntry
	}
	end := len(data) - 4
	if crc32.ChecksumIEEE(data[:end]) != binary.BigEndian.Uint32(data[end:]) {
		return nil, errBadEntry
	}
	r := entryReader{b: data[len(entryMagic):end]}
	e := &cacheEntry{}
	status := r.uvarint()
	resp := r.varint()
	// Kept to [0, maxAge] like every age and lifetime kit works out: the
	// store is not kit's, and what it holds is added to and subtracted from.
	e.initialAge = clampAge(time.Duration(r.varint()))
	e.lifetime = clampAge(time.Duration(r.varint()))
	flags := r.byte()
	nVary, nHeader := r.uvarint(), r.uvarint()
	if r.bad || status < 100 || status > 999 || nVary > uint64(len(r.b)) || nHeader > uint64(len(r.b)) {
		return nil, errBadEntry
	}
	e.status, e.respTime, e.noCache = int(status), time.Unix(0, resp), flags&1 != 0
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
			return nil, errBadEntry
		}
		for range nv {
			strs.bytes()
		}
		values += int(nv)
	}
	if strs.bad {
		return nil, errBadEntry
	}
	stop := len(data) - 4 - len(strs.b)
	all := string(data[start:stop]) // one allocation for every string
	s := stringReader{s: all}
	if nVary > 0 {
		e.vary = make([]string, nVary)
		for i := range e.vary {
			e.vary[i] = s.str()
		}
	}
	e.header = make(http.Header, nHeader)
	vals := make([]string, values)
	for range nHeader {
		k := s.str()
		nv := int(s.uvarint())
		vs := vals[:nv:nv]
		vals = vals[nv:]
		for i := range vs {
			vs[i] = s.str()
		}
		e.header[k] = vs
	}
	body := strs.bytes()
	if strs.bad || len(strs.b) != 0 || s.bad {
		return nil, errBadEntry
	}
	if len(body) > 0 {
		e.body = body[:len(body):len(body)]
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

// varyMatches reports whether req carries the values the stored response
// was chosen by (RFC 9111 §4.1).
func (e *cacheEntry) varyMatches(h http.Header) bool {
	for i := 0; i+1 < len(e.vary); i += 2 {
		if varyValue(h, e.vary[i]) != e.vary[i+1] {
			return false
		}
	}
	return true
}

// private returns a copy of a shared entry (NewMemoryCache's) that the
// caller may change: its own header, values included (it may end up in a
// caller's response).
func (e *cacheEntry) private() *cacheEntry {
	c := *e
	c.header = cloneHeader(e.header, 1, nil)
	return &c
}

// age is the entry's current age at now (RFC 9111 §4.2.3): never
// negative, and at most maxDelta seconds whatever the entry says (it may
// come from a store kit does not control) and however far the clock is
// from its time of arrival, so that no sum overflows.
func (e *cacheEntry) age(now time.Time) time.Duration {
	return min(clampAge(e.initialAge)+clampAge(now.Sub(e.respTime)), maxAge)
}

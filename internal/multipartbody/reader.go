// Package multipartbody reads a multipart body laid out in segments: bytes
// held in memory (part headers, text parts) and files opened only when
// their turn comes. It is standard-library only and knows nothing of kit's
// types.
package multipartbody

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// Segment is one run of a body: Data, or (when Open is set) the content of
// the file named Name, opened when the reader reaches it.
type Segment struct {
	Data []byte
	Name string                        // the file's name, for errors
	Open func() (io.ReadCloser, error) // nil for a data segment; must not return a nil reader without an error
}

// ErrReadAfterClose is what a Reader's Read returns once it is closed.
var ErrReadAfterClose = errors.New("read after Close")

// NewReader returns a reader of the segments in turn. Each file is opened
// when its segment's turn comes and closed once read to the end (or by
// Close), so at most one file is open at a time, whatever the number of
// segments.
func NewReader(segs []Segment) io.ReadCloser { return &reader{segs: segs} }

// reader reads the segments in turn. Close may be called concurrently with
// Read, as net/http requires of a request body (its transport closes the
// body from another goroutine when a request is cancelled): the state is
// guarded by mu, which is never held while a file is opened or read, so
// Close never waits for a slow file. A file being read when Close is called
// is closed then, concurrently with its Read, as net/http would close a raw
// body.
type reader struct {
	mu     sync.Mutex
	segs   []Segment
	cur    io.ReadCloser // the open file of segment i; nil when none is open
	i      int           // the segment being read
	off    int           // the offset in a data segment
	closed bool
	failed error // an Open that failed: every later Read returns it
}

func (r *reader) Read(p []byte) (int, error) {
	r.mu.Lock()
	for {
		switch {
		case r.closed:
			r.mu.Unlock()
			return 0, ErrReadAfterClose
		case r.failed != nil:
			r.mu.Unlock()
			return 0, r.failed
		case r.i >= len(r.segs):
			r.mu.Unlock()
			return 0, io.EOF
		}
		s := r.segs[r.i]
		if s.Open == nil {
			if r.off < len(s.Data) {
				n := copy(p, s.Data[r.off:])
				r.off += n
				r.mu.Unlock()
				return n, nil
			}
			r.i, r.off = r.i+1, 0
			continue
		}
		if r.cur == nil {
			r.mu.Unlock()
			rc, err := s.Open()
			if err == nil && rc == nil {
				err = fmt.Errorf("opening file %q: Open returned a nil reader", s.Name)
			}
			r.mu.Lock()
			if err != nil {
				r.failed = err
				continue
			}
			if r.closed {
				r.mu.Unlock()
				rc.Close()
				return 0, ErrReadAfterClose
			}
			r.cur = rc
		}
		cur := r.cur
		r.mu.Unlock()
		n, err := cur.Read(p)
		r.mu.Lock()
		if r.closed {
			// Close closed cur, maybe during its Read.
			r.mu.Unlock()
			return 0, ErrReadAfterClose
		}
		if err == io.EOF {
			r.cur = nil
			r.i++
			r.mu.Unlock()
			cur.Close()
			if n > 0 {
				return n, nil
			}
			r.mu.Lock()
			continue
		}
		r.mu.Unlock()
		if err != nil {
			err = fmt.Errorf("reading file %q: %w", s.Name, err)
		}
		return n, err
	}
}

// Close closes the file being read, if any; every later Read fails.
func (r *reader) Close() error {
	r.mu.Lock()
	cur := r.cur
	r.cur, r.closed = nil, true
	r.mu.Unlock()
	if cur != nil {
		return cur.Close()
	}
	return nil
}

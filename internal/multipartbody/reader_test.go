package multipartbody

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// file is a file segment's content that counts the opens and closes of
// its readers.
type file struct {
	mu            sync.Mutex
	content       string
	open, closed  int
	maxOpenAtOnce *int
	openNow       *int
}

func (f *file) opener() func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.open++
		if f.openNow != nil {
			*f.openNow++
			*f.maxOpenAtOnce = max(*f.maxOpenAtOnce, *f.openNow)
		}
		return &fileReader{Reader: strings.NewReader(f.content), f: f}, nil
	}
}

type fileReader struct {
	io.Reader
	f *file
}

func (r *fileReader) Close() error {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.f.closed++
	if r.f.openNow != nil {
		*r.f.openNow--
	}
	return nil
}

func TestReaderReadsSegmentsInTurnOneFileOpenAtATime(t *testing.T) {
	var openNow, maxOpen int
	a := &file{content: "AAAA", openNow: &openNow, maxOpenAtOnce: &maxOpen}
	b := &file{content: "", openNow: &openNow, maxOpenAtOnce: &maxOpen}
	c := &file{content: "CC", openNow: &openNow, maxOpenAtOnce: &maxOpen}
	segs := []Segment{
		{Data: []byte("head;")},
		{Name: "a", Open: a.opener()},
		{Data: []byte(";mid;")},
		{Name: "b", Open: b.opener()},
		{Name: "c", Open: c.opener()},
		{Data: []byte(";tail")},
	}
	// One byte at a time: every boundary is crossed mid-read.
	got, err := io.ReadAll(iotest.OneByteReader(NewReader(segs)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "head;AAAA;mid;CC;tail"; string(got) != want {
		t.Errorf("read %q, want %q", got, want)
	}
	for name, f := range map[string]*file{"a": a, "b": b, "c": c} {
		if f.open != 1 || f.closed != 1 {
			t.Errorf("file %s: opened %d times, closed %d, want 1 and 1", name, f.open, f.closed)
		}
	}
	if maxOpen != 1 {
		t.Errorf("%d files open at once, want 1", maxOpen)
	}
}

func TestReaderOpenFailureSticks(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader([]Segment{{Data: []byte("x")}, {Name: "f", Open: func() (io.ReadCloser, error) { return nil, boom }}})
	got, err := io.ReadAll(r)
	if string(got) != "x" || !errors.Is(err, boom) {
		t.Fatalf("ReadAll = %q, %v; want \"x\" and boom", got, err)
	}
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, boom) {
		t.Errorf("a later Read = %v, want boom again", err)
	}
}

func TestReaderNilReaderIsAnError(t *testing.T) {
	r := NewReader([]Segment{{Name: "f", Open: func() (io.ReadCloser, error) { return nil, nil }}})
	_, err := io.ReadAll(r)
	if err == nil || !strings.Contains(err.Error(), `opening file "f": Open returned a nil reader`) {
		t.Errorf("ReadAll = %v, want the nil reader named", err)
	}
}

func TestReaderReadErrorNamesTheFile(t *testing.T) {
	boom := errors.New("disk")
	r := NewReader([]Segment{{Name: "photo.jpg", Open: func() (io.ReadCloser, error) {
		return io.NopCloser(iotest.ErrReader(boom)), nil
	}}})
	_, err := io.ReadAll(r)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `reading file "photo.jpg"`) {
		t.Errorf("ReadAll = %v, want the file named and the cause wrapped", err)
	}
}

func TestReaderCloseClosesTheOpenFile(t *testing.T) {
	f := &file{content: "0123456789"}
	r := NewReader([]Segment{{Name: "f", Open: f.opener()}, {Data: []byte("never")}})
	if _, err := r.Read(make([]byte, 3)); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if f.open != 1 || f.closed != 1 {
		t.Errorf("opened %d, closed %d, want 1 and 1", f.open, f.closed)
	}
	if _, err := r.Read(make([]byte, 3)); !errors.Is(err, ErrReadAfterClose) {
		t.Errorf("Read after Close = %v, want ErrReadAfterClose", err)
	}
}

// blockingFile's Read waits until it is closed, as a network file would
// until its connection is closed.
type blockingFile struct {
	reading chan struct{}
	closed  chan struct{}
	once    sync.Once
}

func (b *blockingFile) Read([]byte) (int, error) {
	close(b.reading)
	<-b.closed
	return 0, errors.New("closed while reading")
}

func (b *blockingFile) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

func TestReaderCloseDuringReadDoesNotWait(t *testing.T) {
	bf := &blockingFile{reading: make(chan struct{}), closed: make(chan struct{})}
	r := NewReader([]Segment{{Name: "slow", Open: func() (io.ReadCloser, error) { return bf, nil }}})
	done := make(chan error)
	go func() {
		_, err := r.Read(make([]byte, 8))
		done <- err
	}()
	<-bf.reading
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrReadAfterClose) {
		t.Errorf("the Read that Close interrupted = %v, want ErrReadAfterClose", err)
	}
}

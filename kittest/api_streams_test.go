package kittest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// apiTGet sends GET path with the given headers and returns the response,
// its body unread.
func apiTStream(t *testing.T, url string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestAPI_Events(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	resp := apiTStream(t, srv.URL+"/events?count=3&retry=250&heartbeat=true&done=true", nil)
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s, %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	want := "retry: 250\n\n" +
		": heartbeat\nid: 1\nevent: tick\ndata: {\"seq\":1,\"text\":\"event 1\"}\n\n" +
		": heartbeat\nid: 2\nevent: tick\ndata: {\"seq\":2,\"text\":\"event 2\"}\n\n" +
		": heartbeat\nid: 3\nevent: tick\ndata: {\"seq\":3,\"text\":\"event 3\"}\n\n" +
		"data: [DONE]\n\n"
	if string(body) != want {
		t.Errorf("body:\n%s\nwant:\n%s", body, want)
	}
	var ev Event
	if err := json.Unmarshal([]byte(`{"seq":2,"text":"event 2"}`), &ev); err != nil || ev != (Event{2, "event 2"}) {
		t.Errorf("Event = %+v, %v", ev, err)
	}

	// Resuming after an id.
	resp = apiTStream(t, srv.URL+"/events?count=5", map[string]string{"Last-Event-ID": "3"})
	body, _ = io.ReadAll(resp.Body)
	if got := strings.Count(string(body), "id: "); got != 2 || !strings.HasPrefix(string(body), "id: 4\n") {
		t.Errorf("after Last-Event-ID 3: %q", body)
	}

	for _, bad := range []string{"?count=-1", "?count=x", "?drop_every=-2", "?retry=x", "?delay_ms=5000"} {
		if r := apiTStream(t, srv.URL+"/events"+bad, nil); r.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, r.StatusCode)
		}
	}
	if r := apiTStream(t, srv.URL+"/events", map[string]string{"Last-Event-ID": "abc"}); r.StatusCode != http.StatusBadRequest {
		t.Errorf("bad Last-Event-ID: %d, want 400", r.StatusCode)
	}
}

func TestAPI_EventsDrop(t *testing.T) {
	t.Parallel()
	api, srv := apiTStart(t)
	last := ""
	var seqs []int
	for conn := 0; conn < 10; conn++ {
		resp := apiTStream(t, srv.URL+"/events?count=7&drop_every=3&done=true", map[string]string{"Last-Event-ID": last})
		body, err := io.ReadAll(resp.Body)
		// Complete events only: a block ending with a blank line.
		complete := string(body)
		if i := strings.LastIndex(complete, "\n\n"); i >= 0 {
			complete = complete[:i+2]
		} else {
			complete = ""
		}
		for _, block := range strings.Split(strings.TrimSpace(complete), "\n\n") {
			for _, line := range strings.Split(block, "\n") {
				if v, ok := strings.CutPrefix(line, "id: "); ok {
					last = v
					n, _ := strconv.Atoi(v)
					seqs = append(seqs, n)
				}
			}
		}
		if err == nil {
			if !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
				t.Fatalf("connection %d ended without an error or [DONE]: %q", conn, body)
			}
			break
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("connection %d: %v, want a cut connection", conn, err)
		}
		if !strings.Contains(string(body[len(complete):]), "id: ") {
			t.Errorf("connection %d was not cut in the middle of an event: %q", conn, body[len(complete):])
		}
	}
	if !reflect.DeepEqual(seqs, []int{1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("events %v, want 1..7 once each", seqs)
	}
	if n := api.Stats().ByPath["GET /events"]; n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

func TestAPI_Chat(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	resp := apiTDo(t, srv, apiTReq{method: "POST", path: "/chat", ctype: "application/json", body: `{"message":"  hello   kit "}`})
	if resp.status != 200 || resp.header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", resp.status, resp.header.Get("Content-Type"))
	}
	var text strings.Builder
	blocks := strings.Split(strings.TrimSpace(string(resp.body)), "\n\n")
	for i, block := range blocks[:len(blocks)-1] {
		data, ok := strings.CutPrefix(block, "event: token\ndata: ")
		var c ChatChunk
		if !ok || json.Unmarshal([]byte(data), &c) != nil || c.Index != i {
			t.Fatalf("block %d = %q", i, block)
		}
		text.WriteString(c.Text)
	}
	if blocks[len(blocks)-1] != "data: [DONE]" {
		t.Errorf("last block %q", blocks[len(blocks)-1])
	}
	want := "You said: hello kit. Here is my answer, streamed one token at a time."
	if text.String() != want || strings.Join(ChatReply("hello kit"), "") != want {
		t.Errorf("reply %q, want %q", text.String(), want)
	}
	if got := strings.Join(ChatReply("Why?"), ""); got != "You said: Why? Here is my answer, streamed one token at a time." {
		t.Errorf("reply to a question: %q", got)
	}
	if r := apiTDo(t, srv, apiTReq{method: "POST", path: "/chat", ctype: "application/json", body: `{"message":" "}`}); r.status != 422 {
		t.Errorf("empty message: %d", r.status)
	}
	if r := apiTDo(t, srv, apiTReq{method: "POST", path: "/chat", ctype: "application/json", body: `{"message":1}`}); r.status != 400 {
		t.Errorf("message of a bad type: %d", r.status)
	}
}

func TestAPI_UsersNDJSON(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t, WithUsers(30))
	resp := apiTDo(t, srv, apiTReq{path: "/users.ndjson?team_id=2"})
	if resp.status != 200 || resp.header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("%d %s", resp.status, resp.header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(bytes.NewReader(resp.body))
	n := 0
	for sc.Scan() {
		var u apiUser
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil || u.TeamID != 2 {
			t.Fatalf("line %q: %+v, %v", sc.Bytes(), u, err)
		}
		n++
	}
	if n != 6 {
		t.Errorf("%d users of team 2, want 6", n)
	}
}

func TestAPI_Records(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	resp := apiTDo(t, srv, apiTReq{path: "/records?count=500"})
	var recs []Record
	if err := json.Unmarshal(resp.body, &recs); err != nil || len(recs) != 500 || resp.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for i, r := range recs {
		if want := RecordAt(int64(i + 1)); !reflect.DeepEqual(r, want) {
			t.Fatalf("record %d = %+v, want %+v", i+1, r, want)
		}
	}
	// The generated JSON is what encoding/json writes.
	want, _ := json.Marshal(RecordAt(123456789))
	if got := appendRecord(nil, 123456789); !bytes.Equal(got, want) {
		t.Errorf("appendRecord = %s, want %s", got, want)
	}
	if len(want) < 170 || len(want) > 210 {
		t.Errorf("a record is %d bytes, documented as about 190", len(want))
	}

	resp = apiTDo(t, srv, apiTReq{path: "/records.ndjson?count=50"})
	lines := strings.Split(strings.TrimSuffix(string(resp.body), "\n"), "\n")
	if len(lines) != 50 || resp.header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("%d lines", len(lines))
	}
	var r Record
	if err := json.Unmarshal([]byte(lines[49]), &r); err != nil || !reflect.DeepEqual(r, RecordAt(50)) {
		t.Errorf("line 50 = %+v, %v", r, err)
	}

	for _, path := range []string{"/records?bytes=100000", "/records.ndjson?bytes=100000", "/records?count=0"} {
		resp = apiTDo(t, srv, apiTReq{path: path})
		if len(resp.body) > 100000 || len(resp.body) < 99000 && !strings.Contains(path, "count=0") {
			t.Errorf("%s: %d bytes", path, len(resp.body))
		}
		if strings.HasPrefix(path, "/records?") && !json.Valid(resp.body) {
			t.Errorf("%s: not valid JSON", path)
		}
	}
	if r := apiTDo(t, srv, apiTReq{path: "/records?count=-5"}); r.status != 400 {
		t.Errorf("negative count: %d", r.status)
	}

	// A stream far larger than the server's buffer, read as it comes.
	big := apiTStream(t, srv.URL+"/records.ndjson?bytes="+strconv.Itoa(64<<20), nil)
	n, err := io.Copy(io.Discard, big.Body)
	if err != nil || n < 63<<20 || n > 64<<20 {
		t.Errorf("64 MiB stream: %d bytes, %v", n, err)
	}
}

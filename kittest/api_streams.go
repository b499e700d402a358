package kittest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Record is a generated record of GET /records and GET /records.ndjson:
// record i (1-based) is RecordAt(i). Its JSON is about 190 bytes.
type Record struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	TeamID    int       `json:"team_id"`
	Score     int       `json:"score"`
	Active    bool      `json:"active"`
	Tags      []string  `json:"tags"`
	CreatedAt time.Time `json:"created_at"`
}

// RecordAt returns record i of the generated record streams.
func RecordAt(i int64) Record {
	return Record{
		ID:        i,
		Name:      "record-" + strconv.FormatInt(i, 10),
		Email:     "record-" + strconv.FormatInt(i, 10) + "@example.com",
		TeamID:    int(i%5) + 1,
		Score:     int(i * 7 % 101),
		Active:    i%3 != 0,
		Tags:      []string{"t" + strconv.FormatInt(i%4, 10), "t" + strconv.FormatInt(i%7, 10)},
		CreatedAt: recordEpoch.Add(time.Duration(i) * time.Second),
	}
}

// Event is the data of an event of GET /events.
type Event struct {
	Seq  int    `json:"seq"`
	Text string `json:"text"`
}

// ChatChunk is the data of a token event of POST /chat.
type ChatChunk struct {
	Index int    `json:"index"`
	Text  string `json:"text"`
}

// ChatReply returns the reply POST /chat streams for message, as the
// texts of its tokens in order: "You said: <message>. Here is my answer,
// streamed one token at a time.", its words each with the space after it
// (no period is added after a message that ends with one, or with ? or !).
func ChatReply(message string) []string {
	said := strings.Join(strings.Fields(message), " ")
	if !strings.HasSuffix(said, ".") && !strings.HasSuffix(said, "?") && !strings.HasSuffix(said, "!") {
		said += "."
	}
	words := strings.Fields("You said: " + said + " Here is my answer, streamed one token at a time.")
	for i := range words[:len(words)-1] {
		words[i] += " "
	}
	return words
}

// Private implementation past this point.

// recordEpoch is the created_at of record 0.
var recordEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	apiMaxEvents  = 1_000_000
	apiMaxRecords = 1 << 40
	apiMaxDelay   = 1000 // ms
)

// apiSSE starts a text/event-stream response.
func apiSSE(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

func apiFlush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// apiPause waits ms milliseconds, or until the request is cancelled
// (false).
func apiPause(r *http.Request, ms int) bool {
	if ms <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// events handles GET /events: a text/event-stream of count numbered events
// (default 10), "id: N", "event: tick", "data: {"seq":N,"text":"event N"}",
// N from 1, after the one named by a Last-Event-ID header. Options: retry=MS
// sends "retry: MS" first; heartbeat=true a comment line before each event;
// delay_ms=N waits between events; done=true ends with "data: [DONE]";
// drop_every=K cuts each connection after K events, in the middle of the
// next one (its id line and half its data sent), so that a client resumes
// with Last-Event-ID.
func (a *API) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	count, msg := apiIntParam(q, "count", 10, 0, apiMaxEvents)
	if msg == "" {
		var dropEvery, retry, delay, stallAfter int
		dropEvery, msg = apiIntParam(q, "drop_every", 0, 0, apiMaxEvents)
		if msg == "" {
			stallAfter, msg = apiIntParam(q, "stall_after", 0, 0, apiMaxEvents)
		}
		if msg == "" {
			retry, msg = apiIntParam(q, "retry", -1, 0, apiMaxInt)
		}
		if msg == "" {
			delay, msg = apiIntParam(q, "delay_ms", 0, 0, apiMaxDelay)
		}
		if msg == "" {
			after := 0
			if s := r.Header.Get("Last-Event-ID"); s != "" {
				n, err := strconv.Atoi(s)
				if err != nil || n < 0 {
					apiBadRequest(w, "Last-Event-ID must be the id of an event (an integer), got "+strconv.Quote(s))
					return
				}
				after = n
			}
			a.serveEvents(w, r, after, count, dropEvery, stallAfter, retry, delay, q.Get("heartbeat") == "true", q.Get("done") == "true")
			return
		}
	}
	apiBadRequest(w, msg)
}

func (a *API) serveEvents(w http.ResponseWriter, r *http.Request, after, count, dropEvery, stallAfter, retry, delay int, heartbeat, done bool) {
	apiSSE(w)
	var b []byte
	if retry >= 0 {
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, int64(retry), 10)
		b = append(b, "\n\n"...)
	}
	sent := 0
	for seq := after + 1; seq <= count; seq++ {
		if stallAfter > 0 && sent == stallAfter {
			<-r.Context().Done() // a server that hangs: nothing more
			return
		}
		if dropEvery > 0 && sent == dropEvery {
			// Half an event, then the connection is cut: the client must
			// neither see this event nor count its id as received.
			b = append(b, "id: "...)
			b = strconv.AppendInt(b, int64(seq), 10)
			b = append(b, "\nevent: tick\ndata: {\"seq\":"...)
			w.Write(b)
			apiFlush(w)
			panic(http.ErrAbortHandler)
		}
		if heartbeat {
			b = append(b, ": heartbeat\n"...)
		}
		b = append(b, "id: "...)
		b = strconv.AppendInt(b, int64(seq), 10)
		b = append(b, "\nevent: tick\ndata: {\"seq\":"...)
		b = strconv.AppendInt(b, int64(seq), 10)
		b = append(b, ",\"text\":\"event "...)
		b = strconv.AppendInt(b, int64(seq), 10)
		b = append(b, "\"}\n\n"...)
		if _, err := w.Write(b); err != nil {
			return
		}
		apiFlush(w)
		b = b[:0]
		sent++
		if seq < count && !apiPause(r, delay) {
			return
		}
	}
	if done {
		b = append(b, "data: [DONE]\n\n"...)
	}
	w.Write(b)
}

// chat handles POST /chat: {"message": "..."} (required); the reply
// (ChatReply) is streamed as text/event-stream, one "event: token" with
// data {"index":i,"text":"..."} per word, then "data: [DONE]". delay_ms=N
// waits N ms (at most 1000) before each token.
func (a *API) chat(w http.ResponseWriter, r *http.Request) {
	delay, msg := apiIntParam(r.URL.Query(), "delay_ms", 0, 0, apiMaxDelay)
	if msg != "" {
		apiBadRequest(w, msg)
		return
	}
	body, ok := apiReadJSON(w, r, '{')
	if !ok {
		return
	}
	var req struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		apiBadRequest(w, "message must be a string")
		return
	}
	if strings.TrimSpace(req.Message) == "" {
		apiValidationFailed(w, map[string]string{"message": "is required"})
		return
	}
	apiSSE(w)
	apiFlush(w)
	for i, word := range ChatReply(req.Message) {
		if !apiPause(r, delay) {
			return
		}
		data, _ := json.Marshal(ChatChunk{Index: i, Text: word})
		if _, err := w.Write([]byte("event: token\ndata: " + string(data) + "\n\n")); err != nil {
			return
		}
		apiFlush(w)
	}
	w.Write([]byte("data: [DONE]\n\n"))
}

// usersNDJSON handles GET /users.ndjson: the users matching the listing
// filters, one JSON object a line, as application/x-ndjson.
func (a *API) usersNDJSON(w http.ResponseWriter, r *http.Request) {
	f, msg := apiParseFilter(r.URL.Query())
	if msg != "" {
		apiBadRequest(w, msg)
		return
	}
	users := a.filteredUsers(f)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	for _, u := range users {
		line, _ := apiEncodeJSON(u)
		if _, err := w.Write(line); err != nil {
			return
		}
	}
}

// records handles GET /records (a JSON array) and GET /records.ndjson
// (NDJSON): count generated records (default 1000), or as many as fit in
// bytes bytes when bytes is given, generated as they are sent.
func (a *API) records(ndjson bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		count, msg := apiIntParam(q, "count", 1000, 0, apiMaxInt)
		var size int
		if msg == "" {
			size, msg = apiIntParam(q, "bytes", 0, 0, apiMaxInt)
		}
		if msg != "" {
			apiBadRequest(w, msg)
			return
		}
		if q.Has("bytes") {
			count = apiMaxInt
		}
		limit := int64(min(count, apiMaxRecords))
		ctype, open, sep, end := "application/json", "[", ",", "]\n"
		if ndjson {
			ctype, open, sep, end = "application/x-ndjson", "", "", ""
		}
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodHead {
			return
		}
		buf := make([]byte, 0, 64<<10)
		buf = append(buf, open...)
		written := int64(0)
		for i := int64(1); i <= limit; i++ {
			mark := len(buf)
			if i > 1 {
				buf = append(buf, sep...)
			}
			buf = appendRecord(buf, i)
			if ndjson {
				buf = append(buf, '\n')
			}
			if size > 0 && written+int64(len(buf)+len(end)) > int64(size) {
				buf = buf[:mark]
				break
			}
			if len(buf) >= 60<<10 {
				if _, err := w.Write(buf); err != nil {
					return
				}
				written += int64(len(buf))
				buf = buf[:0]
			}
		}
		buf = append(buf, end...)
		w.Write(buf)
	}
}

// appendRecord appends the JSON of RecordAt(i), as encoding/json writes it.
func appendRecord(b []byte, i int64) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, i, 10)
	b = append(b, `,"name":"record-`...)
	b = strconv.AppendInt(b, i, 10)
	b = append(b, `","email":"record-`...)
	b = strconv.AppendInt(b, i, 10)
	b = append(b, `@example.com","team_id":`...)
	b = strconv.AppendInt(b, i%5+1, 10)
	b = append(b, `,"score":`...)
	b = strconv.AppendInt(b, i*7%101, 10)
	b = append(b, `,"active":`...)
	b = strconv.AppendBool(b, i%3 != 0)
	b = append(b, `,"tags":["t`...)
	b = strconv.AppendInt(b, i%4, 10)
	b = append(b, `","t`...)
	b = strconv.AppendInt(b, i%7, 10)
	b = append(b, `"],"created_at":"`...)
	b = recordEpoch.Add(time.Duration(i)*time.Second).AppendFormat(b, time.RFC3339)
	b = append(b, `"}`...)
	return b
}

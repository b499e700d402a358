package kittest

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Long-running operations.
//
// POST /lro/jobs starts a job and answers 202 Accepted with its URL in the
// Operation-Location and Location headers ("jobs/<id>", relative to the
// request) and the job as JSON. Its body, {"polls":N,"fail":B,"never":B,
// "retry_after":S} (every field optional), scripts the job: it is running
// for the first N polls (default 2), then "succeeded" (or "failed" with
// fail true; running forever with never true). retry_after, when set,
// adds "Retry-After: S" (seconds) to the 202 answers.
//
// GET /lro/jobs/{id} is a poll: 202 Accepted with {"id","status":"running",
// "polls"} while running, then 200 with {"id","status":"succeeded",
// "polls","result":{"id","output"}} or {"id","status":"failed","polls",
// "error":{"code","message"}}. Unknown ids are a 404.

// LROJob is the body of the /lro/jobs answers.
type LROJob struct {
	ID     int        `json:"id"`
	Status string     `json:"status"`
	Polls  int        `json:"polls"`
	Result *LROResult `json:"result,omitempty"`
	Error  *LROError  `json:"error,omitempty"`
}

// LROResult is a succeeded job's result.
type LROResult struct {
	ID     int    `json:"id"`
	Output string `json:"output"`
}

// LROError is a failed job's error.
type LROError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// apiJob is a job and its script.
type apiJob struct {
	LROJob
	running    int // polls left while running
	fail       bool
	never      bool
	retryAfter string
}

func (a *API) startJob(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Polls      *int `json:"polls"`
		Fail       bool `json:"fail"`
		Never      bool `json:"never"`
		RetryAfter *int `json:"retry_after"`
	}
	if r.ContentLength != 0 {
		body, ok := apiReadJSON(w, r, '{')
		if !ok {
			return
		}
		if err := json.Unmarshal(body, &req); err != nil {
			apiBadRequest(w, "polls and retry_after must be integers, fail and never booleans")
			return
		}
	}
	polls := 2
	if req.Polls != nil {
		polls = *req.Polls
	}
	if polls < 0 || polls > 1000 || req.RetryAfter != nil && (*req.RetryAfter < 0 || *req.RetryAfter > 3600) {
		apiValidationFailed(w, map[string]string{"polls": "must be between 0 and 1000", "retry_after": "must be between 0 and 3600"})
		return
	}
	a.mu.Lock()
	j := &apiJob{LROJob: LROJob{ID: len(a.jobs) + 1, Status: "running"}, running: polls, fail: req.Fail, never: req.Never}
	if req.RetryAfter != nil {
		j.retryAfter = strconv.Itoa(*req.RetryAfter)
	}
	a.jobs = append(a.jobs, j)
	job := j.LROJob
	a.mu.Unlock()
	loc := "jobs/" + strconv.Itoa(job.ID)
	w.Header().Set("Operation-Location", loc)
	w.Header().Set("Location", loc)
	if j.retryAfter != "" {
		w.Header().Set("Retry-After", j.retryAfter)
	}
	apiWriteJSON(w, http.StatusAccepted, job)
}

func (a *API) pollJob(w http.ResponseWriter, r *http.Request) {
	id, ok := apiParseID(r.PathValue("id"))
	a.mu.Lock()
	if !ok || id > len(a.jobs) {
		a.mu.Unlock()
		apiNotFound(w, "no job "+r.PathValue("id"))
		return
	}
	j := a.jobs[id-1]
	j.Polls++
	switch {
	case j.never || j.running > 0:
		j.running--
	case j.fail:
		j.Status = "failed"
		j.Error = &LROError{Code: "job_failed", Message: "job " + strconv.Itoa(j.ID) + " failed"}
	default:
		j.Status = "succeeded"
		j.Result = &LROResult{ID: j.ID, Output: "job " + strconv.Itoa(j.ID) + " output"}
	}
	job, retryAfter := j.LROJob, j.retryAfter
	a.mu.Unlock()
	if job.Status == "running" {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		apiWriteJSON(w, http.StatusAccepted, job)
		return
	}
	apiWriteJSON(w, http.StatusOK, job)
}

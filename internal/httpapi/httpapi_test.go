package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kalah"
)

var errTestGone = errors.New("test: gone")

// testErrors are the layer's own mappings and a package's: what an
// assembly of the server builds.
var testErrors = NewErrors().Map(http.StatusGone, errTestGone).RetryAfter(30*time.Second, errTestGone)

func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 200},
		{ErrBadRequest, 400},
		{fmt.Errorf("%w: house 9", ErrBadRequest), 400},
		{ErrNotJSON, 415}, // wraps ErrBadRequest, but is mapped first
		{fmt.Errorf("play: %w", kalah.ErrIllegalMove), 400},
		{kalah.ErrGameOver, 409},
		{fmt.Errorf("x: %w", errTestGone), 410}, // a package's own mapping
		{context.DeadlineExceeded, 503},
		{errors.New("disk on fire"), 500},
	} {
		if got := testErrors.StatusOf(tc.err); got != tc.want {
			t.Errorf("StatusOf(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if got := StatusOf(errTestGone); got != 500 {
		t.Errorf("a package's error not mapped where the server is assembled: %d, want 500", got)
	}
}

// TestWriteErrorUnderWrappers: an error written through writers wrapped
// around the request's (a stream's deadlines) still takes the assembly's
// status, its Retry-After, and its request id.
func TestWriteErrorUnderWrappers(t *testing.T) {
	h := Requests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteError(wrapped{w}, fmt.Errorf("x: %w", errTestGone))
	}), slog.New(slog.DiscardHandler), testErrors)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/x", nil))
	if rec.Code != http.StatusGone || rec.Header().Get("Retry-After") != "30" {
		t.Fatalf("got %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
}

type wrapped struct{ http.ResponseWriter }

func (w wrapped) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestServerFailureIsLoggedNotTold: a 500 answers with the request's id and
// generic words; the failure's own words go to the log under that id.
func TestServerFailureIsLoggedNotTold(t *testing.T) {
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, nil))
	h := Requests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteError(wrapped{w}, errors.New("sqlite: disk I/O error at /var/lib/kalah"))
	}), log, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/x", nil))
	var body struct {
		Error     string `json:"error"`
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	id := rec.Header().Get("X-Request-Id")
	if rec.Code != 500 || id == "" || body.RequestID != id {
		t.Fatalf("got %d, id %q, body %+v", rec.Code, id, body)
	}
	if strings.Contains(body.Error, "sqlite") || strings.Contains(body.Error, "/var") {
		t.Errorf("the answer tells the failure's words: %q", body.Error)
	}
	if !strings.Contains(logs.String(), "id="+id) || !strings.Contains(logs.String(), "disk I/O") {
		t.Errorf("the log lacks the failure under its id: %s", logs.String())
	}
}

func TestReadJSON(t *testing.T) {
	var v struct{ A int }
	for _, tc := range []struct {
		ctype, body string
		want        int
	}{
		{"application/json", `{"A":1}`, 200},
		{"application/json", ``, 200},
		{"text/plain", `{"A":1}`, 415},
		{"application/json", `{"B":1}`, 400},
		{"application/json", `{"A":1} {}`, 400},
		{"application/json", `{"A":"` + strings.Repeat("x", 70<<10) + `"}`, 400},
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", tc.ctype)
		if got := StatusOf(ReadJSON(httptest.NewRecorder(), r, &v)); got != tc.want {
			t.Errorf("%s %.20q: %d, want %d", tc.ctype, tc.body, got, tc.want)
		}
	}
}

// TestQuietRefusals: a request sent with QuietHeader has its refusals
// (4xx) answered 200 OK, the real status in StatusHeader and the error in
// the body; a server's failure stays a 5xx, and a request without the
// header keeps its status.
func TestQuietRefusals(t *testing.T) {
	h := Requests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/refused":
			WriteError(w, fmt.Errorf("%w: no such thing", errTestGone))
		case "/bad":
			WriteError(w, fmt.Errorf("%w: house 9", ErrBadRequest))
		case "/failed":
			WriteError(w, errors.New("disk on fire"))
		default:
			WriteJSON(w, http.StatusCreated, map[string]int{"id": 1})
		}
	}), slog.New(slog.DiscardHandler), testErrors)
	for _, tc := range []struct {
		path        string
		quiet       bool
		code        int
		status      string
		errContains string
	}{
		{"/refused", true, 200, "410", "no such thing"},
		{"/bad", true, 200, "400", "house 9"},
		{"/refused", false, 410, "", "no such thing"},
		{"/failed", true, 500, "", "logged"},
		{"/ok", true, 201, "", ""},
	} {
		req := httptest.NewRequest("GET", tc.path, nil)
		if tc.quiet {
			req.Header.Set(QuietHeader, "200")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var body struct{ Error string }
		json.Unmarshal(rec.Body.Bytes(), &body)
		if rec.Code != tc.code || rec.Header().Get(StatusHeader) != tc.status || !strings.Contains(body.Error, tc.errContains) {
			t.Errorf("%s quiet=%v: %d %s=%q %q, want %d %q %q", tc.path, tc.quiet, rec.Code, StatusHeader, rec.Header().Get(StatusHeader), body.Error, tc.code, tc.status, tc.errContains)
		}
	}
}

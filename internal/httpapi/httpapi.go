// Package httpapi is the one HTTP layer of kalah's API, the match
// server's routes and the page's alike: one mapping of an error to its
// status (Errors, built explicitly where the server is assembled and
// handed to Requests), one way to answer an error (WriteError: a failure of the server's
// own is a 500 or 503, logged with the request's id, never a 4xx that
// blames the client, and never with its internals in the answer), one JSON
// reader (ReadJSON) and writer (WriteJSON), and request ids (Requests).
//
// It imports only the rules (package kalah) and the standard library, so
// the page (package web) answers as the server does without depending on
// the server.
package httpapi

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	"kalah"
)

// ErrBadRequest is a request the API cannot take as sent.
var ErrBadRequest = errors.New("bad request")

// ErrNotJSON is a request body sent as anything but JSON.
var ErrNotJSON = fmt.Errorf("%w: send the body as application/json", ErrBadRequest)

// mapping is an error and the status that answers it.
type mapping struct {
	err  error
	code int
}

// Errors maps errors to the statuses that answer them. The server builds
// its own where it is assembled (server.Errors), explicitly, and hands it
// to Requests, so what a request answers never depends on which packages
// happen to be linked in or the order of their init functions. NewErrors
// starts it with this layer's own: a body that is not JSON, a request
// the API cannot take, the rules' errors.
type Errors struct {
	table    []mapping
	internal []error      // errors whose words are the server's own (Internal)
	retry    []retryAfter // in the order given: the first an error matches wins
}

// retryAfter is how long to wait before trying an error again.
type retryAfter struct {
	err   error
	after time.Duration
}

// NewErrors returns the mappings of this layer's own errors.
func NewErrors() *Errors {
	e := &Errors{}
	e.Map(http.StatusUnsupportedMediaType, ErrNotJSON)
	e.Map(http.StatusBadRequest, ErrBadRequest, kalah.ErrIllegalMove, kalah.ErrSyntax, kalah.ErrInvalidRules, kalah.ErrBadPosition)
	e.Map(http.StatusConflict, kalah.ErrGameOver, kalah.ErrNoUndo)
	return e
}

// Clone returns a copy of e to add to.
func (e *Errors) Clone() *Errors {
	return &Errors{table: slices.Clone(e.table), internal: slices.Clone(e.internal), retry: slices.Clone(e.retry)}
}

// base answers where no Errors was given (a writer outside Requests).
var base = NewErrors()

// Map makes StatusOf answer code for each of errs and every error that
// wraps one; the first mapping an error matches wins. It returns e.
func (e *Errors) Map(code int, errs ...error) *Errors {
	for _, err := range errs {
		e.table = append(e.table, mapping{err, code})
	}
	return e
}

// Internal marks errors whose words are the server's own business: a 5xx
// that matches one is answered with "try again later", not with its text.
func (e *Errors) Internal(errs ...error) *Errors {
	e.internal = append(e.internal, errs...)
	return e
}

// RetryAfter has a 503 or 429 that matches err say when to try again.
func (e *Errors) RetryAfter(after time.Duration, errs ...error) *Errors {
	for _, err := range errs {
		e.retry = append(e.retry, retryAfter{err, after})
	}
	return e
}

// StatusOf returns the HTTP status that answers err: the one Map gave its
// error; 503 for a request out of time or given up; 500 for anything
// else, a failure of the server's own.
func (e *Errors) StatusOf(err error) int {
	if err == nil {
		return http.StatusOK
	}
	for _, m := range e.table {
		if errors.Is(err, m.err) {
			return m.code
		}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// retryAfter returns when to try err again (0: nothing said).
func (e *Errors) retryAfter(err error) time.Duration {
	for _, r := range e.retry {
		if errors.Is(err, r.err) {
			return r.after
		}
	}
	return 0
}

// StatusOf is NewErrors().StatusOf: the status of this layer's own errors.
func StatusOf(err error) int { return base.StatusOf(err) }

// errorBody is every error the API answers.
type errorBody struct {
	Error string `json:"error"`
	// RequestID names the request in the server's log, for a failure of
	// the server's own.
	RequestID string `json:"request_id,omitempty"`
}

// WriteError answers err with its status (StatusOf). A 5xx is the
// server's failure: it is logged with the request's id by the middleware
// (Requests), and a 500's answer says only that, with the id, never the
// failure's own words (an SQL error, a path).
func WriteError(w http.ResponseWriter, err error) {
	errs := base
	aw := writerOf(w)
	if aw != nil && aw.errs != nil {
		errs = aw.errs
	}
	code := errs.StatusOf(err)
	body := errorBody{Error: err.Error()}
	if after := errs.retryAfter(err); after > 0 && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", strconv.Itoa(int(after.Round(time.Second)/time.Second)))
	}
	if code >= 500 {
		if aw != nil {
			aw.err, aw.code, body.RequestID = err, code, aw.id
		}
		switch {
		case code == http.StatusInternalServerError:
			body.Error = "the server failed to do that; it is logged"
		case errs.isInternal(err):
			body.Error = "the server cannot do that now; try again later"
		}
		if code == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", "5")
		}
	}
	WriteJSON(w, code, body)
}

// writerOf finds the request's writer under Requests through the writers
// wrapped around it (a stream's deadlines, a check's), or nil.
func writerOf(w http.ResponseWriter) *apiWriter {
	for w != nil {
		if aw, ok := w.(*apiWriter); ok {
			return aw
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

func (e *Errors) isInternal(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	for _, in := range e.internal {
		if errors.Is(err, in) {
			return true
		}
	}
	return false
}

// WriteHTML answers a page of the site's own (no stranger's words in it)
// with status code: the page's answer to a path that is none.
func WriteHTML(w http.ResponseWriter, code int, page string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	io.WriteString(w, page)
}

// WriteJSON answers v as JSON with status code; nothing is cached.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// ReadJSON reads a JSON body of at most 64 KiB into v, refusing unknown
// fields and trailing data; an empty body leaves v as it is. The body must
// be sent as application/json, which a form on another site cannot do
// without the browser asking this server first (CORS), so no other site
// can make a visitor's browser act here.
func ReadJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		return ErrNotJSON
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); errors.Is(err, io.EOF) {
		return nil // no body: nothing asked beyond the route
	} else if err != nil {
		return fmt.Errorf("%w: request body: %v", ErrBadRequest, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: request body: data after the JSON value", ErrBadRequest)
	}
	return nil
}

// apiWriter is the ResponseWriter of a request under Requests: it knows
// the request's id and keeps the error a 5xx answered, for the log.
type apiWriter struct {
	http.ResponseWriter
	id   string
	errs *Errors // the statuses of the errors it answers (nil: base)
	err  error
	code int
	// quiet: the request asked for its refusals as 200 OK (QuietHeader).
	quiet bool
}

// QuietHeader, sent with a request, asks for a refusal of the client's
// (any 4xx) to be answered 200 OK with its real status in the answer's
// StatusHeader; the body is the same error. A browser logs every fetch
// answered outside 2xx as a failed resource in its console, an error
// however expected the refusal (a sixth unfinished game, a player that
// does not exist): the page asks so and reads the status from the header.
const (
	QuietHeader  = "X-Kalah-Refusal"
	StatusHeader = "X-Kalah-Status"
)

// WriteHeader answers a refusal as 200 OK with its status in StatusHeader
// for a request that asked so (QuietHeader).
func (w *apiWriter) WriteHeader(code int) {
	if w.quiet && code >= 400 && code < 500 {
		w.Header().Set(StatusHeader, strconv.Itoa(code))
		code = http.StatusOK
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *apiWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes a flush on (event streams).
func (w *apiWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

// Hijack passes a hijack on (WebSockets).
func (w *apiWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// RequestID returns the id Requests gave the request whose writer is w
// ("" outside Requests).
func RequestID(w http.ResponseWriter) string {
	if aw := writerOf(w); aw != nil {
		return aw.id
	}
	return ""
}

// Requests gives every request an id (the X-Request-Id header of its
// answer), answers its errors by errs (nil: this layer's own only), and
// logs, with the id, the failure a 5xx answered. Under another Requests
// (the page handing a request on to the server's routes) it keeps the
// outer id and answers by errs while h serves.
func Requests(h http.Handler, log *slog.Logger, errs *Errors) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if aw := writerOf(w); aw != nil {
			if errs != nil {
				outer := aw.errs
				aw.errs = errs
				defer func() { aw.errs = outer }()
			}
			h.ServeHTTP(w, r)
			return
		}
		b := make([]byte, 8)
		rand.Read(b)
		aw := &apiWriter{ResponseWriter: w, id: hex.EncodeToString(b), errs: errs, quiet: r.Header.Get(QuietHeader) == "200"}
		w.Header().Set("X-Request-Id", aw.id)
		h.ServeHTTP(aw, r)
		switch {
		case aw.err == nil:
		case aw.code == http.StatusInternalServerError:
			log.Error("request failed", "id", aw.id, "method", r.Method, "path", r.URL.Path, "err", aw.err)
		default: // the server is busy or its store is away: told, and tried again
			log.Warn("request refused", "id", aw.id, "method", r.Method, "path", r.URL.Path, "status", aw.code, "err", aw.err)
		}
	})
}

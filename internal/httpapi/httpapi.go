// Package httpapi is the one HTTP layer of kalah's API, the match
// server's routes and the page's alike: one mapping of an error to its
// status (StatusOf, extended by the packages that own the errors through
// Map), one way to answer an error (WriteError: a failure of the server's
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
	"strconv"

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

// table holds the mappings in the order given; it is written only by
// packages' init functions (Map), so reading it needs no lock.
var (
	table    []mapping
	internal []error // errors whose words are the server's own (Internal)
)

func init() {
	Map(http.StatusUnsupportedMediaType, ErrNotJSON)
	Map(http.StatusBadRequest, ErrBadRequest, kalah.ErrIllegalMove, kalah.ErrSyntax, kalah.ErrInvalidRules, kalah.ErrBadPosition)
	Map(http.StatusConflict, kalah.ErrGameOver, kalah.ErrNoUndo)
}

// Map makes StatusOf answer code for each of errs and every error that
// wraps one. A package that owns errors a request can run into calls it
// from its init function; the first mapping an error matches wins.
func Map(code int, errs ...error) {
	for _, err := range errs {
		table = append(table, mapping{err, code})
	}
}

// Internal marks errors (from init functions, as Map) whose words are the
// server's own business: a 5xx that matches one is answered with "try
// again later", not with its text.
func Internal(errs ...error) { internal = append(internal, errs...) }

// StatusOf returns the HTTP status that answers err: the one Map gave its
// error; 503 for a request out of time or given up; 500 for anything
// else, a failure of the server's own.
func StatusOf(err error) int {
	if err == nil {
		return http.StatusOK
	}
	for _, m := range table {
		if errors.Is(err, m.err) {
			return m.code
		}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

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
	code := StatusOf(err)
	body := errorBody{Error: err.Error()}
	if code >= 500 {
		if aw, ok := w.(*apiWriter); ok {
			aw.err, aw.code, body.RequestID = err, code, aw.id
		}
		switch {
		case code == http.StatusInternalServerError:
			body.Error = "the server failed to do that; it is logged"
		case isInternal(err):
			body.Error = "the server cannot do that now; try again later"
		}
		if code == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", "5")
		}
	}
	WriteJSON(w, code, body)
}

func isInternal(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	for _, e := range internal {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
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
	if aw, ok := w.(*apiWriter); ok {
		return aw.id
	}
	return ""
}

// Requests gives every request an id (the X-Request-Id header of its
// answer) and logs, with it, the failure a 5xx answered.
func Requests(h http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(*apiWriter); ok {
			h.ServeHTTP(w, r) // already under Requests (the page hands on)
			return
		}
		b := make([]byte, 8)
		rand.Read(b)
		aw := &apiWriter{ResponseWriter: w, id: hex.EncodeToString(b), quiet: r.Header.Get(QuietHeader) == "200"}
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

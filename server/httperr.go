package server

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

	"kalah"
	"kalah/internal/identity"
	"kalah/internal/store"
	"kalah/player"
	"kalah/tournament"
)

// The one HTTP layer of the API, the server's routes and the page's
// alike: one set of errors (the sentinels of this package, and those of
// the packages below it that a request can run into), one mapping of an
// error to its status (StatusOf), one way to answer it (WriteError: a
// failure of the server's own is a 500 or 503, logged with the request's
// id, never a 4xx that blames the client, and never with its internals in
// the answer), one JSON reader (ReadJSON) and writer (WriteJSON).

// StatusOf returns the HTTP status that answers err: 4xx for what the
// client asked (malformed, not allowed, not there, not now), 503 for what
// the server cannot do just now (busy, stopping, its store failing), and
// 500 for anything else, a failure of the server's own.
func StatusOf(err error) int {
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, errNotJSON):
		return http.StatusUnsupportedMediaType
	case errors.Is(err, ErrBadRequest), errors.Is(err, kalah.ErrIllegalMove), errors.Is(err, kalah.ErrSyntax),
		errors.Is(err, kalah.ErrInvalidRules), errors.Is(err, kalah.ErrBadPosition), errors.Is(err, player.ErrUnknownPlayer),
		errors.Is(err, store.ErrBadAccount), errors.Is(err, identity.ErrBadName), errors.Is(err, identity.ErrBadID):
		return http.StatusBadRequest
	case errors.Is(err, ErrSignIn), errors.Is(err, store.ErrBadPassword), errors.Is(err, store.ErrNoSession):
		return http.StatusUnauthorized
	case errors.Is(err, ErrForbidden), errors.Is(err, identity.ErrReserved):
		return http.StatusForbidden
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrNoTournament), errors.Is(err, tournament.ErrNotFound), errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrNotYourTurn), errors.Is(err, ErrNoSeat), errors.Is(err, ErrNotCasual), errors.Is(err, ErrTooLate),
		errors.Is(err, kalah.ErrGameOver), errors.Is(err, kalah.ErrNoUndo), errors.Is(err, store.ErrNameTaken), errors.Is(err, ErrTournamentOver):
		return http.StatusConflict
	case errors.Is(err, ErrTooMany):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrBusy), errors.Is(err, ErrClosed), errors.Is(err, ErrNoHints), errors.Is(err, store.ErrHashBusy),
		errors.Is(err, store.ErrClosed), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
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
		var id string
		if aw, ok := w.(*apiWriter); ok {
			aw.err, aw.code, id = err, code, aw.id
		}
		body.RequestID = id
		switch {
		case code == http.StatusInternalServerError:
			body.Error = "the server failed to do that; it is logged"
		case errors.Is(err, store.ErrClosed), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			body.Error = "the server cannot do that now; try again later"
		}
		if code == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", "5")
		}
	}
	WriteJSON(w, code, body)
}

// WriteJSON answers v as JSON with status code; nothing is cached.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// errNotJSON is a request body sent as anything but JSON.
var errNotJSON = fmt.Errorf("%w: send the body as application/json", ErrBadRequest)

// ReadJSON reads a JSON body of at most 64 KiB into v, refusing unknown
// fields and trailing data; an empty body leaves v as it is. The body must be sent as application/json,
// which a form on another site cannot do without the browser asking this
// server first (CORS), so no other site can make a visitor's browser act
// here.
func ReadJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		return errNotJSON
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
		aw := &apiWriter{ResponseWriter: w, id: hex.EncodeToString(b)}
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

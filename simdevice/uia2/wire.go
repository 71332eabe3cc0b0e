package uia2

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// W3C WebDriver error codes the server answers with; see
// https://www.w3.org/TR/webdriver/#errors for the status code of each.
const (
	errInvalidArgument   = "invalid argument"
	errInvalidSelector   = "invalid selector"
	errInvalidSessionID  = "invalid session id"
	errNoSuchAlert       = "no such alert"
	errNoSuchElement     = "no such element"
	errStaleElement      = "stale element reference"
	errUnknownCommand    = "unknown command"
	errUnknownMethod     = "unknown method"
	errUnknownError      = "unknown error"
	errUnsupported       = "unsupported operation"
	errInvalidElemState  = "invalid element state"
	errSessionNotCreated = "session not created"
)

var errStatus = map[string]int{
	errInvalidArgument:   http.StatusBadRequest,
	errInvalidSelector:   http.StatusBadRequest,
	errInvalidSessionID:  http.StatusNotFound,
	errNoSuchAlert:       http.StatusNotFound,
	errNoSuchElement:     http.StatusNotFound,
	errStaleElement:      http.StatusNotFound,
	errUnknownCommand:    http.StatusNotFound,
	errUnknownMethod:     http.StatusMethodNotAllowed,
	errUnknownError:      http.StatusInternalServerError,
	errUnsupported:       http.StatusInternalServerError,
	errInvalidElemState:  http.StatusBadRequest,
	errSessionNotCreated: http.StatusInternalServerError,
}

// wdError is a WebDriver error a handler returns; the router renders it.
type wdError struct {
	code string
	msg  string
}

func (e *wdError) Error() string { return e.code + ": " + e.msg }

func newErr(code, format string, args ...any) *wdError {
	return &wdError{code: code, msg: fmt.Sprintf(format, args...)}
}

// reply is the envelope every answer uses, as the Appium server's
// AppiumResponse renders it: a null sessionId outside a session.
type reply struct {
	SessionID *string `json:"sessionId"`
	Value     any     `json:"value"`
}

type errValue struct {
	Error      string `json:"error"`
	Message    string `json:"message"`
	Stacktrace string `json:"stacktrace"`
}

func writeJSON(w http.ResponseWriter, status int, sid string, value any) {
	r := reply{Value: value}
	if sid != "" {
		r.SessionID = &sid
	}
	body, err := json.Marshal(r)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = json.Marshal(reply{Value: errValue{Error: errUnknownError, Message: err.Error()}})
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeErr(w http.ResponseWriter, sid string, err error) {
	var we *wdError
	if !errors.As(err, &we) {
		we = &wdError{code: errUnknownError, msg: err.Error()}
	}
	status, ok := errStatus[we.code]
	if !ok {
		status = http.StatusInternalServerError
	}
	writeJSON(w, status, sid, errValue{Error: we.code, Message: we.msg, Stacktrace: ""})
}

// maxBody bounds request bodies; the largest legitimate ones are W3C action
// chains of a few kilobytes.
const maxBody = 1 << 20

// decodeBody reads the JSON request body into v; an empty body leaves v as is.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return newErr(errInvalidArgument, "cannot read the request body: %v", err)
	}
	if len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return newErr(errInvalidArgument, "the request body %q is not valid JSON for this command: %v", truncate(string(data), 200), err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// newID returns a random UUID-shaped identifier, the form the Appium server
// uses for sessions and elements.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

package clients

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"
)

// attemptResult is what one attempt of a request came to.
type attemptResult struct {
	// resp and err are the answer, or the transport's error; resp is nil
	// when the answer was malformed (bad) or none came (noAnswer).
	resp *http.Response
	err  error
	// noAnswer: no response headers came within the attempt's bound,
	// waited.
	noAnswer bool
	waited   time.Duration
	// bad is the malformed answer the attempt got.
	bad *MalformedAnswerError
	// retry says the failure is transient, why in a few words.
	retry bool
	why   string
}

// attempt sends one clone of req, with body, waiting at most bound for its
// answer's headers, and says what came of it: an answer, a transient
// failure worth another attempt, or (its error) a failure no retry cures.
func (t *RetryTransport) attempt(req *http.Request, body []byte, bound time.Duration, now func() time.Time) (attemptResult, error) {
	try := req.Clone(req.Context())
	if body != nil {
		try.Body = io.NopCloser(bytes.NewReader(body))
		try.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, noAnswer, waited, err := answerWithin(t.Base, try, bound, now)
	if noAnswer {
		return attemptResult{noAnswer: true, waited: waited, retry: true, why: fmt.Sprintf("no answer in %s", waited)}, nil
	}
	if ee := endpointError(req, err); ee != nil {
		return attemptResult{}, ee
	}
	r := attemptResult{resp: resp, err: err}
	r.retry, r.why = shouldRetry(req.Method, resp, err)
	if err != nil {
		// The transport's error is the attempt's result (r.err), for the
		// retry decision: not a failure of the attempt itself.
		return r, nil //nolint:nilerr // r carries err
	}
	if t.Check == nil {
		return r, nil
	}
	checked, bad := t.Check(req, resp)
	if bad == nil {
		r.resp = checked
		return r, nil
	}
	// A malformed answer to a safe request is retried as a 5xx is; one to
	// a change is retried only if its status says so (a 503, a 429).
	r.resp, r.bad = nil, bad
	r.retry = r.retry || safe(req.Method)
	r.why = bad.summary()
	if resp.Header.Get("Retry-After") != "" {
		// Keep the headers, for decide to honour a Retry-After.
		r.resp = &http.Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: http.NoBody}
	}
	return r, nil
}

// safe methods only read: a malformed answer to one may be asked for
// again.
func safe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead
}

package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// AnswerCheck looks at an answer that came to req before its caller reads
// it. It returns the response to hand on (its body may be a copy of what
// it read: the body is read from the network once) or, for an answer the
// caller could not decode, a MalformedAnswerError, having closed the body.
type AnswerCheck func(req *http.Request, resp *http.Response) (*http.Response, *MalformedAnswerError)

// MaxCheckedBody is the largest Google API answer checked whole (read,
// then parsed as JSON, before its caller reads it). Every answer the
// provider reads is far smaller (an operation, a policy, a page of a
// list); a larger one is handed on as it comes, checked only for its
// start.
const MaxCheckedBody = 4 << 20

// googleAPI names the Google API a request is for, by its path (the
// Compute and GKE endpoints may share a host), and the provider setting
// that points at it.
func googleAPI(path string) (api, setting string) {
	switch {
	case strings.Contains(path, "/compute/"):
		return "Compute", "compute_endpoint"
	case strings.Contains(path, "/locations/") || strings.Contains(path, "/zones/"):
		return "GKE", "container_endpoint"
	}
	return "Google", "compute_endpoint and container_endpoint"
}

// googleKinds are the singular names of the collections the provider
// reads.
var googleKinds = map[string]string{
	"resourcePolicies": "resource policy", "reservations": "reservation", "reservationBlocks": "reservation block",
	"reservationSubBlocks": "reservation sub-block", "reservationSlots": "reservation slot", "instances": "instance", "operations": "operation",
	"clusters": "cluster", "nodePools": "node pool", "nodepools": "node pool",
}

// expectedGoogleAnswer says what the answer to method on path should be:
// every change answers an operation; a read, the object it names or a
// page of the collection.
func expectedGoogleAnswer(api, method, path string) string {
	if shape := googleAnswerShape(api, method, path); shape != nil {
		return shape.what + " (a JSON object)"
	}
	if method != http.MethodGet && method != http.MethodHead {
		return "a " + api + " operation (a JSON object)"
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i := len(segs) - 1; i >= 0; i-- {
		seg, _, _ := strings.Cut(segs[i], ":")
		if kind, ok := googleKinds[seg]; ok {
			if i == len(segs)-1 {
				return "a list of " + api + " " + kind + "s (a JSON object)"
			}
			return "a " + api + " " + kind + " (a JSON object)"
		}
	}
	return "a JSON object of the " + api + " API"
}

// isJSONType says whether a Content-Type is JSON's ("application/json",
// or any "+json"); an absent one is taken as JSON, for the body to tell.
func isJSONType(ct string) bool {
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json")
}

// CheckGoogleAnswer is the AnswerCheck of the Google JSON APIs (Compute,
// GKE): every answer with a body, a success or an error, is a JSON object.
// An answer is malformed when a 2xx has no body, when the body is not a
// whole JSON object (cut short, an array, a page of HTML), and when a
// 2xx's object is not of the shape of the message its request names
// (googleAnswerShape: none of its keys is a field, or it does not decode
// as its client decodes it). It decides by
// the body, which the caller decodes whatever the content type says; the
// error names the content type, which tells a proxy's page. A 204, a 304, a redirect (which the client
// follows) and the answer to a HEAD have no body to check.
func CheckGoogleAnswer(req *http.Request, resp *http.Response) (*http.Response, *MalformedAnswerError) {
	switch {
	case req.Method == http.MethodHead, resp.StatusCode == http.StatusNoContent, resp.StatusCode == http.StatusNotModified,
		resp.StatusCode < 200, resp.StatusCode >= 300 && resp.StatusCode < 400:
		return resp, nil
	}
	api, setting := googleAPI(req.URL.Path)
	bad := func(problem string, head []byte) *MalformedAnswerError {
		_ = resp.Body.Close()
		resp.Body = http.NoBody
		return &MalformedAnswerError{API: api, Method: req.Method, Host: req.URL.Host, Status: resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"), Problem: problem, Excerpt: excerpt(head, MaxExcerpt),
			Expected: expectedGoogleAnswer(api, req.Method, req.URL.Path),
			Check: fmt.Sprintf("check %s (the provider's endpoint for the %s API: it must be the API's base URL), "+
				"and any proxy between here and it (HTTPS_PROXY, a corporate proxy or gateway), which may have answered instead", setting, api)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxCheckedBody+1))
	ct := resp.Header.Get("Content-Type")
	switch {
	case err != nil:
		return nil, bad(fmt.Sprintf("the body was cut after %d bytes (%v)", len(body), err), body)
	case len(bytes.TrimSpace(body)) == 0:
		return nil, bad("the body is empty", body)
	case len(body) > MaxCheckedBody:
		// Too large to hold: hand it on as it comes, its start checked.
		if first := bytes.TrimLeft(body, " \t\r\n"); first[0] != '{' {
			return nil, bad("the body is not a JSON object", body)
		}
		resp.Body = readCloser{Reader: io.MultiReader(bytes.NewReader(body), resp.Body), Closer: resp.Body}
		return resp, nil
	}
	if problem := jsonObjectProblem(body); problem != "" {
		if !isJSONType(ct) {
			problem = "the content type is not JSON, and " + problem
		}
		return nil, bad(problem, body)
	}
	if shape := googleAnswerShape(api, req.Method, req.URL.Path); shape != nil && resp.StatusCode < 300 {
		if problem := shape.problem(body); problem != "" {
			return nil, bad(problem, body)
		}
	}
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// jsonObjectProblem says what keeps body from being one JSON object, or
// "" when it is one.
func jsonObjectProblem(body []byte) string {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return "the body is empty"
	}
	var syntax *json.SyntaxError
	var obj map[string]json.RawMessage
	err := json.Unmarshal(trimmed, &obj)
	switch {
	case err == nil && trimmed[0] == '{':
		return ""
	case trimmed[0] != '{':
		if json.Valid(trimmed) {
			return fmt.Sprintf("the body is JSON but not an object (it begins %q)", trimmed[:1])
		}
		return "the body is not JSON"
	case errors.As(err, &syntax) && syntax.Offset >= int64(len(trimmed)):
		return fmt.Sprintf("the JSON is cut short: the body ends after %d bytes, inside an object", len(body))
	case strings.Contains(err.Error(), "unexpected end of JSON input"):
		return fmt.Sprintf("the JSON is cut short: the body ends after %d bytes, inside an object", len(body))
	}
	return "the body is not valid JSON (" + err.Error() + ")"
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

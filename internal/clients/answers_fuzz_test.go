package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/encoding/protojson"
)

var answerSeeds = []string{
	`{"name":"op-1","status":"DONE"}`, `{"name":"op-1","status":"DO`, ``, ` `, `[1,2,3]`, `null`, `"x"`, `{}`, `{}{}`, `{"a":"}"}`,
	`{"a":"\"}`, "<html><body>502</body></html>", `{"a":[{"b":{}}]}`, "\x00\xff", `{"a":1} x`, `]`, `}`,
	`{"name":"wp","region":"r","workloadPolicy":{"type":"HIGH_THROUGHPUT"}}`, `{"name":7}`, `{"data":{"name":"wp"},"gateway":"gw"}`,
	`{"kind":"compute#resourcePolicy","self_link":"x"}`, `{"name":"wp","name":"wq"}`, `{"\u006eame":"wp"}`,
}

// Any bytes as the body of a Google API's 200 to a read of a resource
// policy: the check never panics; what it accepts is one JSON object of a
// resource policy's shape (no key, or a key protojson knows, and a
// decoding as the Compute client's), handed on byte for byte; what it
// refuses is named, with a printable excerpt of at most MaxExcerpt bytes.
func FuzzCheckGoogleAnswer(f *testing.F) {
	for _, seed := range answerSeeds {
		f.Add([]byte(seed), "application/json")
	}
	f.Add([]byte("<html></html>"), "text/html")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		req := httptest.NewRequest(http.MethodGet, "https://compute.googleapis.com/compute/v1/projects/p/regions/r/resourcePolicies/wp", nil)
		resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {contentType}}, Body: io.NopCloser(bytes.NewReader(body))}
		checked, bad := CheckGoogleAnswer(req, resp)
		trimmed := bytes.TrimSpace(body)
		var obj map[string]json.RawMessage
		isObject := json.Unmarshal(trimmed, &obj) == nil && len(trimmed) > 0 && trimmed[0] == '{'
		isPolicy := isObject && ofPolicyShape(body, obj)
		if bad != nil {
			if isPolicy {
				t.Fatalf("a resource policy %q refused: %v", body, bad)
			}
			if len(bad.Excerpt) > MaxExcerpt || !utf8.ValidString(bad.Excerpt) || strings.ContainsFunc(bad.Excerpt, func(r rune) bool { return r < 0x20 }) {
				t.Fatalf("excerpt %q of %q is not short and printable", bad.Excerpt, body)
			}
			if !strings.Contains(bad.Error(), "Compute API") || !strings.Contains(bad.Error(), "compute_endpoint") {
				t.Fatalf("error %q does not name the API and what to check", bad)
			}
			return
		}
		if !isPolicy {
			t.Fatalf("%q accepted as a resource policy", body)
		}
		got, err := io.ReadAll(checked.Body)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("the body handed on is %q (%v), want %q", got, err, body)
		}
	})
}

// ofPolicyShape says whether a JSON object is what the Compute client
// reads as a resource policy: it has no key, or one that protojson knows
// (a null for it decodes, with no field discarded), and it decodes.
func ofPolicyShape(body []byte, obj map[string]json.RawMessage) bool {
	known := len(obj) == 0
	for k := range obj {
		one, err := json.Marshal(map[string]any{k: nil})
		if err == nil && protojson.Unmarshal(one, &computepb.ResourcePolicy{}) == nil {
			known = true
		}
	}
	return known && protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(body, &computepb.ResourcePolicy{}) == nil
}

// Any bytes, in any two pieces, as a Kubernetes JSON answer or watch: the
// framing never panics, decides the same however the bytes come, accepts
// every stream of whole JSON objects, and refuses one that ends inside an
// object.
func FuzzJSONFrames(f *testing.F) {
	for _, seed := range answerSeeds {
		f.Add([]byte(seed), uint16(3))
	}
	f.Fuzz(func(t *testing.T, body []byte, cut uint16) {
		whole := frame(body, len(body))
		split := frame(body, int(cut)%(len(body)+1))
		if (whole == nil) != (split == nil) {
			t.Fatalf("%q: whole %v, in pieces at %d %v", body, whole, cut, split)
		}
		if objectStream(body) && whole != nil {
			t.Fatalf("a stream of JSON objects %q refused: %v", body, whole)
		}
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) > 0 && trimmed[0] == '{' && !json.Valid(trimmed) && json.Valid(append(append([]byte{}, trimmed...), '}')) && whole == nil {
			t.Fatalf("%q, which ends inside an object, accepted", body)
		}
	})
}

// frame reads body through a framedBody, in two reads split at cut, and
// returns the read's error (nil when the stream is whole).
func frame(body []byte, cut int) error {
	fb := &framedBody{ReadCloser: io.NopCloser(io.MultiReader(bytes.NewReader(body[:cut]), bytes.NewReader(body[cut:]))),
		malformed: func(problem string, _ []byte, _ int64) error { return errors.New(problem) }}
	_, err := io.ReadAll(fb)
	return err
}

// objectStream says whether body is one or more JSON objects and nothing
// else but white space.
func objectStream(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	n := 0
	for {
		var obj map[string]json.RawMessage
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return n > 0
		}
		if err != nil || obj == nil {
			return false
		}
		n++
	}
}

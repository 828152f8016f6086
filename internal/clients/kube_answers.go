package clients

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"
)

// kubeProtobufMagic begins every protobuf-encoded Kubernetes object.
var kubeProtobufMagic = []byte("k8s\x00")

const kubeMalformedAdvice = "check kubernetes.host (or the kubeconfig's server, or the cluster's endpoint in GKE): it must be the cluster's " +
	"API server, and any proxy between here and it (HTTPS_PROXY, a corporate proxy or gateway), which may have answered instead"

// kubeAnswers names a successful answer of the cluster's API server that is
// not a Kubernetes object: a JSON answer (an object, a list, a watch's
// events) is read through a jsonFrames, so that a page of HTML, an empty
// body, a bare array, a cut object, a watch that sends garbage, and JSON
// of another shape (an object without kind or apiVersion, a list where
// one object was asked for, an event without type; kubeShapeCheck) fail
// the read with a MalformedAnswerError naming the host, instead of
// client-go's decoding error or an empty object; a protobuf answer must begin as Kubernetes'
// protobuf does. The body is read once, as the client reads it. Errors
// (4xx, 5xx) are client-go's to read: it makes a Kubernetes status of
// them, whatever their body, which the engine relies on (a 404 is a 404).
// client-go retries no such answer; an informer lists again.
type kubeAnswers struct{ base http.RoundTripper }

func withKubeAnswerCheck(base http.RoundTripper) http.RoundTripper { return &kubeAnswers{base: base} }

func (k *kubeAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := k.base.RoundTrip(req)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode >= 300 || resp.StatusCode == http.StatusNoContent ||
		req.Method == http.MethodHead || resp.Body == nil {
		return resp, err
	}
	watch := isWatch(req)
	ct := resp.Header.Get("Content-Type")
	expected := "a Kubernetes object (JSON or protobuf)"
	if watch {
		expected = "a stream of Kubernetes watch events"
	}
	malformed := func(problem string, head []byte, from int64) error {
		return &MalformedAnswerError{API: "Kubernetes", Method: req.Method, Host: req.URL.Host, Status: resp.StatusCode,
			ContentType: ct, Problem: problem, Excerpt: excerpt(head, MaxExcerpt), ExcerptFrom: from, Expected: expected,
			Check: kubeMalformedAdvice}
	}
	mt, _, _ := mime.ParseMediaType(ct)
	if strings.HasSuffix(mt, "protobuf") {
		if watch {
			// Length-prefixed frames: client-go's decoder checks them.
			return resp, nil
		}
		head := make([]byte, len(kubeProtobufMagic))
		n, rerr := io.ReadFull(resp.Body, head)
		if rerr != nil || !bytes.Equal(head, kubeProtobufMagic) {
			_ = resp.Body.Close()
			problem := "the body does not begin as a protobuf Kubernetes object"
			if n == 0 {
				problem = "the body is empty"
			}
			return nil, malformed(problem, head[:n], 0)
		}
		resp.Body = readCloser{Reader: io.MultiReader(bytes.NewReader(head), resp.Body), Closer: resp.Body}
		return resp, nil
	}
	resp.Body = &framedBody{ReadCloser: resp.Body, frames: jsonFrames{check: kubeShapeCheck(req)}, allowEmpty: watch, malformed: func(problem string, head []byte, from int64) error {
		if !isJSONType(ct) {
			problem = "the content type is not JSON, and " + problem
		}
		return malformed(problem, head, from)
	}}
	return resp, nil
}

// isWatch says whether req asks for a watch.
func isWatch(req *http.Request) bool {
	w := req.URL.Query().Get("watch")
	return w == "true" || w == "1" || strings.Contains(req.URL.Path, "/watch/")
}

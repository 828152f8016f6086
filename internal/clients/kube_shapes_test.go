package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// Which paths of the API server answer a Kubernetes object, a list, or
// neither (discovery, subresources, other paths).
func TestKubeResourcePath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path              string
		collection, named bool
	}{
		{"/api/v1/nodes", true, false},
		{"/api/v1/nodes/n1", false, true},
		{"/api/v1/namespaces", true, false},
		{"/api/v1/namespaces/kueue-system", false, true},
		{"/api/v1/namespaces/ns/pods", true, false},
		{"/api/v1/namespaces/ns/pods/p", false, true},
		{"/apis/accelerator.gke.io/v1beta1/slices", true, false},
		{"/apis/accelerator.gke.io/v1beta1/slices/s1", false, true},
		{"/apis/kueue.x-k8s.io/v1beta2/namespaces/team/localqueues", true, false},
		{"/apis/kueue.x-k8s.io/v1beta2/namespaces/team/localqueues/q", false, true},
		{"/api/v1/namespaces/ns/status", false, false},
		{"/api/v1/namespaces/ns/pods/p/log", false, false},
		{"/apis/kueue.x-k8s.io/v1beta2/clusterqueues/q/status", false, false},
		{"/apis/kueue.x-k8s.io/v1beta2", false, false},
		{"/apis/kueue.x-k8s.io", false, false},
		{"/apis", false, false},
		{"/api/v1", false, false},
		{"/api", false, false},
		{"/version", false, false},
		{"/openapi/v3/apis/kueue.x-k8s.io/v1beta2", false, false},
	} {
		collection, named, ok := kubeResourcePath(tc.path)
		if collection != tc.collection || named != tc.named || ok != (tc.collection || tc.named) {
			t.Errorf("%s: collection %t, named %t, ok %t; want %t, %t", tc.path, collection, named, ok, tc.collection, tc.named)
		}
	}
}

// A 200 of valid JSON that is not the Kubernetes object asked for fails
// the read, named: what it is, and what to check. The typed client would
// make an empty object of an answer without kind; the dynamic one would
// fail unnamed.
func TestKubernetesAnswerOfAnotherShapeIsNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, problem string
		read                func(k *Kubernetes) error
	}{
		{"a gateway's JSON to a list", `{"status":"ok","upstream":"down"}`,
			`the JSON object is not a Kubernetes object: it has no kind and no apiVersion (its keys: "status", "upstream")`,
			func(k *Kubernetes) error {
				_, err := k.Dynamic.Resource(slicesGVR).List(t.Context(), metav1.ListOptions{})
				return err
			}},
		{"an object without kind to a typed read", `{"metadata":{"name":"n1"},"spec":{}}`,
			`it has no kind and no apiVersion (its keys: "metadata", "spec")`,
			func(k *Kubernetes) error {
				_, err := k.Core.CoreV1().Nodes().Get(t.Context(), "n1", metav1.GetOptions{})
				return err
			}},
		{"a kind without apiVersion", `{"kind":"Slice","metadata":{"name":"s1"}}`, `its kind "Slice" has no apiVersion`,
			func(k *Kubernetes) error {
				_, err := k.Dynamic.Resource(slicesGVR).Get(t.Context(), "s1", metav1.GetOptions{})
				return err
			}},
		{"a list to a read of one object", `{"kind":"SliceList","apiVersion":"accelerator.gke.io/v1beta1","metadata":{},"items":[]}`,
			`the JSON object is a list (kind "SliceList", with items) where one object was asked for`,
			func(k *Kubernetes) error {
				_, err := k.Dynamic.Resource(slicesGVR).Get(t.Context(), "s1", metav1.GetOptions{})
				return err
			}},
		{"one object to a list", `{"kind":"Slice","apiVersion":"accelerator.gke.io/v1beta1","metadata":{"name":"s1"}}`,
			`the JSON object is one object (kind "Slice", no items) where a list was asked for`,
			func(k *Kubernetes) error {
				_, err := k.Dynamic.Resource(slicesGVR).List(t.Context(), metav1.ListOptions{})
				return err
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k, host := kubeServer(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(tc.body))
			})
			err := tc.read(k)
			var bad *MalformedAnswerError
			if !errors.As(err, &bad) {
				t.Fatalf("read = %v, want a MalformedAnswerError", err)
			}
			for _, want := range []string{"Kubernetes API at " + host, "HTTP 200", tc.problem, "the body begins", "kubernetes.host"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// A watch whose second event is not one (no type) ends with an error
// event naming it, quoting it from where it begins; the first event is
// delivered.
func TestKubernetesWatchEventOfAnotherShapeIsNamed(t *testing.T) {
	t.Parallel()
	first := `{"type":"ADDED","object":{"kind":"Slice","apiVersion":"accelerator.gke.io/v1beta1","metadata":{"name":"s1"}}}` + "\n"
	k, host := kubeServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(first))
		w.(http.Flusher).Flush()
		_, _ = w.Write([]byte(`{"kind":"Slice","apiVersion":"accelerator.gke.io/v1beta1","metadata":{"name":"s2"}}` + "\n"))
	})
	wi, err := k.Dynamic.Resource(slicesGVR).Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wi.Stop)
	if ev := testsupport.Await(t, wi.ResultChan(), "the watch's first event"); ev.Type != watch.Added {
		t.Fatalf("first event %s, want ADDED", ev.Type)
	}
	ev := testsupport.Await(t, wi.ResultChan(), "the watch's error event")
	status, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok {
		t.Fatalf("second event %s %T, want an ERROR with a status", ev.Type, ev.Object)
	}
	for _, want := range []string{"malformed answer from the Kubernetes API at " + host,
		`event 2 of the watch is not a Kubernetes watch event: it has no type and object (its keys: "kind", "apiVersion", "metadata")`,
		`from byte 110 the body reads "{"kind":"Slice"`, "a stream of Kubernetes watch events"} {
		// (client-go quotes the error in the status's message.)
		if !strings.Contains(strings.ReplaceAll(status.Message, `\`, ""), want) {
			t.Errorf("watch error %q does not say %q", status.Message, want)
		}
	}
}

// Answers of their shape pass: an object, a list, a Status answering a
// delete, a read as a Table, and the discovery documents (which carry no
// apiVersion).
func TestKubernetesAnswersOfTheirShapePass(t *testing.T) {
	t.Parallel()
	k, _ := kubeServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api":
			_, _ = w.Write([]byte(`{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}`))
		case r.URL.Path == "/apis/kueue.x-k8s.io/v1beta2":
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","groupVersion":"kueue.x-k8s.io/v1beta2","resources":[]}`))
		case r.Method == http.MethodDelete:
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}`))
		case strings.HasSuffix(r.URL.Path, "/slices/s1"):
			_, _ = w.Write([]byte(`{"apiVersion":"accelerator.gke.io/v1beta1","kind":"Slice","metadata":{"name":"s1"}}`))
		case strings.Contains(r.Header.Get("Accept"), "as=Table"):
			_, _ = w.Write([]byte(`{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[],"rows":[]}`))
		default:
			_, _ = w.Write([]byte(`{"kind":"SliceList","apiVersion":"accelerator.gke.io/v1beta1","metadata":{},"items":[]}`))
		}
	})
	ctx := t.Context()
	if _, err := k.Dynamic.Resource(slicesGVR).Get(ctx, "s1", metav1.GetOptions{}); err != nil {
		t.Errorf("get: %v", err)
	}
	if _, err := k.Dynamic.Resource(slicesGVR).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("list: %v", err)
	}
	if err := k.Dynamic.Resource(slicesGVR).Delete(ctx, "s1", metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete: %v", err)
	}
	rc := k.Core.Discovery().RESTClient()
	for _, path := range []string{"/api", "/apis/kueue.x-k8s.io/v1beta2"} {
		if _, err := rc.Get().AbsPath(path).SetHeader("Accept", "application/json").DoRaw(ctx); err != nil {
			t.Errorf("discovery %s: %v", path, err)
		}
	}
	if _, err := rc.Get().AbsPath("/apis/accelerator.gke.io/v1beta1/slices").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx); err != nil {
		t.Errorf("list as a table: %v", err)
	}
}

// kubeFrame reads body through a framedBody checking its objects with
// check, in two reads split at cut, and returns the read's error.
func kubeFrame(body []byte, cut int, check func(*topMembers, int) string) error {
	fb := &framedBody{ReadCloser: io.NopCloser(io.MultiReader(bytes.NewReader(body[:cut]), bytes.NewReader(body[cut:]))),
		frames:    jsonFrames{check: check},
		malformed: func(problem string, _ []byte, _ int64) error { return errors.New(problem) }}
	_, err := io.ReadAll(fb)
	return err
}

// decodedObjects are the top-level objects of a stream of JSON objects,
// as a decoder reads them (nil when it is not one).
func decodedObjects(body []byte) []map[string]any {
	dec := json.NewDecoder(bytes.NewReader(body))
	var out []map[string]any
	for {
		var obj map[string]any
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil || obj == nil {
			return nil
		}
		out = append(out, obj)
	}
}

// Any bytes, in any two pieces, as the JSON answer of a read of one
// Kubernetes object and as a watch: the check never panics, decides the
// same however the bytes come, and, of a stream of JSON objects, accepts
// exactly those whose every object has a kind and an apiVersion (strings,
// not empty; no list asked for one object), and every event a type and an
// object, as a decoder reads them.
func FuzzKubeShapeCheck(f *testing.F) {
	for _, seed := range append(answerSeeds,
		`{"kind":"Slice","apiVersion":"accelerator.gke.io/v1beta1","metadata":{"name":"s1"}}`,
		`{"kind":"SliceList","apiVersion":"v1","items":[]}`, `{"kind":"NodeList","apiVersion":"v1"}`,
		`{"type":"ADDED","object":{"kind":"Slice"}}{"type":"BOOKMARK","object":{}}`, `{"kind":5,"apiVersion":"v1","kind":"Node"}`,
		`{"kind":"Node","apiVersion":"v1","kind":null}`, `{"\u006bind":"Node","apiVersion":"v1"}`, `{"kind":"","apiVersion":"v1"}`,
		`{"a":{"kind":"x"},"kind":"Node","apiVersion":"v1"}`, `{"type":"ADDED"}`, "{\"kind\":\"N\xffde\",\"apiVersion\":\"v1\"}",
	) {
		f.Add([]byte(seed), uint16(7))
	}
	object := func(m *topMembers, _ int) string { return kubeObjectProblem(m, wantObject) }
	f.Fuzz(func(t *testing.T, body []byte, cut uint16) {
		at := int(cut) % (len(body) + 1)
		objs := decodedObjects(body)
		for _, tc := range []struct {
			name  string
			check func(*topMembers, int) string
			ok    func(map[string]any) bool
		}{
			{"object", object, func(o map[string]any) bool {
				kind, _ := o["kind"].(string)
				apiVersion, _ := o["apiVersion"].(string)
				_, items := o["items"]
				isList := items && strings.HasSuffix(kind, "List")
				return kind != "" && apiVersion != "" && !isList
			}},
			{"watch", watchEventProblem, func(o map[string]any) bool {
				typ, _ := o["type"].(string)
				_, obj := o["object"]
				return typ != "" && obj
			}},
		} {
			whole := kubeFrame(body, len(body), tc.check)
			split := kubeFrame(body, at, tc.check)
			if (whole == nil) != (split == nil) {
				t.Fatalf("%s %q: whole %v, in pieces at %d %v", tc.name, body, whole, at, split)
			}
			if objs == nil {
				continue
			}
			want := true
			for _, o := range objs {
				want = want && tc.ok(o)
			}
			if want != (whole == nil) {
				t.Fatalf("%s %q: the check says %v, the decoder's objects %v", tc.name, body, whole, objs)
			}
		}
	})
}

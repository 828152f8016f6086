package slicecheck

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sjson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/dynamic"
)

// The mutating webhook of GKE's slice admission check: Jobs, JobSets and
// LeaderWorkerSets of Kueue's queues whose pod templates ask for a slice
// get Kueue's Topology Aware Scheduling annotations, StatefulSets a node
// selector on the slice's topology (defaultSliceWorkload); what it refuses
// is answered 403 Forbidden, as a controller-runtime defaulter does. The
// sandbox serves it on loopback with its own certificate and registers it
// by URL, for the four kinds: the API server calls it for those it serves
// (LeaderWorkerSet only once its CRD is installed).

// sliceWebhookConfig is the MutatingWebhookConfiguration's name.
const sliceWebhookConfig = "gke-slice-admission-check"

var mutatingWebhookGVR = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}

// sliceWebhookTimeout bounds the API server's call to the webhook.
const sliceWebhookTimeout = 10

// ServeWebhook starts the webhook's HTTPS server on a free loopback port,
// with the serving certificate and key in certFile and keyFile, and
// returns its base URL; it stops when ctx ends.
func ServeWebhook(ctx context.Context, certFile, keyFile string) (string, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return "", fmt.Errorf("loading the sandbox serving certificate for the slice webhook: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /default-slice-workload", handleSliceDefaulting)
	srv := &http.Server{
		Handler:           mux,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return "https://" + l.Addr().String(), nil
}

// RegisterWebhook registers the webhook for Job, JobSet, LeaderWorkerSet
// and StatefulSet creations.
func RegisterWebhook(ctx context.Context, dyn dynamic.Interface, baseURL string, caPEM []byte) error {
	hook := func(name, group, version, resource string) map[string]any {
		return map[string]any{
			"name": name,
			"clientConfig": map[string]any{
				"url":      baseURL + "/default-slice-workload",
				"caBundle": base64.StdEncoding.EncodeToString(caPEM),
			},
			"rules": []any{map[string]any{
				"apiGroups": []any{group}, "apiVersions": []any{version}, "resources": []any{resource},
				"operations": []any{"CREATE"}, "scope": "Namespaced",
			}},
			"admissionReviewVersions": []any{"v1"},
			"sideEffects":             "None",
			"failurePolicy":           "Fail",
			"reinvocationPolicy":      "IfNeeded",
			"timeoutSeconds":          int64(sliceWebhookTimeout),
		}
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1",
		"kind":       "MutatingWebhookConfiguration",
		"metadata":   map[string]any{"name": sliceWebhookConfig},
		"webhooks": []any{
			// The open-source controller's webhook names: the API server
			// quotes them in a refusal ("admission webhook "mjob.kb.io"
			// denied the request: …").
			hook("mjob.kb.io", "batch", "v1", "jobs"),
			hook("mjobset.kb.io", "jobset.x-k8s.io", "v1alpha2", "jobsets"),
			hook("mleaderworkerset.kb.io", "leaderworkerset.x-k8s.io", "v1", "leaderworkersets"),
			hook("mstatefulset.slice-controller.kb.io", "apps", "v1", "statefulsets"),
		},
	}}
	_, err := dyn.Resource(mutatingWebhookGVR).Create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		old, gerr := dyn.Resource(mutatingWebhookGVR).Get(ctx, sliceWebhookConfig, metav1.GetOptions{})
		if gerr != nil {
			return fmt.Errorf("registering the slice admission check's webhook: %w", gerr)
		}
		obj.SetResourceVersion(old.GetResourceVersion())
		_, err = dyn.Resource(mutatingWebhookGVR).Update(ctx, obj, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("registering the slice admission check's webhook: %w", err)
	}
	return nil
}

// admissionReview is the part of admission.k8s.io/v1 AdmissionReview the
// webhook reads and writes.
type admissionReview struct {
	APIVersion string             `json:"apiVersion"`
	Kind       string             `json:"kind"`
	Request    *admissionRequest  `json:"request,omitempty"`
	Response   *admissionResponse `json:"response,omitempty"`
}

type admissionRequest struct {
	UID    string          `json:"uid"`
	Object json.RawMessage `json:"object"`
}

type admissionResponse struct {
	UID       string         `json:"uid"`
	Allowed   bool           `json:"allowed"`
	Result    *metav1.Status `json:"status,omitempty"`
	Patch     []byte         `json:"patch,omitempty"`
	PatchType *string        `json:"patchType,omitempty"`
}

// handleSliceDefaulting answers one AdmissionReview.
func handleSliceDefaulting(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var review admissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, "the body must be an admission.k8s.io/v1 AdmissionReview with a request", http.StatusBadRequest)
		return
	}
	resp := &admissionResponse{UID: review.Request.UID, Allowed: true}
	patch, err := sliceDefaultingPatch(review.Request.Object)
	var refused *sliceTemplateError
	switch {
	case errors.As(err, &refused):
		resp.Allowed = false
		resp.Result = &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: err.Error()}
	case err != nil:
		resp.Allowed = false
		resp.Result = &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: err.Error()}
	case patch != nil:
		jsonPatch := "JSONPatch"
		resp.Patch, resp.PatchType = patch, &jsonPatch
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(admissionReview{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview", Response: resp})
}

// sliceDefaultingPatch returns the JSON patch that defaults a Job, JobSet,
// LeaderWorkerSet or StatefulSet (nil when nothing changes).
func sliceDefaultingPatch(raw []byte) ([]byte, error) {
	var obj map[string]any
	if err := k8sjson.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("reading the object: %w", err)
	}
	changed, err := defaultSliceWorkload(obj)
	if err != nil || !changed {
		return nil, err
	}
	return json.Marshal([]map[string]any{{"op": "replace", "path": "/spec", "value": obj["spec"]}})
}

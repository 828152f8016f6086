package sandbox

import (
	"context"
	"net/http"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Kubernetes is served with the sandbox CA and bearer-token auth only.
func TestKubernetesAuthAndTLS(t *testing.T) {
	needSandbox(t)
	kube, err := kubernetes.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatalf("listing nodes with the sandbox token: %v", err)
	}
	bad := testSandbox.RESTConfig()
	bad.BearerToken = "wrong"
	kubeBad, _ := kubernetes.NewForConfig(bad)
	if _, err := kubeBad.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("wrong token: %v, want Unauthorized", err)
	}
	resp, err := http.Get(testSandbox.KubeHost + "/version")
	if err == nil {
		_ = resp.Body.Close()
		t.Errorf("a client without the sandbox CA connected")
	}
}

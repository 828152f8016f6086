package sandbox

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

func newSliceObject(name, sliceType, topology string, partitions ...string) *unstructured.Unstructured {
	ids := make([]any, len(partitions))
	for i, p := range partitions {
		ids[i] = p
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "accelerator.gke.io/v1beta1",
		"kind":       "Slice",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"type": sliceType, "topology": topology, "partitionIds": ids},
	}}
}

func TestKubectlListsSliceCRD(t *testing.T) {
	needSandbox(t)
	out, err := exec.Command("kubectl", "--kubeconfig", testSandbox.Kubeconfig, "get", "crd", "slices.accelerator.gke.io", "-o", "name").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl get crd: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "customresourcedefinition.apiextensions.k8s.io/slices.accelerator.gke.io" {
		t.Fatalf("kubectl printed %q", got)
	}
}

// The CRD enforces the documented schema: the type enum, the topology
// pattern, at least one partition, and immutable spec fields.
func TestSliceCRDSchema(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	dyn, err := dynamic.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	slices := dyn.Resource(SliceGVR)
	for name, obj := range map[string]*unstructured.Unstructured{
		"type not in enum": newSliceObject("schema-bad-type", "v5p", "4x4x4", "p0"),
		"topology pattern": newSliceObject("schema-bad-topology", "tpu7x", "4x4x", "p0"),
		"no partitions":    newSliceObject("schema-no-partitions", "tpu7x", "4x4x4"),
	} {
		if _, err := slices.Create(ctx, obj, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
			t.Errorf("%s: Create = %v, want Invalid", name, err)
		}
	}

	created, err := slices.Create(ctx, newSliceObject("schema-immutable", "tpu7x", "4x4x4", "p0"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteSliceAndWait(t, "schema-immutable") })
	// A merge patch carries no resourceVersion, so the controller's own
	// writes (its finalizer) cannot make it conflict.
	_, err = slices.Patch(ctx, created.GetName(), types.MergePatchType, []byte(`{"spec":{"topology":"4x4x8"}}`), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "topology is immutable") {
		t.Errorf("changing the topology: %v, want 'topology is immutable'", err)
	}
}

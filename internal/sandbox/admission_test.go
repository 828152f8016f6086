package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// partitionIDs returns n distinct partition IDs.
func partitionIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%032x", i+1)
	}
	return ids
}

// The API server refuses, at admission and with a message that says what
// is wrong and what is allowed, each Slice GKE's webhook refuses. The
// creates are dry runs: they pass through every admission step, and store
// nothing for the slice controller to act on.
func TestSliceAdmissionRejects(t *testing.T) {
	needSandbox(t)
	slices := testSlices(t)
	cases := []struct {
		name, sliceName, sliceType, topology string
		ids                                  []string
		want                                 string
	}{
		{"type v6e", "adm-v6e", "v6e", "4x4x4", partitionIDs(1),
			`spec.type "v6e" is not supported: GKE dynamic slicing accepts only type "tpu7x"`},
		{"name of 50 characters", strings.Repeat("n", 50), "tpu7x", "4x4x4", partitionIDs(1),
			`metadata.name "` + strings.Repeat("n", 50) + `" has 50 characters: a Slice name has at most 49`},
		{"name of 64 characters", strings.Repeat("s", 64), "tpu7x", "4x4x4", partitionIDs(1),
			"has 64 characters: a Slice name has at most 49"},
		{"name with a dot", "adm.dotted", "tpu7x", "4x4x4", partitionIDs(1),
			`metadata.name "adm.dotted" is not a DNS label`},
		{"two dimensions", "adm-2d", "tpu7x", "4x4", partitionIDs(1),
			`spec.topology "4x4" is not a TPU7x slice topology: use AxBxC, a super-slice of 4x4x4 partitions (each dimension a multiple of 4, A ≤ B ≤ C), or a sub-slice: 2x2x1, 2x2x2, 2x2x4 or 2x4x4`},
		{"leading zero", "adm-zero", "tpu7x", "04x4x4", partitionIDs(1), "is not a TPU7x slice topology"},
		{"not a multiple of 4", "adm-6", "tpu7x", "4x4x6", partitionIDs(1),
			`spec.topology "4x4x6": each dimension of a super-slice must be a positive multiple of 4 (4x4x4, 4x4x8, 4x8x8, ...); the sub-slice topologies are exactly 2x2x1, 2x2x2, 2x2x4 and 2x4x4`},
		{"zero dimension", "adm-0", "tpu7x", "0x4x4", partitionIDs(1), "must be a positive multiple of 4"},
		{"sub-slice permuted", "adm-perm", "tpu7x", "1x2x2", partitionIDs(1), "the sub-slice topologies are exactly 2x2x1, 2x2x2, 2x2x4 and 2x4x4"},
		{"sub-slice not listed", "adm-2x4x8", "tpu7x", "2x4x8", partitionIDs(1), "must be a positive multiple of 4"},
		{"decreasing", "adm-order", "tpu7x", "4x8x4", partitionIDs(2),
			`spec.topology "4x8x4": the dimensions must be in non-decreasing order (A ≤ B ≤ C): use "4x4x8"`},
		{"too many chips", "adm-big", "tpu7x", "32x32x32", partitionIDs(1),
			`spec.topology "32x32x32" has 32768 chips: a slice has at most 9216`},
		{"too few partitions", "adm-few", "tpu7x", "4x4x8", partitionIDs(1),
			"spec.partitionIds has 1 IDs: topology 4x4x8 (128 chips) needs exactly 2, one per 4x4x4 partition of 64 chips"},
		{"too many partitions", "adm-many", "tpu7x", "4x4x4", partitionIDs(3), "has 3 IDs: topology 4x4x4 (64 chips) needs exactly 1"},
		{"sub-slice of two partitions", "adm-sub2", "tpu7x", "2x2x2", partitionIDs(2),
			"spec.partitionIds has 2 IDs: a 2x2x2 sub-slice lies in exactly 1 partition"},
		{"empty partition ID", "adm-empty", "tpu7x", "4x4x8", []string{partitionIDs(1)[0], ""},
			"spec.partitionIds has an empty ID"},
		{"repeated partition ID", "adm-dup", "tpu7x", "4x8x8", append(partitionIDs(3), partitionIDs(1)[0]),
			`spec.partitionIds lists "` + partitionIDs(1)[0] + `" more than once`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := newSliceObject(tc.sliceName, tc.sliceType, tc.topology, tc.ids...)
			_, err := slices.Create(context.Background(), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("Create = %v; want 422 Invalid with %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), sliceAdmissionPolicy) {
				t.Errorf("error %q\nwant it to contain %q from policy %s", err, tc.want, sliceAdmissionPolicy)
			}
		})
	}
}

// Slices of both topology families GKE accepts are admitted: super-slices
// from one partition to a full pod, and the four sub-slice shapes.
func TestSliceAdmissionAccepts(t *testing.T) {
	needSandbox(t)
	slices := testSlices(t)
	cases := []struct {
		name, topology string
		partitions     int
	}{
		{"adm-ok-4x4x4", "4x4x4", 1},
		{"adm-ok-4x4x8", "4x4x8", 2},
		{"adm-ok-4x8x8", "4x8x8", 4},
		{"adm-ok-8x16x16", "8x16x16", 32},
		{"adm-ok-pod", "16x24x24", 144},
		{"adm-ok-2x2x1", "2x2x1", 1},
		{"adm-ok-2x2x2", "2x2x2", 1},
		{"adm-ok-2x2x4", "2x2x4", 1},
		{"adm-ok-2x4x4", "2x4x4", 1},
		{strings.Repeat("a", 48) + "9", "4x4x4", 1}, // 49 characters
	}
	for _, tc := range cases {
		t.Run(tc.topology+"/"+tc.name[:min(len(tc.name), 12)], func(t *testing.T) {
			obj := newSliceObject(tc.name, "tpu7x", tc.topology, partitionIDs(tc.partitions)...)
			if _, err := slices.Create(context.Background(), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
				t.Errorf("Create %s (%s, %d partitions) = %v; want it admitted", tc.name, tc.topology, tc.partitions, err)
			}
		})
	}
}

// The deprecated v1alpha1 version is held to the same rules.
func TestSliceAdmissionV1alpha1(t *testing.T) {
	needSandbox(t)
	dyn, err := dynamic.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	v1alpha1 := schema.GroupVersionResource{Group: SliceGVR.Group, Version: "v1alpha1", Resource: SliceGVR.Resource}
	obj := newSliceObject("adm-alpha", "v6e", "4x4x4", partitionIDs(1)...)
	obj.SetAPIVersion("accelerator.gke.io/v1alpha1")
	_, err = dyn.Resource(v1alpha1).Create(context.Background(), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `spec.type "v6e" is not supported`) {
		t.Errorf("v1alpha1 Create = %v; want 422 Invalid for type v6e", err)
	}
}

// What a user of kubectl sees: the refusal and its reason, and nothing
// created.
func TestSliceAdmissionKubectl(t *testing.T) {
	needSandbox(t)
	manifest := `apiVersion: accelerator.gke.io/v1beta1
kind: Slice
metadata:
  name: ` + strings.Repeat("k", 64) + `
spec:
  type: "tpu7x"
  topology: "4x4x4"
  partitionIds: ["` + partitionIDs(1)[0] + `"]
`
	cmd := exec.Command("kubectl", "--kubeconfig", testSandbox.Kubeconfig, "apply", "-f", "-")
	cmd.Stdin = strings.NewReader(manifest)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("kubectl apply of a Slice with a 64-character name succeeded:\n%s", out)
	}
	if want := "has 64 characters: a Slice name has at most 49"; !strings.Contains(string(out), want) {
		t.Errorf("kubectl printed:\n%s\nwant %q", out, want)
	}
	if _, err := testSlices(t).Get(context.Background(), strings.Repeat("k", 64), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused Slice exists: %v", err)
	}
}

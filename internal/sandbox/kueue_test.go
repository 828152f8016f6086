package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func kueueGVR(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: KueueGroup, Version: "v1beta2", Resource: resource}
}

func testDynamic(t *testing.T) dynamic.Interface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// pinnedKueueVersion is the version tools/kueue/go.mod requires: the one
// `make sandbox-bin` fetches.
func pinnedKueueVersion(t *testing.T) string {
	t.Helper()
	root, ok := repoRoot()
	if !ok {
		t.Fatal("not in the repository")
	}
	b, err := os.ReadFile(filepath.Join(root, "tools", "kueue", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^require sigs\.k8s\.io/kueue (v\S+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("tools/kueue/go.mod does not require sigs.k8s.io/kueue")
	}
	return string(m[1])
}

// Without its Kueue CRDs the sandbox does not start, and says how to get
// them; a directory of something else than CRDs is refused too.
func TestKueueCRDsMissing(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("GKE_SANDBOX_KUEUE_CRDS", "")
	_, err := Start(context.Background(), Options{KubeAPIServer: "/bin/true", Etcd: "/bin/true", KueueCRDs: empty})
	if err == nil || !strings.Contains(err.Error(), "no Kueue CRDs in "+empty) || !strings.Contains(err.Error(), "make sandbox-bin") {
		t.Errorf("Start without Kueue CRDs: %v; want an error that names the directory and `make sandbox-bin`", err)
	}
	t.Setenv("GKE_SANDBOX_KUEUE_CRDS", empty)
	if _, err := KueueCRDDir(Options{}); err == nil || !strings.Contains(err.Error(), "make sandbox-bin") {
		t.Errorf("GKE_SANDBOX_KUEUE_CRDS of an empty directory: %v", err)
	}

	notCRD := t.TempDir()
	if err := os.WriteFile(filepath.Join(notCRD, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readKueueCRDs(notCRD); err == nil || !strings.Contains(err.Error(), "not a CustomResourceDefinition") {
		t.Errorf("a ConfigMap among the CRDs: %v", err)
	}
}

// Every CRD of the pinned Kueue release is installed, Established, serves
// v1beta2 (stored) and v1beta1, and the sandbox reports the version.
func TestKueueCRDsEstablished(t *testing.T) {
	needSandbox(t)
	want := pinnedKueueVersion(t)
	if testSandbox.KueueVersion != want || testSandbox.Info().KueueVersion != want {
		t.Errorf("KueueVersion %q (Info %q), want %s as pinned in tools/kueue/go.mod", testSandbox.KueueVersion, testSandbox.Info().KueueVersion, want)
	}
	dir, err := KueueCRDDir(Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := readKueueCRDsNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"topologies", "resourceflavors", "admissionchecks", "clusterqueues", "localqueues", "workloads", "cohorts", "workloadpriorityclasses"} {
		if !slices.Contains(files, name+"."+KueueGroup) {
			t.Errorf("%s has no CRD %s.%s (it has %v)", dir, name, KueueGroup, files)
		}
	}
	crds := testDynamic(t).Resource(crdGVR)
	for _, name := range files {
		crd, err := crds.Get(testContext(t), name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("CRD %s: %v", name, err)
			continue
		}
		if !crdEstablished(crd) {
			t.Errorf("CRD %s is not Established", name)
		}
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		got := map[string]string{}
		for _, v := range versions {
			m, _ := v.(map[string]any)
			name, _ := m["name"].(string)
			got[name] = fmt.Sprintf("served=%v storage=%v", m["served"], m["storage"])
		}
		if got["v1beta2"] != "served=true storage=true" || got["v1beta1"] != "served=true storage=false" {
			t.Errorf("CRD %s versions %v, want v1beta2 served and stored, v1beta1 served", name, got)
		}
	}
}

// readKueueCRDsNames is the names of the CRDs in dir.
func readKueueCRDsNames(dir string) ([]string, error) {
	crds, _, err := readKueueCRDs(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(crds))
	for i, crd := range crds {
		names[i] = crd.GetName()
	}
	return names, nil
}

// kueueObject is a Kueue object of kind in API version v1beta2.
func kueueObject(kind, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": KueueGroup + "/v1beta2",
		"kind":       kind,
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}}
	if namespace != "" {
		obj.SetNamespace(namespace)
	}
	return obj
}

// tasLevels are the Topology levels of a TPU7x cluster, widest first: the
// block, the 4x4x4 partition, each sub-slice shape from the largest down,
// the host.
func tasLevels(hostnameLast bool) []any {
	levels := []any{map[string]any{"nodeLabel": wellknown.LabelTopologyBlock}}
	for _, shape := range slices.Backward(topology.PartitionShapes) {
		levels = append(levels, map[string]any{"nodeLabel": topology.PartitionIDLabel(shape)})
	}
	host := map[string]any{"nodeLabel": wellknown.LabelHostname}
	if hostnameLast {
		return append(levels, host)
	}
	return append([]any{levels[0], host}, levels[1:]...)
}

// clusterQueueSpec is a ClusterQueue of TPU chips of the tpu7x flavor,
// behind the slice admission check.
func clusterQueueSpec(quota any, covered ...any) map[string]any {
	return map[string]any{
		"namespaceSelector": map[string]any{},
		"resourceGroups": []any{map[string]any{
			"coveredResources": covered,
			"flavors": []any{map[string]any{
				"name":      "tpu7x",
				"resources": []any{map[string]any{"name": "google.com/tpu", "nominalQuota": quota}},
			}},
		}},
		"admissionChecksStrategy": map[string]any{"admissionChecks": []any{map[string]any{"name": "dynamic-slice"}}},
	}
}

// The Kueue + TAS objects of a TPU7x cluster are accepted by the real API
// server, and objects that break the CRDs' rules are refused with their
// messages: the sandbox validates Kueue objects as a cluster does.
func TestKueueObjectsValidated(t *testing.T) {
	needSandbox(t)
	dyn := testDynamic(t)
	ctx := testContext(t)
	create := func(resource string, obj *unstructured.Unstructured) error {
		_, err := dyn.Resource(kueueGVR(resource)).Namespace(obj.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{})
		if err == nil {
			t.Cleanup(func() {
				_ = dyn.Resource(kueueGVR(resource)).Namespace(obj.GetNamespace()).Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{})
			})
		}
		return err
	}

	t.Run("valid", func(t *testing.T) {
		valid := []struct {
			resource string
			obj      *unstructured.Unstructured
		}{
			{"topologies", kueueObject("Topology", "", "tpu7x", map[string]any{"levels": tasLevels(true)})},
			{"resourceflavors", kueueObject("ResourceFlavor", "", "tpu7x", map[string]any{
				"nodeLabels":   map[string]any{wellknown.LabelAccelerator: topology.SliceType},
				"topologyName": "tpu7x",
			})},
			{"admissionchecks", kueueObject("AdmissionCheck", "", "dynamic-slice", map[string]any{"controllerName": KueueSliceController})},
			{"clusterqueues", kueueObject("ClusterQueue", "", "tpu7x", clusterQueueSpec(512, "google.com/tpu"))},
			{"localqueues", kueueObject("LocalQueue", "default", "tpu7x", map[string]any{"clusterQueue": "tpu7x"})},
			{"workloads", kueueObject("Workload", "default", "train", map[string]any{
				"queueName": "tpu7x",
				"podSets": []any{map[string]any{
					"name":  "main",
					"count": 16,
					"template": map[string]any{"spec": map[string]any{
						"nodeSelector": map[string]any{wellknown.LabelAccelerator: topology.SliceType, wellknown.LabelSliceTopology: "4x4x4"},
						"containers": []any{map[string]any{
							"name": "train", "image": "busybox",
							"resources": map[string]any{"limits": map[string]any{"google.com/tpu": "4"}},
						}},
					}},
					"topologyRequest": map[string]any{"required": topology.PartitionIDLabel(topology.PartitionTopology)},
				}},
			})},
		}
		for _, v := range valid {
			if err := create(v.resource, v.obj); err != nil {
				t.Fatalf("creating %s %s: %v", v.obj.GetKind(), v.obj.GetName(), err)
			}
		}
		// v1beta1 is served too (the CRDs convert with None), deprecated.
		warnings := &warningRecorder{}
		cfg := testSandbox.RESTConfig()
		cfg.WarningHandlerWithContext = warnings
		oldDyn, err := dynamic.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		old := schema.GroupVersionResource{Group: KueueGroup, Version: "v1beta1", Resource: "topologies"}
		got, err := oldDyn.Resource(old).Get(ctx, "tpu7x", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading the Topology as v1beta1: %v", err)
		}
		if levels, _, _ := unstructured.NestedSlice(got.Object, "spec", "levels"); len(levels) != len(tasLevels(true)) {
			t.Errorf("v1beta1 Topology levels %v", levels)
		}
		if len(warnings.messages) != 1 || !strings.Contains(warnings.messages[0], "Use v1beta2 instead") {
			t.Errorf("reading v1beta1 warned %q; want its deprecation", warnings.messages)
		}
		// A CEL transition rule: the controller of an AdmissionCheck is
		// immutable.
		ac, err := dyn.Resource(kueueGVR("admissionchecks")).Get(ctx, "dynamic-slice", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(ac.Object, "example.com/other", "spec", "controllerName"); err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Resource(kueueGVR("admissionchecks")).Update(ctx, ac, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "field is immutable") {
			t.Errorf("changing the AdmissionCheck's controllerName: %v; want Invalid, field is immutable", err)
		}
	})

	invalid := []struct {
		name, resource string
		obj            *unstructured.Unstructured
		text           string
	}{
		{"hostname level not last", "topologies", kueueObject("Topology", "", "bad-levels", map[string]any{"levels": tasLevels(false)}),
			"the kubernetes.io/hostname label can only be used at the lowest level of topology"},
		{"level not a label name", "topologies", kueueObject("Topology", "", "bad-label", map[string]any{"levels": []any{map[string]any{"nodeLabel": "not a label"}}}),
			"spec.levels[0].nodeLabel"},
		{"flavor with topology but no node labels", "resourceflavors", kueueObject("ResourceFlavor", "", "bad-flavor", map[string]any{"topologyName": "tpu7x"}),
			"at least one nodeLabel is required when topology is set"},
		{"admission check without controller", "admissionchecks", kueueObject("AdmissionCheck", "", "bad-check", map[string]any{}),
			"spec.controllerName: Required value"},
		{"quota not a quantity", "clusterqueues", kueueObject("ClusterQueue", "", "bad-quantity", clusterQueueSpec("lots", "google.com/tpu")),
			"nominalQuota"},
		{"flavor resources not the covered ones", "clusterqueues", kueueObject("ClusterQueue", "", "bad-covered", clusterQueueSpec(512, "google.com/tpu", "cpu")),
			"flavors must have the same number of resources as the coveredResources"},
		{"workload minCount over count", "workloads", kueueObject("Workload", "default", "bad-count", map[string]any{"podSets": []any{map[string]any{
			"name": "main", "count": 1, "minCount": 2,
			"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}},
		}}}), "minCount should be positive and less or equal to count"},
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			err := create(tc.resource, tc.obj)
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("Create = %v; want Invalid with %q", err, tc.text)
			}
		})
	}

	// The sandbox runs the CRDs, not Kueue's webhooks: what only a webhook
	// checks, such as a non-negative quota, is accepted (the guide says
	// so). Should a Kueue release move the rule into its CRD, this fails
	// and the guide must change.
	t.Run("webhook rules not enforced", func(t *testing.T) {
		if err := create("clusterqueues", kueueObject("ClusterQueue", "", "negative-quota", clusterQueueSpec("-8", "google.com/tpu"))); err != nil {
			t.Errorf("a negative quota: %v; want it accepted (Kueue's webhook, not its CRD, refuses it)", err)
		}
	})
}

// warningRecorder keeps the API server's warnings.
type warningRecorder struct{ messages []string }

func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, message string) {
	w.messages = append(w.messages, message)
}

// kueueCreate asks the control endpoint for a Kueue slice; it returns the
// HTTP status, the Slice's partition IDs when created and the body. A
// created Slice is deleted (and awaited) when the test ends.
func kueueCreate(t *testing.T, req KueueSlice) (int, []string, string) {
	t.Helper()
	code, body := control(t, http.MethodPost, "sandbox/kueue/slices", testSandbox.Token, req)
	if code != http.StatusCreated {
		return code, nil, string(body)
	}
	t.Cleanup(func() { deleteSliceAndWait(t, req.Name) })
	var obj unstructured.Unstructured
	if err := json.Unmarshal(body, &obj.Object); err != nil {
		t.Fatal(err)
	}
	ids, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "partitionIds")
	return code, ids, string(body)
}

// kueueDelete deletes a Kueue slice through the control endpoint and waits
// until the controller has dismantled it.
func kueueDelete(t *testing.T, name string) {
	t.Helper()
	if code, body := control(t, http.MethodDelete, "sandbox/kueue/slices/"+name, testSandbox.Token, nil); code != http.StatusOK {
		t.Fatalf("DELETE %s: HTTP %d %s", name, code, body)
	}
	// The route deleted it: it is gone, or being dismantled (its
	// finalizer holds it).
	obj, err := testSlices(t).Get(testContext(t), name, metav1.GetOptions{})
	if err == nil && obj.GetDeletionTimestamp() == nil {
		t.Fatalf("slice %s is not deleted after DELETE", name)
	} else if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	deleteSliceAndWait(t, name) // waits until it is gone
}

// wantOwned checks a Kueue slice's owner annotations.
func wantOwned(t *testing.T, obj *unstructured.Unstructured, req KueueSlice) {
	t.Helper()
	a := obj.GetAnnotations()
	if a[wellknown.AnnotationOwnerWorkloadNamespace] != req.Namespace || a[wellknown.AnnotationOwnerWorkloadName] != req.Workload || a[wellknown.AnnotationOwnerPodSet] != req.PodSet {
		t.Errorf("slice %s annotations %v, want the owner %s/%s pod set %s", obj.GetName(), a, req.Namespace, req.Workload, req.PodSet)
	}
}

// Kueue's slice admission check, simulated: a Slice for a workload's pod
// set, with listed partitions or partitions chosen from the free ones,
// carries the owner annotations, is formed ACTIVE by the slice controller,
// and is deleted by the DELETE route; asking for more than is free in one
// block is refused with 409.
func TestKueueSuperSlices(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2")
	other := partitionsOf(t, "tpu7x-reservation", "block-b", "sub-block-b1")
	owner := func(name, topo string, ids ...string) KueueSlice {
		return KueueSlice{Name: name, Namespace: "team-a", Workload: "job-" + name, PodSet: "main", Topology: topo, PartitionIDs: ids}
	}

	listed := owner("kueue-listed", "4x4x4", ids[0])
	if code, got, body := kueueCreate(t, listed); code != http.StatusCreated || !slices.Equal(got, ids[:1]) {
		t.Fatalf("POST listed: HTTP %d %v %s", code, got, body)
	}
	wantOwned(t, waitSliceState(t, listed.Name, ReasonActive), listed)

	// Chosen: the free 4x4x4s are a2 (block-a) and b1 (block-b); block-a
	// sorts first or not, either is right for one partition, but the next
	// choice must take the other.
	first, err := testSandbox.KueueCreateSlice(testContext(t), owner("kueue-chosen", "4x4x4"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteSliceAndWait(t, "kueue-chosen") })
	firstIDs, _, _ := unstructured.NestedStringSlice(first.Object, "spec", "partitionIds")
	second := owner("kueue-chosen-2", "4x4x4")
	code, secondIDs, body := kueueCreate(t, second)
	if code != http.StatusCreated {
		t.Fatalf("POST chosen: HTTP %d %s", code, body)
	}
	if got := append(slices.Clone(firstIDs), secondIDs...); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values([]string{ids[1], other[0]}))) {
		t.Errorf("chosen %v and %v; want the two free partitions %s and %s", firstIDs, secondIDs, ids[1], other[0])
	}
	wantOwned(t, waitSliceState(t, "kueue-chosen", ReasonActive), owner("kueue-chosen", ""))
	wantOwned(t, waitSliceState(t, second.Name, ReasonActive), second)

	// Nothing is free now.
	if code, _, body := kueueCreate(t, owner("kueue-none", "4x4x4")); code != http.StatusConflict ||
		!strings.Contains(body, "a 4x4x4 slice needs 1 free 4x4x4 partition(s) in one block, and none is free") {
		t.Errorf("POST with nothing free: HTTP %d %s; want 409 and why", code, body)
	}
	_, err = testSandbox.KueueCreateSlice(testContext(t), owner("kueue-none", "4x4x4"))
	if !errors.Is(err, ErrNoFreePartitions) {
		t.Errorf("KueueCreateSlice with nothing free: %v; want ErrNoFreePartitions", err)
	}

	// Free the listed slice and whichever chosen one is in block-b: one
	// free 4x4x4 in each block is not a 4x4x8, which needs both in one.
	kueueDelete(t, listed.Name)
	inB := "kueue-chosen"
	if secondIDs[0] == other[0] {
		inB = second.Name
	}
	kueueDelete(t, inB)
	if code, _, body := kueueCreate(t, owner("kueue-split", "4x4x8")); code != http.StatusConflict ||
		!strings.Contains(body, "needs 2 free 4x4x4 partition(s) in one block, and the most in one block is 1") {
		t.Errorf("POST 4x4x8 over two blocks: HTTP %d %s; want 409", code, body)
	}
	// With block-a's two free, the 4x4x8 takes them.
	inA := "kueue-chosen"
	if inB == inA {
		inA = second.Name
	}
	kueueDelete(t, inA)
	big := owner("kueue-big", "4x4x8")
	code, bigIDs, body := kueueCreate(t, big)
	if code != http.StatusCreated || !slices.Equal(slices.Sorted(slices.Values(bigIDs)), slices.Sorted(slices.Values(ids))) {
		t.Fatalf("POST 4x4x8: HTTP %d %v %s; want block-a's %v", code, bigIDs, body, ids)
	}
	wantOwned(t, waitSliceState(t, big.Name, ReasonActive), big)
	if n := sliceLabelledNodes(t, big.Name); n != 32 {
		t.Errorf("%d nodes carry the slice label, want 32", n)
	}
}

// Sub-slices through the admission check: chosen partitions of each shape
// avoid every node another slice holds, through any overlapping shape, and
// the listed one forms too; the DELETE route frees them for the next.
func TestKueueSubSlices(t *testing.T) {
	needSandbox(t)
	nodes := subPartitions(t, "kq-c1", "tpu7x-reservation-2", "block-c", "sub-block-c1", 16)
	owner := func(name, topo string, ids ...string) KueueSlice {
		return KueueSlice{Name: name, Namespace: "serving", Workload: "serve-" + name, PodSet: "workers", Topology: topo, PartitionIDs: ids}
	}
	create := func(req KueueSlice) []string {
		t.Helper()
		code, ids, body := kueueCreate(t, req)
		if code != http.StatusCreated {
			t.Fatalf("POST %s: HTTP %d %s", req.Name, code, body)
		}
		wantOwned(t, waitSliceState(t, req.Name, ReasonActive), req)
		if got, want := sliceLabelledNodes(t, req.Name), topology.HostsOfShape(req.Topology); got != want {
			t.Errorf("%s: %d nodes labelled, want %d", req.Name, got, want)
		}
		return ids
	}
	wantChosen := func(got []string, host int, shape string) {
		t.Helper()
		if want := subID(nodes[host], shape); len(got) != 1 || got[0] != want {
			t.Errorf("chose %v, want the %s of host %d: %s", got, shape, host, want)
		}
	}

	// The first 2x4x4 (hosts 0-7), then the second (8-15).
	wantChosen(create(owner("kq-half-0", "2x4x4")), 0, "2x4x4")
	wantChosen(create(owner("kq-half-1", "2x4x4")), 8, "2x4x4")
	if code, _, body := kueueCreate(t, owner("kq-none", "2x2x1")); code != http.StatusConflict || !strings.Contains(body, "and none is free") {
		t.Errorf("POST 2x2x1 with every host held: HTTP %d %s; want 409", code, body)
	}

	// Free hosts 8-15, list the 2x2x2 of hosts 8-9: then the free 2x2x4 is
	// hosts 12-15 (8-11 overlaps the 2x2x2) and the free 2x2x1 host 10.
	kueueDelete(t, "kq-half-1")
	create(owner("kq-listed", "2x2x2", subID(nodes[8], "2x2x2")))
	wantChosen(create(owner("kq-four", "2x2x4")), 12, "2x2x4")
	wantChosen(create(owner("kq-one", "2x2x1")), 10, "2x2x1")
	wantChosen(create(owner("kq-one-b", "2x2x1")), 11, "2x2x1")
	if code, _, body := kueueCreate(t, owner("kq-full", "2x2x1")); code != http.StatusConflict {
		t.Errorf("POST 2x2x1 with the sub-block full: HTTP %d %s; want 409", code, body)
	}
}

// The routes refuse what Kueue would not do: a request without its owner,
// a bad topology, deleting a Slice that Kueue did not create or that does
// not exist.
func TestKueueSliceRequests(t *testing.T) {
	needSandbox(t)
	for name, body := range map[string]any{
		"no workload":   KueueSlice{Name: "kq-bad", Namespace: "ns", PodSet: "main", Topology: "4x4x4"},
		"bad topology":  KueueSlice{Name: "kq-bad", Namespace: "ns", Workload: "w", PodSet: "main", Topology: "4x4x6"},
		"unknown field": map[string]any{"name": "kq-bad", "partitions": []string{"x"}},
	} {
		if code, body := control(t, http.MethodPost, "sandbox/kueue/slices", testSandbox.Token, body); code != http.StatusBadRequest {
			t.Errorf("%s: HTTP %d %s; want 400", name, code, body)
		}
	}
	if code, _, body := kueueCreate(t, KueueSlice{Name: "Not_A_Name", Namespace: "ns", Workload: "w", PodSet: "main", Topology: "4x4x4", PartitionIDs: []string{"p"}}); code != http.StatusUnprocessableEntity {
		t.Errorf("an invalid Slice name: HTTP %d %s; want the API server's 422", code, body)
	}

	createSlice(t, "kq-terraform", "4x4x4", []string{strings.Repeat("e", 32)}, nil)
	if code, body := control(t, http.MethodDelete, "sandbox/kueue/slices/kq-terraform", testSandbox.Token, nil); code != http.StatusConflict || !strings.Contains(string(body), "was not created by Kueue") {
		t.Errorf("DELETE of a slice Kueue did not create: HTTP %d %s; want 409", code, body)
	}
	if _, err := testSlices(t).Get(testContext(t), "kq-terraform", metav1.GetOptions{}); err != nil {
		t.Errorf("the slice Kueue did not create is gone: %v", err)
	}
	if code, body := control(t, http.MethodDelete, "sandbox/kueue/slices/kq-nothing", testSandbox.Token, nil); code != http.StatusNotFound {
		t.Errorf("DELETE of no slice: HTTP %d %s; want 404", code, body)
	}
}

// The rule for a free partition, on nodes made up here.
func TestPartitionFree(t *testing.T) {
	node := func(name, state string, ready bool, labels map[string]string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			topology.PartitionIDLabel("2x2x2"): "small", topology.PartitionStateLabel("2x2x2"): state,
			topology.PartitionIDLabel("2x4x4"): "half", topology.PartitionIDLabel("4x4x4"): "whole",
		}}}
		for k, v := range labels {
			n.Labels[k] = v
		}
		status := corev1.ConditionTrue
		if !ready {
			status = corev1.ConditionFalse
		}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}
		return n
	}
	pair := func(second *corev1.Node) []*corev1.Node {
		return []*corev1.Node{node("h0", wellknown.PartitionHealthy, true, nil), second}
	}
	for _, tc := range []struct {
		name    string
		nodes   []*corev1.Node
		claimed string
		want    bool
	}{
		{"healthy", pair(node("h1", wellknown.PartitionHealthy, true, nil)), "", true},
		{"a node missing", []*corev1.Node{node("h0", wellknown.PartitionHealthy, true, nil)}, "", false},
		{"a node not ready", pair(node("h1", wellknown.PartitionHealthy, false, nil)), "", false},
		{"incomplete", []*corev1.Node{node("h0", wellknown.PartitionIncomplete, true, nil), node("h1", wellknown.PartitionIncomplete, true, nil)}, "", false},
		{"a node labelled with a slice", pair(node("h1", wellknown.PartitionHealthy, true, map[string]string{wellknown.LabelSlice: "old"})), "", false},
		{"claimed itself", pair(node("h1", wellknown.PartitionHealthy, true, nil)), "small", false},
		{"inside a claimed 4x4x4", pair(node("h1", wellknown.PartitionHealthy, true, nil)), "whole", false},
		{"another partition claimed", pair(node("h1", wellknown.PartitionHealthy, true, nil)), "elsewhere", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := partitionFree("2x2x2", tc.nodes, map[string]bool{tc.claimed: tc.claimed != ""}); got != tc.want {
				t.Errorf("free = %v, want %v", got, tc.want)
			}
		})
	}
}

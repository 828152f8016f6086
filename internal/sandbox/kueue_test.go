package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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

// pinnedKueueVersion is the version tools/sandbox/go.mod requires: the
// one `make sandbox-bin` builds and fetches.
func pinnedKueueVersion(t *testing.T) string {
	t.Helper()
	return pinnedInToolsSandbox(t, "sigs.k8s.io/kueue")
}

// Without its Kueue CRDs the sandbox does not start, and says how to get
// them; a directory of something else than CRDs is refused too.
func TestKueueCRDsMissing(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("GKE_SANDBOX_KUEUE_CRDS", "")
	// Every binary is given (one that is there on any machine): Start
	// stops at the CRDs, whether `make sandbox-bin` has been run or not.
	_, err := Start(context.Background(), Options{KubeAPIServer: "/bin/true", Etcd: "/bin/true",
		KubeScheduler: "/bin/true", KubeControllerManager: "/bin/true", Kwok: "/bin/true", KueueCRDs: empty})
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
		t.Errorf("KueueVersion %q (Info %q), want %s as pinned in tools/sandbox/go.mod", testSandbox.KueueVersion, testSandbox.Info().KueueVersion, want)
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

	// Kueue's own webhooks run too: what they refuse beyond the CRDs'
	// rules (a quota that is not a quantity, a negative quota) is refused,
	// in their words.
	t.Run("Kueue's webhooks", func(t *testing.T) {
		for name, tc := range map[string]struct {
			quota any
			text  string
		}{
			"not a quantity": {"lots", "mclusterqueue.kb.io"},
			"negative":       {"-8", "vclusterqueue.kb.io"},
		} {
			err := create("clusterqueues", kueueObject("ClusterQueue", "", "webhook-"+strings.ReplaceAll(name, " ", "-"), clusterQueueSpec(tc.quota, "google.com/tpu")))
			if err == nil || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("a quota %v: %v; want refused by %s", tc.quota, err, tc.text)
			}
		}
	})
}

// warningRecorder keeps the API server's warnings.
type warningRecorder struct{ messages []string }

func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, message string) {
	w.messages = append(w.messages, message)
}

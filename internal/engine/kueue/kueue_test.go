package kueue

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	container "google.golang.org/api/container/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

func TestKueueTopologyLevels(t *testing.T) {
	t.Parallel()
	want := []string{
		"cloud.google.com/gce-topology-block",
		"cloud.google.com/gke-tpu-partition-4x4x4-id",
		"cloud.google.com/gke-tpu-partition-2x4x4-id",
		"cloud.google.com/gke-tpu-partition-2x2x4-id",
		"cloud.google.com/gke-tpu-partition-2x2x2-id",
		"cloud.google.com/gke-tpu-partition-2x2x1-id",
		"kubernetes.io/hostname",
	}
	if got := (KueueSlicing{SubSlicing: true}).TopologyLevels(); !reflect.DeepEqual(got, want) {
		t.Errorf("with sub-slicing: %v", got)
	}
	if got := (KueueSlicing{}).TopologyLevels(); !reflect.DeepEqual(got, []string{want[0], want[1], want[6]}) {
		t.Errorf("without sub-slicing: %v", got)
	}
}

// The objects come in dependency order and name each other.
func TestKueueObjects(t *testing.T) {
	t.Parallel()
	objs := KueueSlicing{Name: "tpu", Namespaces: []string{"a", "b"}, TPUQuota: 128}.objects()
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.String())
		if o.obj.GetAPIVersion() != "kueue.x-k8s.io/v1beta2" || o.obj.GetName() != "tpu" {
			t.Errorf("%s: %s %s", o, o.obj.GetAPIVersion(), o.obj.GetName())
		}
	}
	if got := strings.Join(kinds, ", "); got != "Topology tpu, ResourceFlavor tpu, AdmissionCheck tpu, ClusterQueue tpu, LocalQueue a/tpu, LocalQueue b/tpu" {
		t.Errorf("order: %s", got)
	}
	cq := objs[3].obj.Object["spec"].(map[string]any)
	if p := firstDifference("spec", map[string]any{
		"resourceGroups":          []any{map[string]any{"flavors": []any{map[string]any{"name": "tpu", "resources": []any{map[string]any{"name": "google.com/tpu", "nominalQuota": "128"}}}}}},
		"admissionChecksStrategy": map[string]any{"admissionChecks": []any{map[string]any{"name": "tpu"}}},
	}, cq); p != "" {
		t.Errorf("ClusterQueue spec differs at %s: %v", p, cq)
	}
	if ac := objs[2].obj.Object["spec"].(map[string]any); ac["controllerName"] != "accelerator.gke.io/slice" {
		t.Errorf("AdmissionCheck %v", ac)
	}
	if rf := objs[1].obj.Object["spec"].(map[string]any); rf["topologyName"] != "tpu" {
		t.Errorf("ResourceFlavor %v", rf)
	}
}

func TestFirstDifference(t *testing.T) {
	t.Parallel()
	want := map[string]any{"a": "1", "b": []any{map[string]any{"c": "256"}}}
	cases := []struct {
		have any
		path string
	}{
		{map[string]any{"a": "1", "b": []any{map[string]any{"c": int64(256), "extra": true}}, "defaulted": 3}, ""},
		{map[string]any{"a": "2", "b": []any{map[string]any{"c": "256"}}}, "spec.a"},
		{map[string]any{"a": "1", "b": []any{map[string]any{"c": "255"}}}, "spec.b[0].c"},
		{map[string]any{"a": "1", "b": []any{}}, "spec.b"},
		{map[string]any{"a": "1"}, "spec.b"},
		{nil, "spec"},
	}
	for _, tc := range cases {
		if got := firstDifference("spec", want, tc.have); got != tc.path {
			t.Errorf("firstDifference(%v) = %q, want %q", tc.have, got, tc.path)
		}
	}
}

func TestTPUQuota(t *testing.T) {
	t.Parallel()
	g := enginetest.NewGKE()
	const cluster = "projects/p/locations/l/clusters/c"
	g.Pools[cluster+"/nodePools/a"] = &container.NodePool{Name: "a", InitialNodeCount: 16}
	g.Pools[cluster+"/nodePools/b"] = &container.NodePool{Name: "b", InitialNodeCount: 8}
	e := newKueueOver(g, nil, boundTo(cluster))
	if q, err := e.tpuQuota(context.Background(), []string{"a", "b"}); err != nil || q != 96 {
		t.Errorf("quota %d, %v; want 96 (24 nodes of 4 chips)", q, err)
	}
	_, err := e.tpuQuota(context.Background(), []string{"a", "gone"})
	testsupport.WantContains(t, err, "node pool gone does not exist in cluster "+cluster)
	if !errors.Is(err, ErrKueueSetup) {
		t.Errorf("a missing pool is %T, want a KueueSetupError (nothing applied, nothing recorded)", err)
	}
	// An apply with no quota set takes its pools' chips, read first: a
	// pool missing, or no cluster named, applies nothing.
	_, err = e.ApplyKueueSlicing(context.Background(), KueueSlicing{Name: "tpu", NodePools: []string{"a", "gone"}}, nil)
	testsupport.WantContains(t, err, "node pool gone does not exist")
	unnamed := errors.New("no cluster here")
	unbound := newKueueOver(g, nil, unnamedBecause(unnamed))
	if _, err := unbound.ApplyKueueSlicing(context.Background(), KueueSlicing{Name: "tpu", NodePools: []string{"a"}}, nil); !errors.Is(err, unnamed) {
		t.Errorf("ApplyKueueSlicing with no cluster named = %v, want the reason none is named", err)
	}
}

// Kueue's refusal to change an immutable spec says to replace the
// resource; other refusals are passed on.
func TestKueueErrorImmutable(t *testing.T) {
	t.Parallel()
	rf := KueueSlicing{Name: "tpu"}.objects()[1]
	gk := schema.GroupKind{Group: kernel.KueueGroup, Kind: "ResourceFlavor"}
	immutableErr := apierrors.NewInvalid(gk, "tpu", field.ErrorList{field.Invalid(field.NewPath("spec"), "object",
		"resourceFlavorSpec are immutable when topologyName is set")})
	testsupport.WantContains(t, kueueError(rf, "applying", immutableErr), "replace the gke_kueue_slicing (terraform apply -replace=ADDRESS)")
	other := apierrors.NewInvalid(gk, "tpu", field.ErrorList{field.Required(field.NewPath("spec", "nodeLabels"), "at least one nodeLabel is required")})
	if err := kueueError(rf, "applying", other); strings.Contains(err.Error(), "-replace") {
		t.Errorf("a refusal that is not of an immutable field: %v", err)
	}
}

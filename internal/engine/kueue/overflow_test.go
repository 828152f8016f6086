package kueue

import (
	"reflect"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
)

func overflowSlicing() KueueSlicing {
	return KueueSlicing{Name: "tpu", Namespaces: []string{"a"}, TPUQuota: 128, NodePools: []string{"p1", "p2"},
		Overflow: &KueueOverflow{NodePools: []string{"flex-a", "flex-b"}, Topology: "2x2x2", TPUQuota: 16, MaxRunDuration: 4 * time.Hour, Retries: 2}}
}

// The overflow's flavor, config and check come after the reservation's
// and before the ClusterQueue that names them, so that a delete (in
// reverse) removes the ClusterQueue first.
func TestKueueOverflowObjects(t *testing.T) {
	t.Parallel()
	objs := overflowSlicing().objects()
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.String())
	}
	want := "Topology tpu, ResourceFlavor tpu, AdmissionCheck tpu, ResourceFlavor tpu-flex, ProvisioningRequestConfig tpu-flex, " +
		"AdmissionCheck tpu-flex, ClusterQueue tpu, LocalQueue a/tpu"
	if got := strings.Join(kinds, ", "); got != want {
		t.Fatalf("order: %s\nwant:  %s", got, want)
	}
	spec := func(i int) map[string]any { return objs[i].obj.Object["spec"].(map[string]any) }
	if p := firstDifference("spec", map[string]any{
		"nodeLabels": map[string]any{"cloud.google.com/gke-tpu-accelerator": "tpu7x", "cloud.google.com/gke-tpu-topology": "2x2x2",
			"cloud.google.com/gke-queued": "true"},
		"tolerations": []any{
			map[string]any{"key": "cloud.google.com/gke-queued", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
			map[string]any{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}},
	}, spec(3)); p != "" {
		t.Errorf("flex ResourceFlavor differs at %s: %v", p, spec(3))
	}
	if _, ok := spec(3)["topologyName"]; ok {
		t.Errorf("flex ResourceFlavor has a topology (its nodes are no partitions): %v", spec(3))
	}
	if p := firstDifference("spec", map[string]any{
		"provisioningClassName": "queued-provisioning.gke.io", "managedResources": []any{"google.com/tpu"},
		"parameters": map[string]any{"maxRunDurationSeconds": "14400"}, "retryStrategy": map[string]any{"backoffLimitCount": int64(2)},
	}, spec(4)); p != "" {
		t.Errorf("ProvisioningRequestConfig differs at %s: %v", p, spec(4))
	}
	if p := firstDifference("spec", map[string]any{"controllerName": "kueue.x-k8s.io/provisioning-request",
		"parameters": map[string]any{"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "tpu-flex"}}, spec(5)); p != "" {
		t.Errorf("flex AdmissionCheck differs at %s: %v", p, spec(5))
	}
	if p := firstDifference("spec", map[string]any{
		"resourceGroups": []any{map[string]any{"coveredResources": []any{"google.com/tpu"}, "flavors": []any{
			map[string]any{"name": "tpu", "resources": []any{map[string]any{"name": "google.com/tpu", "nominalQuota": "128"}}},
			map[string]any{"name": "tpu-flex", "resources": []any{map[string]any{"name": "google.com/tpu", "nominalQuota": "16"}}}}}},
		"admissionChecksStrategy": map[string]any{"admissionChecks": []any{
			map[string]any{"name": "tpu", "onFlavors": []any{"tpu"}}, map[string]any{"name": "tpu-flex", "onFlavors": []any{"tpu-flex"}}}},
		"flavorFungibility": map[string]any{"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
	}, spec(6)); p != "" {
		t.Errorf("ClusterQueue differs at %s: %v", p, spec(6))
	}
	// Read back as an import does.
	got := readOverflow("tpu", objs[6].obj, objs[4].obj)
	if !reflect.DeepEqual(got, overflowSlicing().Overflow) {
		t.Errorf("read back %+v, want %+v", got, overflowSlicing().Overflow)
	}
	if q := flavorQuota(objs[6].obj, "tpu"); q != 128 {
		t.Errorf("reservation quota read back %d, want 128", q)
	}
}

// Without an overflow, the objects are those of before (no drift for
// existing resources).
func TestKueueNoOverflow(t *testing.T) {
	t.Parallel()
	k := overflowSlicing()
	k.Overflow = nil
	objs := k.objects()
	cq := objs[3].obj
	if _, ok := cq.Object["spec"].(map[string]any)["flavorFungibility"]; ok || len(objs) != 5 {
		t.Errorf("objects without overflow: %d, ClusterQueue %v", len(objs), cq.Object)
	}
	if readOverflow("tpu", cq, nil) != nil {
		t.Error("an overflow read from a ClusterQueue without one")
	}
}

func TestKueueOverflowPoolProblems(t *testing.T) {
	t.Parallel()
	flex := func(name, topo string, queued bool) *container.NodePool {
		return &container.NodePool{Name: name, Config: &container.NodeConfig{FlexStart: queued},
			QueuedProvisioning: &container.QueuedProvisioning{Enabled: queued}, PlacementPolicy: &container.PlacementPolicy{TpuTopology: topo}}
	}
	o := &KueueOverflow{NodePools: []string{"ok", "plain", "big", "later"}, Topology: "2x2x2", TPUQuota: 16}
	list := []*container.NodePool{flex("ok", "2x2x2", true), flex("plain", "2x2x2", false), flex("big", "2x2x4", true)}
	for _, atApply := range []bool{false, true} {
		p := &KueueOverflowError{Topology: o.Topology, WrongTopology: map[string]string{}}
		judgeOverflowPools(p, o, list, atApply)
		wantMissing := []string(nil)
		if atApply {
			wantMissing = []string{"later"}
		}
		if !reflect.DeepEqual(p.Missing, wantMissing) || !reflect.DeepEqual(p.NotQueued, []string{"plain"}) ||
			!reflect.DeepEqual(p.WrongTopology, map[string]string{"big": "2x2x4"}) {
			t.Errorf("atApply %v: %+v", atApply, p)
		}
		for _, s := range []string{"plain", `"2x2x4"`} {
			if !strings.Contains(p.Detail(), s) {
				t.Errorf("detail lacks %s: %s", s, p.Detail())
			}
		}
	}
}

func TestKueueOverflowQuota(t *testing.T) {
	t.Parallel()
	for quota, bad := range map[int64]bool{0: true, 4: true, 8: false, 12: true, 24: false} {
		got := overflowQuotaProblem(&KueueOverflow{Topology: "2x2x2", TPUQuota: quota})
		if got.QuotaProblem != bad || bad && !strings.Contains(got.Detail(), "multiple of 8") {
			t.Errorf("quota %d for 2x2x2 (8 chips): %+v, want a problem %v", quota, got, bad)
		}
	}
	if got := reservationTopologies([]string{"4x4x4", "2x2x2", ""}, &KueueOverflow{Topology: "2x2x2"}); !reflect.DeepEqual(got, []string{"4x4x4", "", ""}) {
		t.Errorf("reservation topologies %q", got)
	}
}

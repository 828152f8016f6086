package tpuslice

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// accessNodes are five pools of one healthy partition each in one block;
// np-d1 and np-d2 are on GKE's TPU DRA driver.
func accessNodes() []*corev1.Node {
	node := func(pool, id string, dra bool) *corev1.Node {
		opts := []enginetest.NodeOpt{enginetest.Partition(id, wellknown.PartitionHealthy), enginetest.Labelled(wellknown.LabelTopologyBlock, "b1"), enginetest.Ready}
		if dra {
			opts = append(opts, enginetest.Labelled(wellknown.LabelTPUDRADriver, "true"))
		}
		return enginetest.Node(pool+"-0", pool, opts...)
	}
	return []*corev1.Node{
		node("np-1", "p1", false), node("np-2", "p2", false), node("np-3", "p3", false),
		node("np-d1", "d1", true), node("np-d2", "d2", true),
	}
}

func TestSelectionKeepsToTheSliceDeviceAccess(t *testing.T) {
	t.Parallel()
	e := planEngine(clusterread.Fixed(accessNodes(), nil))
	ctx := t.Context()

	// DRA: only the two DRA partitions qualify; a third is refused with
	// the reason the others were skipped.
	if err := e.checkSelection(ctx, "s", enginetest.Topo(t, "4x4x8"), PartitionSelector{NodePools: []string{"np-1", "np-d1", "np-d2"}}, clusterread.DRA); err != nil {
		t.Errorf("two DRA partitions for a DRA 4x4x8: %v", err)
	}
	err := e.checkSelection(ctx, "s", enginetest.Topo(t, "4x8x8"), PartitionSelector{NodePools: []string{"np-1", "np-2", "np-d1", "np-d2"}}, clusterread.DRA)
	testsupport.WantContains(t, err, "2 without GKE's TPU DRA driver")

	// The device plugin (the default): the DRA pools are skipped.
	err = e.checkSelection(ctx, "s", enginetest.Topo(t, "4x8x8"), PartitionSelector{NodePools: []string{"np-1", "np-2", "np-3", "np-d1"}}, "")
	testsupport.WantContains(t, err, "1 on GKE's TPU DRA driver")
	if err := e.checkSelection(ctx, "s", enginetest.Topo(t, "4x4x12"), PartitionSelector{NodePools: []string{"np-1", "np-2", "np-3", "np-d1"}}, clusterread.DevicePlugin); err != nil {
		t.Errorf("three device-plugin partitions for a 4x4x12: %v", err)
	}

	parts, err := e.reads.ListPartitions(ctx, clusterread.PartitionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var chosen []string
	if chosen, err = choosePartitions(parts, selectQuery{Count: 2, Slice: "s", Access: clusterread.DRA}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(chosen, []string{"d1", "d2"}) {
		t.Errorf("DRA selection chose %v, want [d1 d2]", chosen)
	}
}

func TestPlanRefusesListedPartitionsOfTheOtherAccess(t *testing.T) {
	t.Parallel()
	e := planEngine(clusterread.Fixed(accessNodes(), nil))
	ctx := t.Context()
	cases := []struct {
		name   string
		access clusterread.DeviceAccess
		ids    []string
		want   []string // substrings; none: no problem
	}{
		{"dra on dra nodes", clusterread.DRA, []string{"d1", "d2"}, nil},
		{"device plugin on plain nodes", clusterread.DevicePlugin, []string{"p1", "p2"}, nil},
		{"default on plain nodes", "", []string{"p1", "p2"}, nil},
		{"dra on a plain node", clusterread.DRA, []string{"d1", "p2"}, []string{`device_access = "dra"`, "partition p2 (node pool np-2)", `node_labels = { "cloud.google.com/gke-tpu-dra-driver" = "true" }`}},
		{"device plugin on dra nodes", clusterread.DevicePlugin, []string{"d1", "d2"}, []string{"partition d1 (node pool np-d1), partition d2 (node pool np-d2)", `Set device_access = "dra"`}},
		{"unknown partitions wait for the apply", clusterread.DRA, []string{"new-1", "new-2"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := e.PlanNewSlice(ctx, NewSlicePlan{Name: "s", Topology: "4x4x8", PartitionIDs: c.ids, DeviceAccess: c.access})
			if c.want == nil {
				if v.Problem != NoProblem {
					t.Fatalf("problem %d: %v", v.Problem, v.Err)
				}
				return
			}
			if v.Problem != DeviceAccessMismatch {
				t.Fatalf("problem %d (%v), want DeviceAccessMismatch", v.Problem, v.Err)
			}
			var typed *DeviceAccessError
			if !errors.As(v.Err, &typed) {
				t.Fatalf("%T is not a *DeviceAccessError", v.Err)
			}
			for _, w := range c.want {
				if !strings.Contains(v.Err.Error(), w) {
					t.Errorf("error %q lacks %q", v.Err, w)
				}
			}
		})
	}
}

func TestCreateRefusesListedPartitionsOfTheOtherAccessBeforeMakingTheSlice(t *testing.T) {
	t.Parallel()
	e := planEngine(clusterread.Fixed(accessNodes(), nil))
	_, err := e.CreateSlice(t.Context(), SliceRequest{Name: "s", Type: "tpu7x", Topology: "4x4x8", PartitionIDs: []string{"p1", "p2"}, DeviceAccess: clusterread.DRA}, nil)
	var typed *DeviceAccessError
	if !errors.As(err, &typed) {
		t.Fatalf("create: %v, want a DeviceAccessError", err)
	}
	c, _ := e.cluster(t.Context())
	list, lerr := c.Slices().List(t.Context(), metav1.ListOptions{})
	if lerr != nil {
		t.Fatal(lerr)
	}
	if len(list.Items) != 0 {
		t.Errorf("a refused create left %d Slice(s) behind", len(list.Items))
	}
}

func TestWiringOf(t *testing.T) {
	t.Parallel()
	plugin := WiringOf("train", clusterread.DevicePlugin)
	if !reflect.DeepEqual(plugin.TPUResources, map[string]string{"google.com/tpu": "4"}) || plugin.ClaimTemplate != "" || plugin.PodResourceClaims != nil {
		t.Errorf("device plugin wiring = %+v", plugin)
	}
	if def := WiringOf("train", ""); !reflect.DeepEqual(def, plugin) {
		t.Errorf("default wiring %+v differs from the device plugin's", def)
	}
	dra := WiringOf("train", clusterread.DRA)
	if len(dra.TPUResources) != 0 || dra.ClaimTemplateName != "train-tpu" {
		t.Errorf("dra wiring = %+v", dra)
	}
	var tmpl struct {
		APIVersion, Kind string
		Metadata         struct{ Name string }
		Spec             struct {
			Spec struct {
				Devices struct {
					Requests []struct {
						Name    string
						Exactly struct{ DeviceClassName, AllocationMode string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(dra.ClaimTemplate), &tmpl); err != nil {
		t.Fatal(err)
	}
	reqs := tmpl.Spec.Spec.Devices.Requests
	if tmpl.APIVersion != "resource.k8s.io/v1" || tmpl.Kind != "ResourceClaimTemplate" || tmpl.Metadata.Name != "train-tpu" ||
		len(reqs) != 1 || reqs[0].Name != ClaimName || reqs[0].Exactly.DeviceClassName != "tpu.google.com" || reqs[0].Exactly.AllocationMode != "All" {
		t.Errorf("claim template = %s", dra.ClaimTemplate)
	}
	if !reflect.DeepEqual(dra.PodResourceClaims, []map[string]string{{"name": "tpu", "resourceClaimTemplateName": "train-tpu"}}) {
		t.Errorf("pod resource claims = %v", dra.PodResourceClaims)
	}
}

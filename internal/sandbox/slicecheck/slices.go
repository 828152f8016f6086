package slicecheck

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// missingSlices are the wanted Slices that do not exist yet; stale is the
// first live Slice whose partitions are not the wanted ones, or nil.
func missingSlices(want, live []*unstructured.Unstructured) (create []*unstructured.Unstructured, stale *unstructured.Unstructured) {
	byName := map[string]*unstructured.Unstructured{}
	for _, s := range live {
		byName[s.GetName()] = s
	}
	for _, w := range want {
		if have := byName[w.GetName()]; have != nil {
			hp, _, _ := unstructured.NestedStringSlice(have.Object, "spec", "partitionIds")
			wp, _, _ := unstructured.NestedStringSlice(w.Object, "spec", "partitionIds")
			if !slices.Equal(hp, wp) {
				return nil, have
			}
			continue
		}
		create = append(create, w)
	}
	return create, nil
}

// createSlices creates the Workload's missing Slices, unless other Slices
// hold their partitions, and sets the check Pending while they form.
func (c *Check) createSlices(ctx context.Context, v wlView, create []*unstructured.Unstructured) error {
	if conflict := c.partitionConflicts(create); conflict != "" {
		return c.setCheck(ctx, v, checkRetry, conflict, nil)
	}
	for _, s := range create {
		ids, _, _ := unstructured.NestedStringSlice(s.Object, "spec", "partitionIds")
		topo, _, _ := unstructured.NestedString(s.Object, "spec", "topology")
		c.log.Printf("workload %s/%s: creating Slice %s (%s) on partitions %s", v.namespace, v.name, s.GetName(), topo, strings.Join(ids, ","))
		if _, err := c.dyn.Resource(slicecontroller.SliceGVR).Create(ctx, s, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			msg := fmt.Sprintf("Error creating Slice %q: %v", s.GetName(), err)
			if serr := c.setCheck(ctx, v, checkPending, msg, nil); serr != nil {
				return serr
			}
			return err
		}
	}
	return c.setCheck(ctx, v, checkPending, "Waiting for Slices to be created", nil)
}

// wantedSlices are the Slices the Workload's assignment calls for, or why
// it cannot have them.
func (c *Check) wantedSlices(v wlView) ([]*unstructured.Unstructured, string) {
	var out []*unstructured.Unstructured
	for _, p := range v.podSets {
		ids, err := assignedPartitions(*p.assignment, partitionLabelFor(p.topology), c.nodeLabels)
		if err == nil {
			var groups [][]string
			if groups, err = splitPartitions(ids, p.groups, p.topology.Partitions()); err == nil {
				for i, g := range groups {
					out = append(out, kueueSlice(v, p, i, g))
				}
				continue
			}
		}
		return nil, fmt.Sprintf("pod set %s (%s): %v", p.name, p.topology, err)
	}
	return out, ""
}

// kueueSlice is the Slice of one sub-group of a pod set.
func kueueSlice(v wlView, p wlPodSet, index int, partitions []string) *unstructured.Unstructured {
	ids := make([]any, len(partitions))
	for i, id := range partitions {
		ids[i] = id
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": slicecontroller.SliceGVR.GroupVersion().String(),
		"kind":       "Slice",
		"metadata": map[string]any{
			"name": SliceName(v.namespace, v.name, p.name, index),
			"annotations": map[string]any{
				wellknown.AnnotationOwnerWorkloadNamespace: v.namespace,
				wellknown.AnnotationOwnerWorkloadName:      v.name,
				wellknown.AnnotationOwnerPodSet:            p.name,
			},
		},
		"spec": map[string]any{"type": slicerules.SliceType, "topology": p.topology.String(), "partitionIds": ids},
	}}
}

// partitionConflicts names the partitions of the Slices to create that
// other Slices hold.
func (c *Check) partitionConflicts(create []*unstructured.Unstructured) string {
	held := map[string]string{}
	for _, item := range c.slices.List() {
		u, isObj := item.(*unstructured.Unstructured)
		if !isObj {
			continue
		}
		if v := slicecontroller.ViewOf(u); claims(v) {
			for _, id := range v.Partitions {
				held[id] = v.Name
			}
		}
	}
	var conflicts []string
	for _, s := range create {
		ids, _, _ := unstructured.NestedStringSlice(s.Object, "spec", "partitionIds")
		for _, id := range ids {
			if other, ok := held[id]; ok {
				conflicts = append(conflicts, fmt.Sprintf("%s (used by %s)", id, other))
			}
		}
	}
	if len(conflicts) == 0 {
		return ""
	}
	return "partitions already used by other Slices: " + strings.Join(conflicts, ", ")
}

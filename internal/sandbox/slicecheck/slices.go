package slicecheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// errWorkloadEvicted says syncSlices evicted the Workload rather than make
// its Slices.
var errWorkloadEvicted = errors.New("workload evicted")

// syncSlices makes the Slices the Workload's assignment calls for that do
// not exist yet, and deletes those that exist with other partitions (made
// again once gone). It makes none while the check is Retry or Rejected
// (the admission is the old one). When the Slices to make would take
// partitions other Slices hold, or have too few or too many partitions,
// it evicts the Workload (ConfigurationFailure) and makes none. It returns
// the Slices made and the names of those deleted.
func (c *Check) syncSlices(ctx context.Context, v wlView, own []*unstructured.Unstructured) ([]*unstructured.Unstructured, []string, error) {
	if state, _ := v.check["state"].(string); state == checkRetry || state == checkRejected {
		return nil, nil, nil
	}
	byName := map[string]*unstructured.Unstructured{}
	for _, s := range own {
		byName[s.GetName()] = s
	}
	var create []*unstructured.Unstructured
	var gone []string
	for _, p := range v.podSets {
		if !p.makesSlices() {
			continue
		}
		chunk := len(p.partitions) / p.groups
		for i := range p.groups {
			ids := p.partitions[i*chunk : (i+1)*chunk]
			want := kueueSlice(v, p, i, ids)
			have := byName[want.GetName()]
			if have == nil {
				create = append(create, want)
				continue
			}
			if hp, _, _ := unstructured.NestedStringSlice(have.Object, "spec", "partitionIds"); !slices.Equal(hp, ids) && have.GetDeletionTimestamp() == nil {
				c.log.Printf("workload %s/%s: Slice %s has partitions %v, not %v: deleting it", v.namespace, v.name, have.GetName(), hp, ids)
				if err := c.deleteSlices(ctx, []*unstructured.Unstructured{have}); err != nil {
					return nil, nil, err
				}
				gone = append(gone, have.GetName())
			}
		}
	}
	if len(create) == 0 {
		return nil, gone, nil
	}
	if problem := errors.Join(c.partitionConflicts(create), partitionCounts(create)); problem != nil {
		c.log.Printf("workload %s/%s: not creating its Slices, evicting it: %v", v.namespace, v.name, problem)
		if err := c.evict(ctx, v, ReasonConfigurationFailure, problem.Error()); err != nil {
			return nil, nil, errors.Join(problem, err)
		}
		return nil, nil, errWorkloadEvicted
	}
	var made []*unstructured.Unstructured
	for _, s := range create {
		ids, _, _ := unstructured.NestedStringSlice(s.Object, "spec", "partitionIds")
		topo, _, _ := unstructured.NestedString(s.Object, "spec", "topology")
		c.log.Printf("workload %s/%s: creating Slice %s (%s) on partitions %s", v.namespace, v.name, s.GetName(), topo, strings.Join(ids, ","))
		got, err := c.dyn.Resource(slicecontroller.SliceGVR).Create(ctx, s, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			msg := fmt.Sprintf("Error creating Slice %q: %v", s.GetName(), err)
			c.opts.Events.Event(v.obj, corev1.EventTypeWarning, EventFailedCreateSlice, truncate(msg, maxEventMessage))
			if serr := c.setCheck(ctx, &v, checkPending, msg, ""); serr != nil {
				return nil, nil, errors.Join(err, serr)
			}
			return nil, nil, err
		}
		if got == nil || err != nil {
			got = s
		}
		made = append(made, got)
	}
	c.opts.Events.Event(v.obj, corev1.EventTypeNormal, EventSlicesCreated, truncate(createdMessage(made), maxEventMessage))
	return made, gone, nil
}

// createdMessage is the SlicesCreated event's message: the Slices' names,
// quoted and sorted.
func createdMessage(made []*unstructured.Unstructured) string {
	names := make([]string, len(made))
	for i, s := range made {
		names[i] = strconv.Quote(s.GetName())
	}
	sort.Strings(names)
	return fmt.Sprintf("The Slices %s have been created", strings.Join(names, ", "))
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

// partitionConflicts says which partitions of the Slices to create other
// Slices hold: any Slice, FAILED and being deleted included.
func (c *Check) partitionConflicts(create []*unstructured.Unstructured) error {
	held := map[string]string{}
	for _, item := range c.slices.List() {
		if u, isObj := item.(*unstructured.Unstructured); isObj {
			ids, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "partitionIds")
			for _, id := range ids {
				held[id] = u.GetName()
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
		return nil
	}
	return fmt.Errorf("partition IDs %q are already used by existing Slices", conflicts)
}

// partitionCounts says which of the Slices to create have not as many
// partitions as their topology.
func partitionCounts(create []*unstructured.Unstructured) error {
	var wrong []string
	for _, s := range create {
		topo, _, _ := unstructured.NestedString(s.Object, "spec", "topology")
		ids, _, _ := unstructured.NestedStringSlice(s.Object, "spec", "partitionIds")
		t, err := slicerules.ParseTPU7x(topo)
		if err != nil {
			return err
		}
		if len(ids) != t.Partitions() {
			wrong = append(wrong, s.GetName())
		}
	}
	if len(wrong) > 0 {
		return fmt.Errorf("incorrect number of partitions for slices: %v", wrong)
	}
	return nil
}

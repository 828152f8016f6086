package tpuslice

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// CreateSlice creates the slice and waits until the slice controller makes
// it ready. With a selector it first chooses the partitions (retrying for
// a short settle time, so that pools created earlier in the same apply
// reach the inventory); chosen or listed, the partitions are claimed in
// this process so that other slices of the run keep off them. created is
// called with the partition IDs as soon as the Slice object exists, before
// the wait, so that Terraform records it. The wait fails fast with the
// controller's reason.
func (e *Slices) CreateSlice(ctx context.Context, req SliceRequest, created func(ids []string)) (*clusterread.Slice, error) {
	// A cluster that cannot be read fails here, saying what to check,
	// rather than in a create or a wait.
	if err := e.checkClusterAccess(ctx); err != nil {
		return nil, err
	}
	// The topology is parsed here, once, and passed on parsed.
	t, err := topology.ParseTPU7x(req.Topology)
	if err != nil {
		return nil, &NotFormableError{Err: err}
	}
	if err := e.checkVersion(ctx, t); err != nil {
		return nil, &NotFormableError{Err: err}
	}
	ids := req.PartitionIDs
	// A failure leaves inv nil: selection then reads the inventory
	// again, and reports its error.
	inv, _ := e.reads.Inventory(ctx)
	if len(ids) > 0 {
		// Refused here, before a Slice exists, rather than by the
		// controller with a Slice left behind; checked and claimed as
		// one step, so that two creates of one apply cannot both pass.
		if err := e.checkAndClaim(ctx, inv, req, t); err != nil {
			return nil, &NotFormableError{Err: err}
		}
	}
	if len(ids) == 0 {
		if req.Selector == nil {
			return nil, &SelectionError{Err: fmt.Errorf("slice %s has neither partition IDs nor a partition selector", req.Name)}
		}
		if err := req.Selector.Check(); err != nil {
			return nil, &SelectionError{Err: err}
		}
		chosen, err := e.selectPartitions(ctx, inv, req, t)
		if err != nil {
			return nil, &SelectionError{Err: err}
		}
		ids = chosen
	}
	spec := clusterread.SliceSpec{Name: req.Name, Type: req.Type, Topology: req.Topology, PartitionIDs: ids, RetryOnFailure: req.RetryOnFailure, AllowDegraded: req.AllowDegraded}
	var satisfies func([]string) string
	if len(req.PartitionIDs) == 0 && inv != nil {
		satisfies = func(have []string) string { return e.satisfiesSelector(ctx, inv, req, t, have) }
	}
	return e.createSlice(ctx, spec, satisfies, created)
}

// satisfiesSelector says why the partitions have do not satisfy req's
// selector, or "" when they do: selection among them alone (each usable
// by the slice, all in one block, of the selector's pools and block)
// chooses them all.
func (e *Slices) satisfiesSelector(ctx context.Context, inv *clusterread.Inventory, req SliceRequest, t topology.Topology, have []string) string {
	sel, err := e.policyPools(ctx, *req.Selector)
	if err != nil {
		return err.Error()
	}
	if sel.WorkloadPolicy != "" && len(sel.NodePools) == 0 {
		return noPolicyPools(e.reads.Name(), sel).Error()
	}
	sreq := selectQueryOf(req.Name, t, sel, req.DeviceAccess)
	if parts, err := inv.Partitions(ctx); err == nil {
		if sreq.Block, err = e.resolveBlock(ctx, sel, parts); err != nil {
			return err.Error()
		}
	}
	parts, err := inv.PartitionsOf(ctx, sreq.shape())
	if err != nil {
		return err.Error()
	}
	want := clusterread.SetOf(have)
	var theirs []clusterread.Partition
	for _, p := range parts {
		if want[p.ID] {
			theirs = append(theirs, p)
		}
	}
	if len(theirs) != len(have) {
		return fmt.Sprintf("%d of them are not %s partitions of the cluster", len(have)-len(theirs), sreq.shape())
	}
	got, err := choosePartitions(theirs, sreq)
	if err != nil {
		return err.Error()
	}
	if !sameSet(got, have) {
		return fmt.Sprintf("the topology needs %d partitions, not %d", sreq.Count, len(have))
	}
	return ""
}

// setRetryOnFailure sets or clears the slice's retry-on-failure
// annotation, in place.
func (e *Slices) setRetryOnFailure(ctx context.Context, name string, retry bool) error {
	slices, err := e.sliceClient(ctx)
	if err != nil {
		return err
	}
	value := "null"
	if retry {
		value = `"true"`
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}}}`, wellknown.AnnotationRetryOnFailure, value)
	tflog.Info(ctx, "Updating Slice", map[string]any{"slice": name, "retry_on_failure": retry})
	if _, err := slices.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("setting %s on Slice %s: the Slice no longer exists; run terraform apply again to create it", wellknown.AnnotationRetryOnFailure, name)
		}
		return fmt.Errorf("setting %s on Slice %s: %w", wellknown.AnnotationRetryOnFailure, name, err)
	}
	return nil
}

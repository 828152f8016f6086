package clusterread

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Claim records that this process chose ids for the named slice,
// replacing what it chose for that slice before.
func (inv *Inventory) Claim(slice string, ids []string) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.claims == nil {
		inv.claims = map[string]string{}
	}
	for id, s := range inv.claims {
		if s == slice {
			delete(inv.claims, id)
		}
	}
	for _, id := range ids {
		inv.claims[id] = slice
	}
}

// SelectAndClaim chooses partitions of shape for the named slice with
// choose, among the partitions of that shape, and claims them, as one
// step: concurrent selections in this process see each other's choices.
// parts are the partitions choose was given.
func (inv *Inventory) SelectAndClaim(ctx context.Context, slice, shape string, choose func([]Partition) ([]string, error)) (ids []string, parts []Partition, err error) {
	inv.selecting.Lock()
	defer inv.selecting.Unlock()
	parts, err = inv.PartitionsOf(ctx, shape)
	if err != nil {
		return nil, nil, err
	}
	ids, err = choose(parts)
	if err == nil {
		inv.Claim(slice, ids)
	}
	return ids, parts, err
}

// ClaimChecked claims ids for the named slice if check passes, as one
// step with SelectAndClaim's: no selection or other check of this process
// runs between the check and the claim.
func (inv *Inventory) ClaimChecked(slice string, ids []string, check func() error) error {
	inv.selecting.Lock()
	defer inv.selecting.Unlock()
	if err := check(); err != nil {
		return err
	}
	inv.Claim(slice, ids)
	return nil
}

// holders maps every partition ID (of any shape) that a Slice lists, or
// that this process claimed for a slice, to that slice; with liveOnly,
// Slices that failed for good are left out.
func (inv *Inventory) holders(liveOnly bool) map[string]string {
	users := map[string]string{}
	inv.mu.Lock()
	for id, slice := range inv.claims {
		users[id] = slice
	}
	inv.mu.Unlock()
	for _, o := range inv.slices.List() {
		u, ok := o.(*unstructured.Unstructured)
		if !ok || u.GetDeletionTimestamp() != nil {
			continue
		}
		if liveOnly {
			if s := SliceOf(u); s.State == SliceFailed || (s.State == SliceCreationFailed && !s.RetryOnFailure) {
				continue
			}
		}
		ids, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "partitionIds")
		for _, id := range ids {
			users[id] = u.GetName()
		}
	}
	return users
}

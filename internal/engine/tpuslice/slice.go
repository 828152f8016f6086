package tpuslice

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func (e *Slices) sliceClient(ctx context.Context) (dynamic.ResourceInterface, error) {
	c, err := e.cluster(ctx)
	if err != nil {
		return nil, err
	}
	return c.Slices(), nil
}

// createSlice creates the Slice, reports it through created with its
// partitions (so that Terraform records it before the wait), then waits
// with a watch until the slice controller makes it ready, or fails fast
// with the controller's reason. A Slice of that name that exists already
// is adopted when it matches the spec (sliceDifferences; satisfies, when
// set, judges its partitions instead of the spec's list), as a killed
// apply leaves it; otherwise the create fails with an ExistsError. The
// create is recorded while it works (kernel.CreateRecords): one that finds
// another creator's fresh record fails with a CreatorAtWorkError.
func (e *Slices) createSlice(ctx context.Context, s clusterread.SliceSpec, satisfies func(ids []string) string, created func(ids []string)) (*clusterread.Slice, error) {
	slices, err := e.sliceClient(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]any, len(s.PartitionIDs))
	for i, id := range s.PartitionIDs {
		ids[i] = id
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": clusterread.SliceAPIVersion,
		"kind":       "Slice",
		"metadata":   map[string]any{"name": s.Name},
		"spec":       map[string]any{"type": s.Type, "topology": s.Topology, "partitionIds": ids},
	}}
	if s.RetryOnFailure {
		obj.SetAnnotations(map[string]string{wellknown.AnnotationRetryOnFailure: "true"})
	}
	release, err := e.records.Record(ctx, e.cluster, "slice", "Slice", s.Name)
	if err != nil {
		return nil, err
	}
	defer release()
	tflog.Info(ctx, "Creating Slice", map[string]any{"slice": s.Name, "topology": s.Topology, "partitions": strings.Join(s.PartitionIDs, ",")})
	if _, err := slices.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			other, rerr := slices.Get(ctx, s.Name, metav1.GetOptions{})
			if rerr != nil {
				return nil, fmt.Errorf("creating Slice %s: a Slice of that name exists, but reading it failed: %w", s.Name, rerr)
			}
			if clusterread.KueueOwner(other) != "" {
				return nil, clusterread.KueueOwnedError(clusterread.SliceOf(other))
			}
			have := clusterread.SliceOf(other)
			if diff := sliceDifferences(have, s, satisfies); len(diff) > 0 {
				return nil, &kernel.ExistsError{Kind: "Slice", ID: s.Name, Differences: diff, ImportID: s.Name}
			}
			return e.adoptSlice(ctx, s, have, created)
		}
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("creating Slice %s: the cluster does not serve slices.accelerator.gke.io; enable the slice controller (gcloud container clusters update --enable-slice-controller): %w", s.Name, err)
		}
		return nil, fmt.Errorf("creating Slice %s: %w", s.Name, err)
	}
	created(s.PartitionIDs)
	return e.waitSlice(ctx, s.Name, s.AllowDegraded, s.RetryOnFailure)
}

// adoptSlice takes an existing Slice that matches the spec as the
// create's own: its partitions are claimed in this process, its
// retry-on-failure annotation set as the spec has it, and it is reported
// through created and waited for.
func (e *Slices) adoptSlice(ctx context.Context, s clusterread.SliceSpec, have *clusterread.Slice, created func(ids []string)) (*clusterread.Slice, error) {
	state := have.State
	if state == "" {
		state = "state not yet reported"
	}
	reason := fmt.Sprintf("Slice %s already existed (%s) and matches the configuration (type, topology, partitions): it was adopted "+
		"instead of created again. An apply that was killed before it recorded the slice leaves it so.", s.Name, state)
	tflog.Warn(ctx, "Adopted Slice", map[string]any{"slice": s.Name, "partitions": strings.Join(have.PartitionIDs, ","), "reason": reason})
	if inv, err := e.reads.Inventory(ctx); err == nil {
		inv.Claim(s.Name, have.PartitionIDs)
	}
	if have.RetryOnFailure != s.RetryOnFailure {
		if err := e.setRetryOnFailure(ctx, s.Name, s.RetryOnFailure); err != nil {
			return nil, err
		}
	}
	created(have.PartitionIDs)
	out, err := e.waitSlice(ctx, s.Name, s.AllowDegraded, s.RetryOnFailure)
	if out != nil {
		out.Adopted = reason
	}
	return out, err
}

// ResumeSlice waits for a Slice whose create was interrupted (it is in the
// state, still forming), as CreateSlice does after the create, recorded as
// its create is. ctx is the
// resume's own: the caller bounds it by the create timeout and begins the
// update's timeout only after it, so that nothing after the wait runs on a
// context the wait used up.
func (e *Slices) ResumeSlice(ctx context.Context, name string, allowDegraded, retry bool) (*clusterread.Slice, error) {
	tflog.Info(ctx, "Resuming the wait for an interrupted slice create", map[string]any{"slice": name})
	release, err := e.records.Record(ctx, e.cluster, "slice", "Slice", name)
	if err != nil {
		return nil, err
	}
	defer release()
	return e.waitSlice(ctx, name, allowDegraded, retry)
}

// errSliceFailed marks a controller verdict (not a timeout or an API error).
var errSliceFailed = errors.New("slice failed")

// waitSlice follows the Slice through the inventory's one watch of the
// Slices (clusterread.Reads.AwaitSlice: no polling while that watch
// follows the cluster) until the slice is ACTIVE (or ACTIVE_DEGRADED when
// allowed). It fails as soon as the controller reports SliceCreationFailed (unless
// retry-on-failure) or FAILED, with the controller's message, each
// partition's state and the slice's events.
func (e *Slices) waitSlice(ctx context.Context, name string, allowDegraded, retry bool) (*clusterread.Slice, error) {
	slices, err := e.sliceClient(ctx)
	if err != nil {
		return nil, err
	}
	started := time.Now()
	var last *clusterread.Slice
	lastState := ""
	err = e.reads.AwaitSlice(ctx, slices, name, func(u *unstructured.Unstructured, gone bool) (bool, error) {
		if gone {
			if u == nil {
				return false, fmt.Errorf("%w: Slice %s does not exist", errSliceFailed, name)
			}
			return false, fmt.Errorf("%w: the Slice was deleted while waiting for it", errSliceFailed)
		}
		s := clusterread.SliceOf(u)
		last = s
		if s.State != lastState {
			tflog.Info(ctx, "Slice state", map[string]any{"slice": name, "state": s.State, "message": s.Message, "elapsed": time.Since(started).Round(time.Millisecond).String()})
			lastState = s.State
		}
		switch s.State {
		case clusterread.SliceActive:
			return s.Ready, nil
		case clusterread.SliceActiveDegraded:
			if allowDegraded {
				return s.Ready, nil
			}
			return false, fmt.Errorf("%w: the slice formed ACTIVE_DEGRADED (%s), and allow_degraded is false", errSliceFailed, s.Message)
		case clusterread.SliceCreationFailed:
			if retry {
				return false, nil
			}
			return false, fmt.Errorf("%w: %s: %s", errSliceFailed, s.State, s.Message)
		case clusterread.SliceFailed:
			return false, fmt.Errorf("%w: %s: %s", errSliceFailed, s.State, s.Message)
		}
		return false, nil
	})
	if err == nil {
		return last, nil
	}
	if lost := e.sliceWaitLost(ctx, name, last, err); lost != nil {
		return last, lost
	}
	if errors.Is(err, errSliceFailed) {
		return last, fmt.Errorf("slice %s failed: %s%s", name, strings.TrimPrefix(err.Error(), errSliceFailed.Error()+": "), e.diagnose(ctx, name, last))
	}
	state := "not yet reported by the slice controller"
	if last != nil && last.State != "" {
		state = last.State
		if last.Message != "" {
			state += " (" + last.Message + ")"
		}
	}
	return last, fmt.Errorf("gave up after %s waiting for slice %s to become ACTIVE; its last state was %s: %w%s",
		time.Since(started).Round(time.Second), name, state, ctx.Err(), e.diagnose(context.Background(), name, last))
}

// diagnose lists the state of each of the slice's partitions and the
// slice's events, for an error message.
func (e *Slices) diagnose(ctx context.Context, name string, s *clusterread.Slice) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var b strings.Builder
	if s != nil {
		if inv, err := e.reads.Inventory(ctx); err == nil {
			if parts, err := inv.Partitions(ctx); err == nil {
				byID := map[string]clusterread.Partition{}
				for _, p := range parts {
					byID[p.ID] = p
				}
				b.WriteString("\nPartitions:")
				for _, id := range s.PartitionIDs {
					p, ok := byID[id]
					if !ok {
						fmt.Fprintf(&b, "\n  %s: no nodes carry this partition ID", id)
						continue
					}
					fmt.Fprintf(&b, "\n  %s: %s, node pool %s, %d/%d nodes Ready", id, p.State, p.NodePool, p.Ready, p.Nodes)
					if p.Slice != "" && p.Slice != name {
						fmt.Fprintf(&b, ", used by slice %s", p.Slice)
					}
				}
			}
		}
	}
	if c, err := e.cluster(ctx); err == nil {
		selectors := []fields.Selector{fields.OneTermEqualSelector("involvedObject.name", name), fields.OneTermEqualSelector("involvedObject.kind", "Slice")}
		if s != nil && s.UID != "" {
			// Only this Slice's events, not those of an earlier one of
			// the same name.
			selectors = append(selectors, fields.OneTermEqualSelector("involvedObject.uid", s.UID))
		}
		events, err := c.Events().List(ctx, metav1.ListOptions{FieldSelector: fields.AndSelectors(selectors...).String()})
		if err == nil && len(events.Items) > 0 {
			sort.Slice(events.Items, func(i, j int) bool { return events.Items[i].LastTimestamp.Before(&events.Items[j].LastTimestamp) })
			b.WriteString("\nEvents:")
			for _, ev := range events.Items {
				fmt.Fprintf(&b, "\n  %s %s: %s", ev.Type, ev.Reason, ev.Message)
			}
		}
	}
	return b.String()
}

// SliceDeleted says how a delete of a Slice ended, beyond its being gone.
type SliceDeleted struct {
	// KueueWorkload is set when the Slice of that name is one that Kueue's
	// slice admission check made for this workload: it was left in place.
	KueueWorkload string
	// FinalizerRemoved: the delete outlasted its timeout and the slice
	// controller's finalizer was removed.
	FinalizerRemoved bool
	// Message says either, for a warning; empty when there is nothing to
	// say.
	Message string
}

// DeleteSlice deletes the Slice and waits (with a watch) through
// DEACTIVATING and INCOMPLETE until it is gone. When ctx ends first and
// forceFinalizer is set, it removes the controller's finalizer, as GKE's
// documented procedure does, and returns a warning saying so.
func (e *Slices) DeleteSlice(ctx context.Context, name string, forceFinalizer bool) (SliceDeleted, error) {
	slices, err := e.sliceClient(ctx)
	if err != nil {
		return SliceDeleted{}, err
	}
	// A Slice of that name that Kueue made (after ours was deleted out of
	// band) is not ours to delete.
	if cur, err := slices.Get(ctx, name, metav1.GetOptions{}); err == nil && clusterread.KueueOwner(cur) != "" {
		tflog.Warn(ctx, "Not deleting a Slice that Kueue owns", map[string]any{"slice": name, "workload": clusterread.KueueOwner(cur)})
		return SliceDeleted{KueueWorkload: clusterread.KueueOwner(cur), Message: fmt.Sprintf(
			"Slice %s is now owned by Kueue (workload %s), not by Terraform: it was left in place and removed from the state.", name, clusterread.KueueOwner(cur))}, nil
	} else if apierrors.IsNotFound(err) {
		return SliceDeleted{}, nil
	}
	tflog.Info(ctx, "Deleting Slice", map[string]any{"slice": name})
	if err := slices.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return SliceDeleted{}, nil
		}
		return SliceDeleted{}, fmt.Errorf("deleting Slice %s: %w", name, err)
	}
	last := ""
	gone, err := e.waitGone(ctx, slices, name, &last)
	if gone {
		return SliceDeleted{}, nil
	}
	if err != nil && ctx.Err() == nil {
		return SliceDeleted{}, err
	}
	if !forceFinalizer {
		return SliceDeleted{}, fmt.Errorf("gave up waiting for Slice %s to be deleted; its last state was %q. Wait for the slice controller and "+
			"run the destroy again, or set force_remove_finalizer = true in the configuration, run terraform apply (a destroy uses the "+
			"value in the state, so the apply must record it first), then destroy again: the finalizer is then removed after the delete timeout: %w",
			name, last, ctx.Err())
	}
	patchCtx, cancel := context.WithTimeout(context.Background(), clusterread.FinalizerPatchTimeout)
	defer cancel()
	_, err = slices.Patch(patchCtx, name, types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/finalizers"}]`), metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return SliceDeleted{}, fmt.Errorf("removing the finalizer of Slice %s after the delete timeout: %w", name, err)
	}
	if gone, err := e.waitGone(patchCtx, slices, name, &last); !gone {
		return SliceDeleted{}, fmt.Errorf("the Slice %s is still there after its finalizer was removed: %v", name, err)
	}
	return SliceDeleted{FinalizerRemoved: true, Message: fmt.Sprintf(
		"Slice %s did not finish deleting within the delete timeout (last state %q); its finalizer %s was removed, as GKE documents. "+
			"Check that no node keeps the %s label.", name, last, wellknown.SliceFinalizer, wellknown.LabelSlice)}, nil
}

func (e *Slices) waitGone(ctx context.Context, slices dynamic.ResourceInterface, name string, last *string) (bool, error) {
	err := e.reads.AwaitSlice(ctx, slices, name, func(u *unstructured.Unstructured, gone bool) (bool, error) {
		if gone {
			return true, nil
		}
		if s := clusterread.SliceOf(u); s.State != "" && s.State != *last {
			*last = s.State
			tflog.Info(ctx, "Slice deleting", map[string]any{"slice": name, "state": s.State})
		}
		return false, nil
	})
	return err == nil, err
}

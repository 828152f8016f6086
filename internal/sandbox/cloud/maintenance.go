package cloud

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Maintenance states of a sub-block, as UpcomingMaintenance.maintenanceStatus
// names them.
const (
	MaintenancePending = "PENDING"
	MaintenanceOngoing = "ONGOING"
)

// MaintenanceState is a sub-block's maintenance and faults.
type MaintenanceState struct {
	// Status is "", MaintenancePending or MaintenanceOngoing.
	Status string
	// WindowStart is when pending maintenance is planned to start, or when
	// ongoing maintenance started.
	WindowStart time.Time
	// FaultGen counts reported faults, so that a repair applies only to
	// the latest.
	FaultGen int
}

// PendingMaintenance is maintenance announced at now: planned a week
// later, reschedulable by the customer.
func PendingMaintenance(now time.Time) MaintenanceState {
	return MaintenanceState{Status: MaintenancePending, WindowStart: now.Add(7 * 24 * time.Hour).UTC().Truncate(time.Second)}
}

// GKE's node labels for host maintenance: the planned start of pending
// maintenance (Unix seconds), and ONGOING while maintenance runs.
const (
	LabelScheduledMaintenanceTime = "cloud.google.com/scheduled-maintenance-time"
	LabelActiveNodeMaintenance    = "cloud.google.com/active-node-maintenance"
)

// MaintenanceLabels are GKE's maintenance labels of a node on a sub-block
// with maintenance m: none without maintenance.
func MaintenanceLabels(m MaintenanceState) map[string]string {
	switch m.Status {
	case MaintenancePending:
		return map[string]string{LabelScheduledMaintenanceTime: strconv.FormatInt(m.WindowStart.Unix(), 10)}
	case MaintenanceOngoing:
		return map[string]string{LabelActiveNodeMaintenance: MaintenanceOngoing}
	}
	return nil
}

// AfterHostChange makes the nodes of the pools on the sub-blocks follow
// their hosts' health and maintenance, bounded.
func (w *World) AfterHostChange(subs []*SubBlockState) error {
	ctx, cancel := context.WithTimeout(context.Background(), w.nodeReadyTimeout()+30*time.Second)
	defer cancel()
	for _, s := range subs {
		w.Mu.Lock()
		pool := w.NodePools[s.NodePool]
		w.Mu.Unlock()
		if pool == nil {
			continue
		}
		if err := w.ReconcileNodes(ctx, pool); err != nil {
			return err
		}
		if err := w.LabelMaintenance(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// LabelMaintenance puts GKE's maintenance labels on the nodes of the pool
// on the sub-block, or takes them off, as its maintenance says.
func (w *World) LabelMaintenance(ctx context.Context, s *SubBlockState) error {
	w.Mu.Lock()
	pool, m := s.NodePool, s.Maint
	w.Mu.Unlock()
	if pool == "" {
		return nil
	}
	labels := map[string]any{LabelScheduledMaintenanceTime: nil, LabelActiveNodeMaintenance: nil}
	for k, v := range MaintenanceLabels(m) {
		labels[k] = v
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
	if err != nil {
		return err
	}
	nodes, err := w.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool})
	if err != nil {
		return err
	}
	for _, n := range nodes.Items {
		if _, err := w.Kube.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("labelling node %s for maintenance: %w", n.Name, err)
		}
	}
	return nil
}

// SetMaintenance announces maintenance on a sub-block (status PENDING) or
// withdraws it (status ""), as Compute Engine does about 90 days ahead.
// Ongoing maintenance cannot be changed.
func (w *World) SetMaintenance(ctx context.Context, reservation, block, subBlock, status string) error {
	if status != "" && status != MaintenancePending {
		return fmt.Errorf("maintenance %q is not PENDING (or empty to withdraw it)", status)
	}
	w.Mu.Lock()
	s := w.FindSubBlock(reservation, block, subBlock)
	switch {
	case s == nil:
		w.Mu.Unlock()
		return fmt.Errorf("sub-block %s/%s/%s is not in the inventory", reservation, block, subBlock)
	case s.Maint.Status == MaintenanceOngoing:
		w.Mu.Unlock()
		return fmt.Errorf("sub-block %s/%s/%s has maintenance ongoing", reservation, block, subBlock)
	}
	gen := s.Maint.FaultGen
	if status == MaintenancePending {
		s.Maint = PendingMaintenance(time.Now())
	} else {
		s.Maint = MaintenanceState{}
	}
	s.Maint.FaultGen = gen
	w.Mu.Unlock()
	return w.LabelMaintenance(ctx, s)
}

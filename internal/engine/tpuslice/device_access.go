package tpuslice

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// DeviceAccessError says which listed partitions are on nodes that do not
// offer the slice's device access, and what to write instead.
type DeviceAccessError struct {
	Access clusterread.DeviceAccess
	// Partitions are "ID (node pool P)", one per mismatched partition.
	Partitions []string
}

func (e *DeviceAccessError) Error() string {
	if e.Access == clusterread.DRA {
		return fmt.Sprintf("device_access = \"dra\", but partition %s is on nodes without GKE's TPU DRA driver: a pod there "+
			"can reach the chips only through the google.com/tpu device plugin, and its claim would never be allocated. "+
			"Add node_labels = { %q = \"true\" } to the node pool (which replaces it), or set device_access = \"device_plugin\"",
			strings.Join(e.Partitions, ", partition "), wellknown.LabelTPUDRADriver)
	}
	return fmt.Sprintf("device_access = \"device_plugin\" (the default), but partition %s is on nodes of GKE's TPU DRA driver "+
		"(node label %s=true), which have no google.com/tpu capacity: a pod requesting it would stay Pending. "+
		"Set device_access = \"dra\", or remove the label from the node pool",
		strings.Join(e.Partitions, ", partition "), wellknown.LabelTPUDRADriver)
}

// checkListedAccess returns a DeviceAccessError for the listed partitions
// of the slice's shape whose nodes exist and do not offer the access. IDs
// not in the cluster yet, or a cluster that cannot be read yet, are not
// reported: the create checks again before it makes the Slice.
func (e *Slices) checkListedAccess(ctx context.Context, t topology.Topology, ids []string, access clusterread.DeviceAccess) error {
	inv, known, err := e.reads.Known(ctx)
	if !known {
		return err
	}
	parts, err := inv.LivePartitionsOf(ctx, t.PartitionShape())
	if err != nil {
		return err
	}
	byID := make(map[string]clusterread.Partition, len(parts))
	for _, p := range parts {
		byID[p.ID] = p
	}
	var bad []string
	for _, id := range ids {
		if p, ok := byID[id]; ok && access.Mismatch(p) != "" {
			bad = append(bad, fmt.Sprintf("%s (node pool %s)", id, p.NodePool))
		}
	}
	if len(bad) > 0 {
		return &DeviceAccessError{Access: access.OrDefault(), Partitions: bad}
	}
	return nil
}

// CheckDeviceAccess is checkListedAccess for a slice of topology topo: a
// plan or an update of an existing slice whose device_access changes.
func (e *Slices) CheckDeviceAccess(ctx context.Context, topo string, ids []string, access clusterread.DeviceAccess) error {
	t, err := topology.ParseTPU7x(topo)
	if err != nil {
		return err
	}
	return e.checkListedAccess(ctx, t, ids, access)
}

// Wiring is what a pod of a workload on the slice carries to reach its
// chips, in the form of the slice's device access. For the device plugin:
// the container resources (requests and limits). For DRA: the
// ResourceClaimTemplate to apply in the workload's namespace (a JSON
// manifest), the pod's resourceClaims entry that references it, and no
// container resources (the container lists the claim by name in
// resources.claims instead).
type Wiring struct {
	TPUResources map[string]string
	// ClaimTemplate is the ResourceClaimTemplate manifest (JSON), empty
	// for the device plugin; ClaimTemplateName its name.
	ClaimTemplate, ClaimTemplateName string
	// PodResourceClaims are the pod's spec.resourceClaims entries.
	PodResourceClaims []map[string]string
}

// ClaimName is the name of the pod's claim, which a container lists in
// resources.claims.
const ClaimName = "tpu"

// WiringOf is the wiring of a pod on the slice name with the access.
func WiringOf(name string, access clusterread.DeviceAccess) Wiring {
	if access.OrDefault() == clusterread.DevicePlugin {
		return Wiring{TPUResources: map[string]string{wellknown.ResourceTPU: fmt.Sprint(topology.ChipsPerHost)}}
	}
	tmpl := name + "-" + ClaimName
	manifest, _ := json.Marshal(map[string]any{
		"apiVersion": "resource.k8s.io/v1",
		"kind":       "ResourceClaimTemplate",
		"metadata":   map[string]any{"name": tmpl},
		"spec": map[string]any{"spec": map[string]any{"devices": map[string]any{"requests": []any{map[string]any{
			"name": ClaimName,
			// All: the driver cannot give part of a host.
			"exactly": map[string]any{"deviceClassName": wellknown.DeviceClassTPU, "allocationMode": "All"},
		}}}}},
	})
	return Wiring{
		TPUResources:      map[string]string{},
		ClaimTemplate:     string(manifest),
		ClaimTemplateName: tmpl,
		PodResourceClaims: []map[string]string{{"name": ClaimName, "resourceClaimTemplateName": tmpl}},
	}
}

// AccessOf is the device access the slice's partitions offer, for an
// imported slice whose configuration is not known: DRA when every node of
// every listed partition found is on GKE's TPU DRA driver, else the device
// plugin (also when the nodes cannot be read).
func (e *Slices) AccessOf(ctx context.Context, topo string, ids []string) clusterread.DeviceAccess {
	t, err := topology.ParseTPU7x(topo)
	if err != nil || len(ids) == 0 {
		return clusterread.DevicePlugin
	}
	inv, known, _ := e.reads.Known(ctx)
	if !known {
		return clusterread.DevicePlugin
	}
	parts, err := inv.LivePartitionsOf(ctx, t.PartitionShape())
	if err != nil {
		return clusterread.DevicePlugin
	}
	want, found := clusterread.SetOf(ids), 0
	for _, p := range parts {
		if !want[p.ID] {
			continue
		}
		if clusterread.DRA.Mismatch(p) != "" {
			return clusterread.DevicePlugin
		}
		found++
	}
	if found == 0 {
		return clusterread.DevicePlugin
	}
	return clusterread.DRA
}

// Package reservation owns the engine's reads of reservation blocks: a
// block with its sub-blocks (shared for a few seconds by the checks of
// many node pools), the sub-blocks' maintenance, the node pools on them,
// the checks of a pool's target, and the parser of a pool's reservation
// target. It reads the cluster through ClusterReads, which the engine's
// owner of cluster reads implements.
package reservation

import (
	"context"
	"time"

	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// ClusterReads is what the reservation reads need of the cluster: its
// node pools (from the shared list, or listed now) and its nodes (from
// the inventory).
type ClusterReads interface {
	// Name is the name of the cluster the engine is bound to ("" when the
	// provider names none).
	Name() string
	// NodePools is the cluster's node pools from the shared list.
	NodePools(ctx context.Context, cluster string) ([]*container.NodePool, error)
	// FreshNodePools lists the cluster's node pools now.
	FreshNodePools(ctx context.Context, cluster string) ([]*container.NodePool, error)
	// Nodes lists the nodes that have the labels ("" values: the label is
	// set), from the inventory.
	Nodes(ctx context.Context, labels map[string]string) ([]*corev1.Node, error)
	// Start starts the inventory's first lists without waiting for them;
	// a failure is left to the read that needs the inventory.
	Start(ctx context.Context)
}

// Reservations reads reservation blocks for one engine, sharing reads
// (see TTL) and each block's maintenance (see MaintenanceTTL).
type Reservations struct {
	compute     kernel.Compute
	reads       ClusterReads
	blocks      *blockCache
	maintenance *maintenanceCache
}

// New returns the reservation reads over compute and the cluster's
// reads; nothing is read until first use.
func New(compute kernel.Compute, reads ClusterReads) *Reservations {
	return &Reservations{compute: compute, reads: reads, blocks: newBlockCache(time.Now, nil), maintenance: newMaintenanceCache()}
}

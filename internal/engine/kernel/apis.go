// Package kernel is what every package of the engine shares: the
// interfaces of the APIs the clients implement (Compute, GKE, the
// cluster's), their operations, the typed errors and the resources the
// engine names. It imports nothing of the engine.
package kernel

import (
	"context"

	"cloud.google.com/go/compute/apiv1/computepb"
	container "google.golang.org/api/container/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/util/watchlist"
)

// Compute is what the engine needs from the Compute Engine API. Insert and
// Delete return the operation they started, which the engine waits for.
type Compute interface {
	InsertResourcePolicy(ctx context.Context, project, region string, policy *computepb.ResourcePolicy) (Operation, error)
	GetResourcePolicy(ctx context.Context, project, region, name string) (*computepb.ResourcePolicy, error)
	DeleteResourcePolicy(ctx context.Context, project, region, name string) (Operation, error)
	GetReservation(ctx context.Context, project, zone, reservation string) (*computepb.Reservation, error)
	GetReservationBlock(ctx context.Context, project, zone, reservation, block string) (*computepb.ReservationBlock, error)
	ListReservationSubBlocks(ctx context.Context, project, zone, reservation, block string) ([]*computepb.ReservationSubBlock, error)
	GetReservationSubBlock(ctx context.Context, project, zone, reservation, block, subBlock string) (*computepb.ReservationSubBlock, error)
	// ListReservationSlots is the reservation slots of a sub-block
	// (reservationSlots.list): one per host.
	ListReservationSlots(ctx context.Context, project, zone, reservation, block, subBlock string) ([]*computepb.ReservationSlot, error)
	// GetRegionOperation reads a regional operation by its name
	// (regionOperations.get), as an Operation that can be polled: an
	// insert whose create was recorded before it ended.
	GetRegionOperation(ctx context.Context, project, region, name string) (Operation, error)
}

// GKE is what the engine needs from the GKE API. Names are full resource
// names (projects/P/locations/L/...).
type GKE interface {
	// GetCluster is clusters.get (projects/P/locations/L/clusters/C).
	GetCluster(ctx context.Context, name string) (*container.Cluster, error)
	CreateNodePool(ctx context.Context, cluster string, pool *container.NodePool) (*container.Operation, error)
	GetNodePool(ctx context.Context, name string) (*container.NodePool, error)
	// ListNodePools lists the node pools of the cluster
	// (projects/P/locations/L/clusters/C).
	ListNodePools(ctx context.Context, cluster string) ([]*container.NodePool, error)
	DeleteNodePool(ctx context.Context, name string) (*container.Operation, error)
	// UpdateNodePool is nodePools.update; SetNodePoolManagement is
	// nodePools.setManagement.
	UpdateNodePool(ctx context.Context, name string, req *container.UpdateNodePoolRequest) (*container.Operation, error)
	SetNodePoolManagement(ctx context.Context, name string, req *container.SetNodePoolManagementRequest) (*container.Operation, error)
	GetOperation(ctx context.Context, name string) (*container.Operation, error)
}

// Cluster is what the engine needs from the cluster's API server: nodes
// (list and watch), events (list, for failure reports), namespaces (get,
// for the LocalQueues of the Kueue + TAS path), the discovery of the
// APIs it serves, Slices, and the Leases of a namespace (the records of
// creates at work).
type Cluster interface {
	Nodes() corev1client.NodeInterface
	Events() corev1client.EventInterface
	Namespaces() corev1client.NamespaceInterface
	// Discovery tells which API groups, versions and resources the
	// cluster serves (whether Kueue is installed, and which version).
	Discovery() discovery.DiscoveryInterface
	Slices() dynamic.ResourceInterface
	// Kueue is a Kueue API resource (kueue.x-k8s.io/v1beta2), for the
	// objects of the Kueue + TAS path.
	Kueue(resource string) dynamic.NamespaceableResourceInterface
	// Leases are the coordination.k8s.io Leases of a namespace; nil from
	// a Cluster built without a typed client.
	Leases(namespace string) coordinationv1client.LeaseInterface
}

// NewCluster is the Cluster over a typed and a dynamic client.
func NewCluster(core kubernetes.Interface, dyn dynamic.Interface) Cluster {
	return clusterClients{core: core, dyn: dyn}
}

// NewClusterAt is NewCluster for the API server at host, which errors
// then name.
func NewClusterAt(core kubernetes.Interface, dyn dynamic.Interface, host string) Cluster {
	return clusterClients{core: core, dyn: dyn, host: host}
}

type clusterClients struct {
	core kubernetes.Interface
	dyn  dynamic.Interface
	host string
}

// Host is the API server's URL.
func (c clusterClients) Host() string { return c.host }

// HostOf is the URL of a Cluster's API server, or "" when it does not say.
func HostOf(c Cluster) string {
	if h, ok := c.(interface{ Host() string }); ok {
		return h.Host()
	}
	return ""
}

func (c clusterClients) Nodes() corev1client.NodeInterface   { return c.core.CoreV1().Nodes() }
func (c clusterClients) Events() corev1client.EventInterface { return c.core.CoreV1().Events("") }
func (c clusterClients) Namespaces() corev1client.NamespaceInterface {
	return c.core.CoreV1().Namespaces()
}
func (c clusterClients) Discovery() discovery.DiscoveryInterface { return c.core.Discovery() }
func (c clusterClients) Slices() dynamic.ResourceInterface       { return c.dyn.Resource(SliceGVR) }
func (c clusterClients) Leases(namespace string) coordinationv1client.LeaseInterface {
	if c.core == nil {
		return nil
	}
	return c.core.CoordinationV1().Leases(namespace)
}
func (c clusterClients) Kueue(resource string) dynamic.NamespaceableResourceInterface {
	return c.dyn.Resource(KueueGVR(resource))
}

// IsWatchListSemanticsUnSupported tells client-go's reflectors whether the
// clients can stream a list through a watch (test fakes cannot).
func (c clusterClients) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(c.core) || watchlist.DoesClientNotSupportWatchListSemantics(c.dyn)
}

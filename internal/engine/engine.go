// Package engine is the one place where the lifecycle of slice-stack
// objects lives: workload policies, reservation sub-block targeting, sub-block
// node pools and their partitions. Every Terraform handler calls it; it
// talks to Compute Engine, GKE and Kubernetes only through the narrow
// interfaces below, so the same engine runs against Google Cloud, the local
// sandbox and unit-test fakes.
package engine

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
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
// APIs it serves, and Slices.
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
}

// newCluster is the Cluster over a typed and a dynamic client.
func newCluster(core kubernetes.Interface, dyn dynamic.Interface) Cluster {
	return clusterClients{core: core, dyn: dyn}
}

// NewClusterAt is newCluster for the API server at host, which errors
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

// hostOf is the URL of a Cluster's API server, or "" when it does not say.
func hostOf(c Cluster) string {
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
func (c clusterClients) Kueue(resource string) dynamic.NamespaceableResourceInterface {
	return c.dyn.Resource(KueueGVR(resource))
}

// IsWatchListSemanticsUnSupported tells client-go's reflectors whether the
// clients can stream a list through a watch (test fakes cannot).
func (c clusterClients) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(c.core) || watchlist.DoesClientNotSupportWatchListSemantics(c.dyn)
}

// Engine drives slice-stack objects to their desired state. One engine
// serves a whole provider process and is bound to one GKE cluster, the
// provider's, at construction: its reads of that cluster (the partition
// inventory, the node pool list, the cluster's version) have one owner,
// reads.
type Engine struct {
	compute Compute
	gke     GKE
	// cluster returns the cluster's API clients (built lazily: the GKE
	// cluster is looked up on first use).
	cluster func(ctx context.Context) (Cluster, error)
	// reads owns the reads of the cluster that many callers share, and
	// the cluster's name.
	reads *clusterReads
	// reservations lets the checks of many pools share one read of their
	// reservation block (see reservationTTL).
	reservations *reservationCache
	// maintenance holds each block's sub-block maintenance for the
	// plan-time warnings (see maintenanceCacheTTL).
	maintenance *maintenanceCache
	// pollInitial and pollMax bound the interval between polls of an
	// operation, GKE's or Compute's. Zero values mean 250ms and 5s.
	pollInitial, pollMax time.Duration
	// selectionSettle bounds how long a slice create waits for partitions
	// of pools made earlier in the same apply to reach the inventory.
	selectionSettle time.Duration
	// firstListTimeout bounds the inventory's first lists of the nodes and
	// the Slices; 0 means DefaultFirstListTimeout.
	firstListTimeout time.Duration

	reportMu sync.Mutex
	// unhealthyReported is set once unhealthy partitions were summarised.
	unhealthyReported bool
}

// ClusterRef is the GKE cluster an engine is bound to: Name is
// projects/P/locations/L/clusters/C, or empty with Unnamed saying why the
// provider names no cluster (one given a kubernetes block only). Its node
// pools resolve selectors and reservation block names, its version gates
// topologies, and its pools make a Kueue quota.
type ClusterRef struct {
	Name    string
	Unnamed error
}

// Option sets an engine up at construction.
type Option func(*Engine)

// WithFirstListTimeout bounds the inventory's first lists of the nodes and
// the Slices (0: DefaultFirstListTimeout).
func WithFirstListTimeout(d time.Duration) Option {
	return func(e *Engine) { e.firstListTimeout = d }
}

// New returns the engine of one provider process over the APIs, bound to
// the cluster ref. clients is called when Kubernetes is first needed; a
// failure is not kept.
func New(compute Compute, gke GKE, ref ClusterRef, clients func(ctx context.Context) (Cluster, error), opts ...Option) *Engine {
	if ref.Name == "" && ref.Unnamed == nil {
		ref.Unnamed = errors.New("the provider names no GKE cluster")
	}
	e := &Engine{
		compute: compute, gke: gke, cluster: clients,
		reads: newClusterReads(gke, ref, clients), reservations: newReservationCache(), maintenance: newMaintenanceCache(),
		selectionSettle: defaultSelectionSettle,
	}
	for _, o := range opts {
		o(e)
	}
	return e
}

// inventory is the process-wide inventory of nodes and Slices, built on
// first use.
func (e *Engine) inventory(ctx context.Context) (*clusterCache, error) {
	return e.reads.inventory(ctx, e.firstListTimeout)
}

// Close ends the engine's watches of the cluster; a later read starts
// them again. A provider configured again (one serving many terraform
// commands) closes the engine of its earlier configuration.
func (e *Engine) Close() { e.reads.stop() }

func (e *Engine) pollBounds() (time.Duration, time.Duration) {
	initial, ceiling := e.pollInitial, e.pollMax
	if initial == 0 {
		initial = 250 * time.Millisecond
	}
	if ceiling == 0 {
		ceiling = 5 * time.Second
	}
	return initial, ceiling
}

// isNotFound reports whether err is a 404 from a Google API.
func isNotFound(err error) bool { return httpStatus(err) == http.StatusNotFound }

func httpStatus(err error) int {
	var ae *apierror.APIError
	if errors.As(err, &ae) {
		return ae.HTTPCode()
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

// lastSegment is a name from a name or a self link (a workload policy's,
// say).
func lastSegment(s string) string { return s[strings.LastIndex(s, "/")+1:] }

// apiMessage is the API's own message for err, without the client's
// wrapping, or err's text.
func apiMessage(err error) string {
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Message != "" {
		return ge.Message
	}
	var ae *apierror.APIError
	if errors.As(err, &ae) {
		if s := ae.GRPCStatus(); s != nil && s.Message() != "" {
			return s.Message()
		}
	}
	return err.Error()
}

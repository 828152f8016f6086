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
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Compute is what the engine needs from the Compute Engine API. Insert and
// Delete return when the operation is done, with its error.
type Compute interface {
	InsertResourcePolicy(ctx context.Context, project, region string, policy *computepb.ResourcePolicy) error
	GetResourcePolicy(ctx context.Context, project, region, name string) (*computepb.ResourcePolicy, error)
	DeleteResourcePolicy(ctx context.Context, project, region, name string) error
	GetReservation(ctx context.Context, project, zone, reservation string) (*computepb.Reservation, error)
	GetReservationBlock(ctx context.Context, project, zone, reservation, block string) (*computepb.ReservationBlock, error)
	ListReservationSubBlocks(ctx context.Context, project, zone, reservation, block string) ([]*computepb.ReservationSubBlock, error)
	GetReservationSubBlock(ctx context.Context, project, zone, reservation, block, subBlock string) (*computepb.ReservationSubBlock, error)
}

// GKE is what the engine needs from the GKE API. Names are full resource
// names (projects/P/locations/L/...).
type GKE interface {
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

// Engine drives slice-stack objects to their desired state.
type Engine struct {
	Compute Compute
	GKE     GKE
	// Kubernetes returns the cluster's Kubernetes client (built lazily).
	Kubernetes func(ctx context.Context) (kubernetes.Interface, error)
	// Dynamic returns the cluster's dynamic client, for Slices.
	Dynamic func(ctx context.Context) (dynamic.Interface, error)
	// Inventory returns the process-wide partition inventory.
	Inventory func(ctx context.Context) (*Inventory, error)
	// NodePools, when set, is the process-wide cache that lets reads of
	// many pools share one list.
	NodePools *NodePoolCache
	// PollInitial and PollMax bound the interval between polls of a GKE
	// operation. Zero values mean 250ms and 5s.
	PollInitial, PollMax time.Duration
}

func (e *Engine) pollBounds() (time.Duration, time.Duration) {
	initial, ceiling := e.PollInitial, e.PollMax
	if initial == 0 {
		initial = 250 * time.Millisecond
	}
	if ceiling == 0 {
		ceiling = 5 * time.Second
	}
	return initial, ceiling
}

// IsNotFound reports whether err is a 404 from a Google API.
func IsNotFound(err error) bool { return httpStatus(err) == http.StatusNotFound }

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

package clients

import (
	"context"
	"fmt"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/iterator"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// Compute is the Compute Engine API as the engine uses it
// (kernel.Compute, and the lists, maintenance and fault reports that
// kernel's optional interfaces name), over the set's REST clients.
func (s *Set) Compute() kernel.Compute { return computeAdapter{s} }

// GKE is the GKE API as the engine uses it (kernel.GKE), over the set's
// container/v1 client; its read of the provider's cluster is the set's
// one clusters.get, which the Kubernetes endpoint shares.
func (s *Set) GKE() kernel.GKE { return gkeAdapter{s.container, s} }

// Cluster is the cluster's API server as the engine uses it
// (kernel.Cluster), built on first use (Kubernetes); a failure is not
// kept.
func (s *Set) Cluster(ctx context.Context) (kernel.Cluster, error) {
	k, err := s.Kubernetes(ctx)
	if err != nil {
		return nil, err
	}
	return kernel.NewClusterAt(k.Core, k.Dynamic, k.Config.Host), nil
}

// noRetry turns off the Compute client library's own retries (of 503 and
// 504, for up to 10 minutes, on top of the provider's): RetryTransport is
// the one retry policy, bounded in attempts and time.
var noRetry = gax.WithRetry(nil)

// computeAdapter implements kernel.Compute with the Compute REST clients.
type computeAdapter struct{ s *Set }

// InsertResourcePolicy answers an error to an insert sent more than once
// as an kernel.RetriedCreateError.
func (a computeAdapter) InsertResourcePolicy(ctx context.Context, project, region string, policy *computepb.ResourcePolicy) (kernel.Operation, error) {
	ctx, rec := withRetryRecord(ctx)
	op, err := a.s.resourcePolicies.Insert(ctx, &computepb.InsertResourcePolicyRequest{Project: project, Region: region, ResourcePolicyResource: policy}, noRetry)
	return startedCompute(op, rec.createErr(err))
}

func (a computeAdapter) GetResourcePolicy(ctx context.Context, project, region, name string) (*computepb.ResourcePolicy, error) {
	return a.s.resourcePolicies.Get(ctx, &computepb.GetResourcePolicyRequest{Project: project, Region: region, ResourcePolicy: name}, noRetry)
}

func (a computeAdapter) DeleteResourcePolicy(ctx context.Context, project, region, name string) (kernel.Operation, error) {
	return startedCompute(a.s.resourcePolicies.Delete(ctx, &computepb.DeleteResourcePolicyRequest{Project: project, Region: region, ResourcePolicy: name}, noRetry))
}

func (a computeAdapter) GetReservation(ctx context.Context, project, zone, reservation string) (*computepb.Reservation, error) {
	return a.s.reservations.Get(ctx, &computepb.GetReservationRequest{Project: project, Zone: zone, Reservation: reservation}, noRetry)
}

func (a computeAdapter) GetReservationBlock(ctx context.Context, project, zone, reservation, block string) (*computepb.ReservationBlock, error) {
	resp, err := a.s.reservationBlocks.Get(ctx, &computepb.GetReservationBlockRequest{Project: project, Zone: zone, Reservation: reservation, ReservationBlock: block}, noRetry)
	if err != nil {
		return nil, err
	}
	return resp.GetResource(), nil
}

func (a computeAdapter) ListReservationSubBlocks(ctx context.Context, project, zone, reservation, block string) ([]*computepb.ReservationSubBlock, error) {
	it := a.s.reservationSubBlocks.List(ctx, &computepb.ListReservationSubBlocksRequest{
		Project: project, Zone: zone, ParentName: fmt.Sprintf("reservations/%s/reservationBlocks/%s", reservation, block),
	}, noRetry)
	var out []*computepb.ReservationSubBlock
	for {
		sb, err := it.Next()
		if err == iterator.Done {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, sb)
	}
}

func (a computeAdapter) GetReservationSubBlock(ctx context.Context, project, zone, reservation, block, subBlock string) (*computepb.ReservationSubBlock, error) {
	resp, err := a.s.reservationSubBlocks.Get(ctx, &computepb.GetReservationSubBlockRequest{
		Project: project, Zone: zone, ParentName: fmt.Sprintf("reservations/%s/reservationBlocks/%s", reservation, block), ReservationSubBlock: subBlock,
	}, noRetry)
	if err != nil {
		return nil, err
	}
	return resp.GetResource(), nil
}

// computeOp is a Compute operation as the engine's waiter polls it. The
// engine polls at its own cadence (250 ms doubling to 5 s): the client
// library's own Wait starts at 1 s and doubles, which loses up to the last
// interval after a short operation ends.
type computeOp struct{ op computeOperation }

// startedCompute is the answer of a call that starts a Compute operation,
// as the engine takes it.
func startedCompute(op *compute.Operation, err error) (kernel.Operation, error) {
	if err != nil {
		return nil, err
	}
	return computeOp{op}, nil
}

func (o computeOp) Name() string { return o.op.Name() }

// State is the operation as last read. Its own error shows only in the
// operation: a poll reports an error only when the API set an HTTP error
// status.
func (o computeOp) State() kernel.OperationState {
	p := o.op.Proto()
	s := kernel.OperationState{Done: o.op.Done(), Type: p.GetOperationType(), Status: p.GetStatus().String()}
	if errs := p.GetError().GetErrors(); len(errs) > 0 {
		s.Failed, s.Message = true, errs[0].GetMessage()
	}
	return s
}

func (o computeOp) Poll(ctx context.Context) error { return o.op.Poll(ctx, noRetry) }

// GetRegionOperation reads a regional operation by its name, as an
// operation the engine's waiter can poll.
func (a computeAdapter) GetRegionOperation(ctx context.Context, project, region, name string) (kernel.Operation, error) {
	op := &regionOp{s: a.s, project: project, region: region, name: name}
	if err := op.Poll(ctx); err != nil {
		return nil, err
	}
	return op, nil
}

// regionOp is a regional Compute operation read by its name
// (regionOperations.get), not from the call that started it.
type regionOp struct {
	s                     *Set
	project, region, name string
	last                  *computepb.Operation
}

func (o *regionOp) Name() string { return o.name }

func (o *regionOp) State() kernel.OperationState {
	s := kernel.OperationState{Done: o.last.GetStatus() == computepb.Operation_DONE, Type: o.last.GetOperationType(), Status: o.last.GetStatus().String()}
	if errs := o.last.GetError().GetErrors(); len(errs) > 0 {
		s.Failed, s.Message = true, errs[0].GetMessage()
	}
	return s
}

func (o *regionOp) Poll(ctx context.Context) error {
	op, err := o.s.regionOperations.Get(ctx, &computepb.GetRegionOperationRequest{Project: o.project, Region: o.region, Operation: o.name}, noRetry)
	if err != nil {
		return err
	}
	o.last = op
	return nil
}

// computeOperation is what computeOp uses of a *compute.Operation.
type computeOperation interface {
	Done() bool
	Name() string
	Poll(ctx context.Context, opts ...gax.CallOption) error
	Proto() *computepb.Operation
}

// gkeAdapter implements kernel.GKE with the container/v1 client; s
// shares its clusters.get of the provider's cluster.
type gkeAdapter struct {
	c *container.Service
	s *Set
}

// CreateNodePool answers an error to a create sent more than once as an
// kernel.RetriedCreateError.
func (a gkeAdapter) CreateNodePool(ctx context.Context, cluster string, pool *container.NodePool) (*container.Operation, error) {
	ctx, rec := withRetryRecord(ctx)
	op, err := a.c.Projects.Locations.Clusters.NodePools.Create(cluster, &container.CreateNodePoolRequest{NodePool: pool}).Context(ctx).Do()
	return op, rec.createErr(err)
}

// GetCluster is the Set's one clusters.get when name is the provider's
// cluster.
func (a gkeAdapter) GetCluster(ctx context.Context, name string) (*container.Cluster, error) {
	if own, err := a.s.cfg.ClusterName(); err == nil && own == name {
		return a.s.getCluster(ctx, name)
	}
	return a.c.Projects.Locations.Clusters.Get(name).Context(ctx).Do()
}

// getCluster reads the provider's cluster (name) with one clusters.get
// per process, which the Kubernetes endpoint and the engine's version
// gate share. A failed read is not kept, nor a cluster whose endpoint
// could not be used (forgetCluster).
func (s *Set) getCluster(ctx context.Context, name string) (*container.Cluster, error) {
	s.clusterMu.Lock()
	defer s.clusterMu.Unlock()
	if s.cluster != nil {
		return s.cluster, nil
	}
	c, err := s.container.Projects.Locations.Clusters.Get(name).Context(ctx).Do()
	if err != nil {
		return nil, err
	}
	s.cluster = c
	return c, nil
}

// forgetCluster drops the kept clusters.get: the next use reads the
// cluster again (one still being made may be ready then).
func (s *Set) forgetCluster() {
	s.clusterMu.Lock()
	s.cluster = nil
	s.clusterMu.Unlock()
}

func (a gkeAdapter) GetNodePool(ctx context.Context, name string) (*container.NodePool, error) {
	return a.c.Projects.Locations.Clusters.NodePools.Get(name).Context(ctx).Do()
}

func (a gkeAdapter) ListNodePools(ctx context.Context, cluster string) ([]*container.NodePool, error) {
	resp, err := a.c.Projects.Locations.Clusters.NodePools.List(cluster).Context(ctx).Do()
	if err != nil {
		return nil, err
	}
	return resp.NodePools, nil
}

func (a gkeAdapter) UpdateNodePool(ctx context.Context, name string, req *container.UpdateNodePoolRequest) (*container.Operation, error) {
	return a.c.Projects.Locations.Clusters.NodePools.Update(name, req).Context(ctx).Do()
}

func (a gkeAdapter) SetNodePoolManagement(ctx context.Context, name string, req *container.SetNodePoolManagementRequest) (*container.Operation, error) {
	return a.c.Projects.Locations.Clusters.NodePools.SetManagement(name, req).Context(ctx).Do()
}

func (a gkeAdapter) DeleteNodePool(ctx context.Context, name string) (*container.Operation, error) {
	return a.c.Projects.Locations.Clusters.NodePools.Delete(name).Context(ctx).Do()
}

func (a gkeAdapter) GetOperation(ctx context.Context, name string) (*container.Operation, error) {
	return a.c.Projects.Locations.Operations.Get(name).Context(ctx).Do()
}

// Package enginetest holds the fakes the tests of every engine package
// build the engine's parts over: in-memory Compute and GKE APIs, operations,
// the reservation fixture, fake Kubernetes clients whose watches behave as the
// API server's, and node and Slice builders. Only _test.go files import it
// (depguard's enginetest rule).
package enginetest

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/googleapi"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// The fixture every reservation and node pool test starts from: one
// reservation with one block of three sub-blocks, listed out of order;
// sb-b is in use.
const (
	Project     = "proj"
	Zone        = "us-central1-a"
	Region      = "us-central1"
	Reservation = "res"
	Block       = "block-1"
	Cluster     = "cluster-1"
)

// NotFound is the error a Google API answers for a missing object.
func NotFound(what string) error {
	return &googleapi.Error{Code: http.StatusNotFound, Message: fmt.Sprintf("The resource '%s' was not found", what)}
}

// Compute is an in-memory Compute.
type Compute struct {
	Mu sync.Mutex

	Policies map[string]*computepb.ResourcePolicy // project/region/name
	Inserted []InsertCall
	Deleted  []string
	// Errors the policy calls return instead of doing their work.
	InsertErr, GetPolicyErr, DeletePolicyErr error

	Reservations map[string]bool                             // project/zone/reservation
	Blocks       map[string]*computepb.ReservationBlock      // project/zone/reservation/block
	SubBlocks    map[string][]*computepb.ReservationSubBlock // project/zone/reservation/block
	// Errors the reservation calls return instead of doing their work.
	ReservationErr, BlockErr, ListErr error
	// reads counts the reservation reads (GetReservation calls).
	Reads int
	// Slots are the reservation slots of sub-blocks, by
	// project/zone/reservation/block/sub-block; SlotLists counts the
	// ListReservationSlots calls.
	Slots     map[string][]*computepb.ReservationSlot
	SlotLists int
	// InsertOp, when set, is the operation the next InsertResourcePolicy
	// answers (it stores the policy at once, as the sandbox's held
	// operations do, unless InsertOpMakesNothing); default one DONE in
	// the answer.
	InsertOp             *Operation
	InsertOpMakesNothing bool
	// RegionOperations are what GetRegionOperation reads, by
	// project/region/name; a name not there answers 404.
	RegionOperations map[string]*Operation
}

// InsertCall is one InsertResourcePolicy call.
type InsertCall struct {
	Project, Region string
	Policy          *computepb.ResourcePolicy
}

// NewCompute is an empty Compute.
func NewCompute() *Compute {
	return &Compute{
		Policies:     map[string]*computepb.ResourcePolicy{},
		Reservations: map[string]bool{},
		Blocks:       map[string]*computepb.ReservationBlock{},
		SubBlocks:    map[string][]*computepb.ReservationSubBlock{},
	}
}

// WithFixtureBlock adds the fixture's reservation and block.
func (c *Compute) WithFixtureBlock() *Compute {
	c.SetBlock(
		SubBlock("sb-c", 0, "phys-c"),
		SubBlock("sb-b", 16, "phys-b"),
		SubBlock("sb-a", 0, "phys-a"),
	)
	return c
}

// SetBlock sets the sub-blocks of the fixture's block, adding the block
// and its reservation.
func (c *Compute) SetBlock(subs ...*computepb.ReservationSubBlock) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	key := Project + "/" + Zone + "/" + Reservation
	c.Reservations[key] = true
	inUse := int32(0)
	for _, s := range subs {
		if s.GetInUseCount() > 0 {
			inUse++
		}
	}
	c.Blocks[key+"/"+Block] = &computepb.ReservationBlock{
		Name:                          proto.String(Block),
		ReservationSubBlockCount:      proto.Int32(int32(len(subs))),
		ReservationSubBlockInUseCount: proto.Int32(inUse),
	}
	c.SubBlocks[key+"/"+Block] = subs
}

// SubBlock is a 16-host sub-block with inUse hosts in use.
func SubBlock(name string, inUse int32, physical string) *computepb.ReservationSubBlock {
	return &computepb.ReservationSubBlock{
		Name:       proto.String(name),
		Count:      proto.Int32(16),
		InUseCount: proto.Int32(inUse),
		Status:     proto.String("READY"),
		HealthInfo: &computepb.ReservationSubBlockHealthInfo{
			HealthStatus:      proto.String("HEALTHY"),
			HealthyHostCount:  proto.Int32(15),
			DegradedHostCount: proto.Int32(1),
		},
		PhysicalTopology: &computepb.ReservationSubBlockPhysicalTopology{
			Cluster:  proto.String("phys-cluster"),
			Block:    proto.String("phys-block"),
			SubBlock: proto.String(physical),
		},
	}
}

func (c *Compute) InsertResourcePolicy(_ context.Context, project, region string, policy *computepb.ResourcePolicy) (kernel.Operation, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if c.InsertErr != nil {
		return nil, c.InsertErr
	}
	c.Inserted = append(c.Inserted, InsertCall{Project: project, Region: region, Policy: proto.CloneOf(policy)})
	stored := proto.CloneOf(policy)
	stored.Id = proto.Uint64(4242424242)
	stored.Region = proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/regions/" + region)
	stored.SelfLink = proto.String(fmt.Sprintf("https://www.googleapis.com/compute/v1/projects/%s/regions/%s/resourcePolicies/%s", project, region, policy.GetName()))
	stored.Status = proto.String("READY")
	op := DoneOperation("operation-insert")
	if c.InsertOp != nil {
		op, c.InsertOp = c.InsertOp, nil
		if c.InsertOpMakesNothing {
			return op, nil
		}
	}
	c.Policies[project+"/"+region+"/"+policy.GetName()] = stored
	return op, nil
}

func (c *Compute) GetRegionOperation(_ context.Context, project, region, name string) (kernel.Operation, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	op, ok := c.RegionOperations[project+"/"+region+"/"+name]
	if !ok {
		return nil, NotFound("projects/" + project + "/regions/" + region + "/operations/" + name)
	}
	return op, nil
}

func (c *Compute) GetResourcePolicy(_ context.Context, project, region, name string) (*computepb.ResourcePolicy, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if c.GetPolicyErr != nil {
		return nil, c.GetPolicyErr
	}
	p, ok := c.Policies[project+"/"+region+"/"+name]
	if !ok {
		return nil, NotFound("projects/" + project + "/regions/" + region + "/resourcePolicies/" + name)
	}
	return proto.CloneOf(p), nil
}

func (c *Compute) DeleteResourcePolicy(_ context.Context, project, region, name string) (kernel.Operation, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	c.Deleted = append(c.Deleted, project+"/"+region+"/"+name)
	if c.DeletePolicyErr != nil {
		return nil, c.DeletePolicyErr
	}
	key := project + "/" + region + "/" + name
	if _, ok := c.Policies[key]; !ok {
		return nil, NotFound("projects/" + project + "/regions/" + region + "/resourcePolicies/" + name)
	}
	delete(c.Policies, key)
	return DoneOperation("operation-delete"), nil
}

// Operation is a Compute operation that is DONE at its DoneAt-th
// poll, failed with Failure when that is set.
type Operation struct {
	OpName, OpType string
	Polls, DoneAt  int
	Failure        string
	PollErr        error
}

// DoneOperation is an operation DONE in the answer of the call that
// started it.
func DoneOperation(name string) *Operation { return &Operation{OpName: name} }

func (o *Operation) Name() string { return o.OpName }

func (o *Operation) State() kernel.OperationState {
	s := kernel.OperationState{Done: o.Polls >= o.DoneAt, Type: o.OpType, Status: "RUNNING"}
	if s.Done {
		s.Status = "DONE"
		s.Failed, s.Message = o.Failure != "", o.Failure
	}
	return s
}

func (o *Operation) Poll(context.Context) error {
	if o.PollErr != nil {
		return o.PollErr
	}
	o.Polls++
	return nil
}

func (c *Compute) GetReservation(_ context.Context, project, zone, reservation string) (*computepb.Reservation, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	c.Reads++
	if c.ReservationErr != nil {
		return nil, c.ReservationErr
	}
	if !c.Reservations[project+"/"+zone+"/"+reservation] {
		return nil, NotFound(reservation)
	}
	return &computepb.Reservation{Name: proto.String(reservation), Zone: proto.String(zone)}, nil
}

func (c *Compute) GetReservationBlock(_ context.Context, project, zone, reservation, block string) (*computepb.ReservationBlock, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if c.BlockErr != nil {
		return nil, c.BlockErr
	}
	b, ok := c.Blocks[project+"/"+zone+"/"+reservation+"/"+block]
	if !ok {
		return nil, NotFound(block)
	}
	return proto.CloneOf(b), nil
}

func (c *Compute) ListReservationSubBlocks(_ context.Context, project, zone, reservation, block string) ([]*computepb.ReservationSubBlock, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if c.ListErr != nil {
		return nil, c.ListErr
	}
	var out []*computepb.ReservationSubBlock
	for _, s := range c.SubBlocks[project+"/"+zone+"/"+reservation+"/"+block] {
		out = append(out, proto.CloneOf(s))
	}
	return out, nil
}

func (c *Compute) GetReservationSubBlock(_ context.Context, project, zone, reservation, block, name string) (*computepb.ReservationSubBlock, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	for _, s := range c.SubBlocks[project+"/"+zone+"/"+reservation+"/"+block] {
		if s.GetName() == name {
			return proto.CloneOf(s), nil
		}
	}
	return nil, NotFound(name)
}

// ListReservationSlots is the Slots of a sub-block of SubBlocks; a
// sub-block that is not there is not found.
func (c *Compute) ListReservationSlots(_ context.Context, project, zone, reservation, block, subBlock string) ([]*computepb.ReservationSlot, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	c.SlotLists++
	key := project + "/" + zone + "/" + reservation + "/" + block
	for _, s := range c.SubBlocks[key] {
		if s.GetName() != subBlock {
			continue
		}
		var out []*computepb.ReservationSlot
		for _, sl := range c.Slots[key+"/"+subBlock] {
			out = append(out, proto.CloneOf(sl))
		}
		return out, nil
	}
	return nil, NotFound(subBlock)
}

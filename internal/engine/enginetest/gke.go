package enginetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	container "google.golang.org/api/container/v1"
)

// GKE is an in-memory GKE. Create and Delete answer an operation that
// is DONE unless CreateOp or DeleteOp says otherwise; GetOperation answers
// Ops in turn, repeating the last.
type GKE struct {
	Mu sync.Mutex

	Pools map[string]*container.NodePool // full node pool name
	// version is the cluster's currentMasterVersion; clusterGets counts
	// GetCluster calls.
	Version     string
	ClusterGets int
	Created     []CreateCall
	// Errors the calls return instead of doing their work.
	CreateErr, GetErr, DeleteErr, OpErr, ListErr error
	// DeleteRefusals are the errors the next deletes return, one each in
	// turn, before DeleteErr applies.
	DeleteRefusals []error
	// poolGets counts GetNodePool calls.
	PoolGets              int
	CreateOp, DeleteOp    *container.Operation
	Ops                   []*container.Operation
	OpNames, DeletedNames []string
	// events is the order of calls, shared with the tests' callbacks.
	Events []string
}

// CreateCall is one CreateNodePool call.
type CreateCall struct {
	Cluster string
	Pool    *container.NodePool
	// json is the pool as the client library would send it.
	JSON string
}

// NewGKE is a GKE with no node pools.
func NewGKE() *GKE { return &GKE{Pools: map[string]*container.NodePool{}} }

// Record appends event to the log of calls.
func (g *GKE) Record(event string) {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	g.Events = append(g.Events, event)
}

// EventLog is a copy of the log of calls.
func (g *GKE) EventLog() []string {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	return append([]string(nil), g.Events...)
}

func (g *GKE) CreateNodePool(_ context.Context, cluster string, pool *container.NodePool) (*container.Operation, error) {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	g.Events = append(g.Events, "create")
	if g.CreateErr != nil {
		return nil, g.CreateErr
	}
	// A copy through JSON, as the wire would make it.
	b, err := json.Marshal(pool)
	if err != nil {
		return nil, err
	}
	var stored container.NodePool
	if err := json.Unmarshal(b, &stored); err != nil {
		return nil, err
	}
	g.Created = append(g.Created, CreateCall{Cluster: cluster, Pool: &stored, JSON: string(b)})
	running := stored
	running.Status = "RUNNING"
	g.Pools[cluster+"/nodePools/"+pool.Name] = &running
	if g.CreateOp != nil {
		return g.CreateOp, nil
	}
	return &container.Operation{Name: "op-create", OperationType: "CREATE_NODE_POOL", Status: "DONE"}, nil
}

func (g *GKE) GetCluster(_ context.Context, name string) (*container.Cluster, error) {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	g.ClusterGets++
	if g.GetErr != nil {
		return nil, g.GetErr
	}
	return &container.Cluster{Name: name, CurrentMasterVersion: g.Version}, nil
}

func (g *GKE) GetNodePool(_ context.Context, name string) (*container.NodePool, error) {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	g.PoolGets++
	if g.GetErr != nil {
		return nil, g.GetErr
	}
	p, ok := g.Pools[name]
	if !ok {
		return nil, NotFound(name)
	}
	cp := *p
	return &cp, nil
}

func (g *GKE) UpdateNodePool(_ context.Context, name string, req *container.UpdateNodePoolRequest) (*container.Operation, error) {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	b, _ := json.Marshal(req)
	g.Events = append(g.Events, "updateNodePool "+string(b))
	p, ok := g.Pools[name]
	if !ok {
		return nil, NotFound(name)
	}
	cfg := *p.Config
	if req.Labels != nil {
		cfg.Labels, cfg.Taints = req.Labels.Labels, req.Taints.Taints
	}
	if req.ResourceLabels != nil {
		cfg.ResourceLabels = req.ResourceLabels.Labels
	}
	p.Config = &cfg
	return &container.Operation{Name: "op-update", Status: "DONE"}, nil
}

func (g *GKE) SetNodePoolManagement(_ context.Context, name string, req *container.SetNodePoolManagementRequest) (*container.Operation, error) {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	b, _ := json.Marshal(req)
	g.Events = append(g.Events, "setManagement "+string(b))
	p, ok := g.Pools[name]
	if !ok {
		return nil, NotFound(name)
	}
	m := *req.Management
	p.Management = &m
	return &container.Operation{Name: "op-management", Status: "DONE"}, nil
}

// Count is how many times the fake recorded the event.
func (g *GKE) Count(event string) int {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	n := 0
	for _, ev := range g.Events {
		if ev == event {
			n++
		}
	}
	return n
}

func (g *GKE) ListNodePools(_ context.Context, cluster string) ([]*container.NodePool, error) {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	g.Events = append(g.Events, "listNodePools")
	if g.ListErr != nil {
		return nil, g.ListErr
	}
	var out []*container.NodePool
	for name, p := range g.Pools {
		if strings.HasPrefix(name, cluster+"/nodePools/") {
			cp := *p
			out = append(out, &cp)
		}
	}
	return out, nil
}

func (g *GKE) DeleteNodePool(_ context.Context, name string) (*container.Operation, error) {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	g.Events = append(g.Events, "delete")
	g.DeletedNames = append(g.DeletedNames, name)
	if len(g.DeleteRefusals) > 0 {
		err := g.DeleteRefusals[0]
		g.DeleteRefusals = g.DeleteRefusals[1:]
		return nil, err
	}
	if g.DeleteErr != nil {
		return nil, g.DeleteErr
	}
	if _, ok := g.Pools[name]; !ok {
		return nil, NotFound(name)
	}
	delete(g.Pools, name)
	if g.DeleteOp != nil {
		return g.DeleteOp, nil
	}
	return &container.Operation{Name: "op-delete", OperationType: "DELETE_NODE_POOL", Status: "DONE"}, nil
}

func (g *GKE) GetOperation(_ context.Context, name string) (*container.Operation, error) {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	g.Events = append(g.Events, "getOperation")
	g.OpNames = append(g.OpNames, name)
	if g.OpErr != nil {
		return nil, g.OpErr
	}
	if len(g.Ops) == 0 {
		return nil, fmt.Errorf("fake: no operation scripted for %s", name)
	}
	op := g.Ops[0]
	if len(g.Ops) > 1 {
		g.Ops = g.Ops[1:]
	}
	return op, nil
}

// OperationNames are the operations GetOperation was asked for, in order.
func (g *GKE) OperationNames() []string {
	g.Mu.Lock()
	defer g.Mu.Unlock()
	return append([]string(nil), g.OpNames...)
}

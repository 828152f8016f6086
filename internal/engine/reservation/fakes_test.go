package reservation

import (
	"context"

	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"
)

// clusterFake is ClusterReads over a cluster named cluster ("": none)
// with the pools and the nodes, or that cannot list them (poolsErr,
// nodesErr).
type clusterFake struct {
	cluster  string
	pools    []*container.NodePool
	poolsErr error
	nodes    []*corev1.Node
	nodesErr error
}

func (c clusterFake) Name() string { return c.cluster }

func (c clusterFake) NodePools(context.Context, string) ([]*container.NodePool, error) {
	return c.pools, c.poolsErr
}

func (c clusterFake) FreshNodePools(context.Context, string) ([]*container.NodePool, error) {
	return c.pools, c.poolsErr
}

func (c clusterFake) Nodes(context.Context, map[string]string) ([]*corev1.Node, error) {
	return c.nodes, c.nodesErr
}

func (c clusterFake) Start(context.Context) {}

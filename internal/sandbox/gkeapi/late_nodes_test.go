package gkeapi

import (
	"testing"
	"time"

	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// A new pool's late Nodes (Faults.NodeProvisionDelayMs) wait for one of
// the world's delays, named by the pool; the pool is RUNNING meanwhile. A
// pool deleted before the delay ends gets no Node when it does.
func TestPoolDeletedBeforeItsLateNodes(t *testing.T) {
	t.Parallel()
	type held struct {
		d    cloud.Delay
		then func()
	}
	delays := make(chan held, 4)
	kube := kubefake.NewClientset()
	world := cloud.NewWorld(&cloud.Inventory{Project: "p", Region: "r", Zone: "z", Cluster: "c"}, "t")
	world.Kube = kube
	world.NodeReadyTimeout = time.Millisecond // should nodes be made, the wait for kwok (none here) ends at once
	world.Faults.NodeProvisionDelayMs = 4000
	world.Schedule = func(d cloud.Delay, then func()) { delays <- held{d, then} }
	w := New(world)
	sub := &cloud.SubBlockState{Reservation: "r", Block: "b", Name: "s", NodePool: "np"}
	for h := range sub.Hosts {
		sub.Hosts[h] = cloud.HostHealthy
	}
	pool := &cloud.NodePool{Name: "np", NodeCount: 2, SubBlock: sub, Status: "PROVISIONING"}
	w.Mu.Lock()
	w.NodePools["np"] = pool
	w.Mu.Unlock()

	if err := w.provisionPool(pool); err != nil {
		t.Fatal(err)
	}
	h := testsupport.Await(t, delays, "the pool's nodes' delay")
	if want := (cloud.Delay{Kind: cloud.DelayNodes, Of: "np", For: 4 * time.Second}); h.d != want {
		t.Errorf("delay %+v, want %+v", h.d, want)
	}
	w.Mu.Lock()
	status := pool.Status
	delete(w.NodePools, "np") // deleted, as deleteNodePool's operation does
	w.Mu.Unlock()
	if status != "RUNNING" {
		t.Errorf("pool %s while its nodes wait, want RUNNING", status)
	}
	h.then()
	for _, a := range kube.Actions() {
		if a.GetVerb() == "create" {
			t.Errorf("the deleted pool's late nodes were made: %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
}

package nodepool

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// poolRecord is the create record of the test pool.
var poolRecord = kernel.CreateRecordName("node-pool", testPoolName)

// otherCreator is a record of the test pool's create by another creator,
// renewed at renewed.
func otherCreator(renewed time.Time) *coordinationv1.Lease {
	owner, at, seconds := "terraform-provider-gke pid 1 on host elsewhere, create 0001", metav1.NewMicroTime(renewed), int32(30)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: poolRecord, Namespace: kernel.CreateRecordNamespace},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &owner, LeaseDurationSeconds: &seconds, AcquireTime: &at, RenewTime: &at},
	}
}

// holder is the creator a record names.
func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// adoptablePool is the fakes of a pool of the spec's name that GKE holds
// and that matches the spec, as a create of another creator leaves it.
func adoptablePool(records ...*coordinationv1.Lease) (Spec, *enginetest.GKE, *fake.Clientset, *Pools) {
	spec := poolSpec()
	spec.Target.SubBlock = "sb-b"
	g := enginetest.NewGKE()
	g.Pools[testPoolID] = storedPool(spec.Target.Path())
	kube, _ := enginetest.NewKube(readyPoolNodes(wellknown.PartitionHealthy)...)
	for _, r := range records {
		if err := kube.Tracker().Add(r); err != nil {
			panic(err)
		}
	}
	return spec, g, kube, newTestPools(enginetest.NewCompute().WithFixtureBlock(), g, kube)
}

func leaseOf(t *testing.T, kube *fake.Clientset) (*coordinationv1.Lease, error) {
	t.Helper()
	return kube.CoordinationV1().Leases(kernel.CreateRecordNamespace).Get(context.Background(), poolRecord, metav1.GetOptions{})
}

// A pool whose creator's record is fresh (its create still at work) is
// not adopted: the create fails with a kernel.CreatorAtWorkError that names the
// creator, reports nothing and leaves the record as it was.
func TestCreateNodePoolRefusesAPoolWhoseCreatorIsAtWork(t *testing.T) {
	t.Parallel()
	spec, g, kube, e := adoptablePool(otherCreator(time.Now().Add(-5 * time.Second)))
	_, err := e.Create(t.Context(), spec, func(string) { t.Error("a pool another creator is making was reported as this create's") })
	var atWork *kernel.CreatorAtWorkError
	if !errors.As(err, &atWork) || atWork.ID != testPoolID || !strings.Contains(atWork.Creator, "host elsewhere") {
		t.Fatalf("CreateNodePool: %v, want a kernel.CreatorAtWorkError naming the other creator", err)
	}
	for _, want := range []string{"being created at this moment by another run", "Lease kube-system/" + poolRecord, "import ID " + testPoolID} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	if len(g.Created) != 0 {
		t.Errorf("%d creates, want none", len(g.Created))
	}
	if l, err := leaseOf(t, kube); err != nil || !strings.Contains(holder(l), "host elsewhere") {
		t.Errorf("the other creator's record is %v (%v), want it left in place", l, err)
	}
}

// A pool whose creator's record is stale (a creator killed with kill -9
// stops renewing it) is adopted, as before records existed; the record is
// taken over while the adoption waits and deleted when it ends.
func TestCreateNodePoolAdoptsAPoolWhoseRecordIsStale(t *testing.T) {
	t.Parallel()
	spec, g, kube, e := adoptablePool(otherCreator(time.Now().Add(-kernel.CreateRecordDuration - time.Second)))
	var during string
	pool, err := e.Create(t.Context(), spec, func(string) {
		if l, err := leaseOf(t, kube); err == nil {
			during = holder(l)
		}
	})
	if err != nil || !strings.Contains(pool.Adopted, "matches the configuration") || len(g.Created) != 0 {
		t.Fatalf("CreateNodePool: %+v, %v, %d creates; want the pool adopted", pool, err, len(g.Created))
	}
	if !strings.Contains(during, kernel.ProcessCreator()) {
		t.Errorf("during the adoption the record's creator was %q, want this process (%s)", during, kernel.ProcessCreator())
	}
	if l, err := leaseOf(t, kube); !apierrors.IsNotFound(err) {
		t.Errorf("after the create the record is %v (%v), want it deleted", l, err)
	}
}

// Two creates of one pool at once, from two engines (two provider
// processes): the second, made while the first waits, is refused and names
// the first; the first ends, deleting its record, and a create after it
// adopts the pool (the recovery of a killed create).
func TestConcurrentCreatesOfOnePool(t *testing.T) {
	t.Parallel()
	spec := poolSpec()
	g := enginetest.NewGKE()
	kube, _ := enginetest.NewKube(readyPoolNodes(wellknown.PartitionHealthy)...)
	compute := enginetest.NewCompute().WithFixtureBlock()
	first, second := newTestPools(compute, g, kube), newTestPools(compute, g, kube)
	var refused error
	if _, err := first.Create(t.Context(), spec, func(string) {
		_, refused = second.Create(t.Context(), spec, func(string) { t.Error("the second create was reported") })
	}); err != nil {
		t.Fatal(err)
	}
	var atWork *kernel.CreatorAtWorkError
	if !errors.As(refused, &atWork) || !strings.Contains(atWork.Creator, kernel.ProcessCreator()) {
		t.Fatalf("the second create: %v, want a kernel.CreatorAtWorkError naming the first", refused)
	}
	if len(g.Created) != 1 {
		t.Errorf("%d creates, want 1", len(g.Created))
	}
	if _, err := leaseOf(t, kube); !apierrors.IsNotFound(err) {
		t.Errorf("the first create's record outlived it: %v", err)
	}
	spec.Target.SubBlock = "sb-b" // where GKE placed it
	g.Pools[testPoolID] = storedPool(spec.Target.Path())
	if pool, err := second.Create(t.Context(), spec, func(string) {}); err != nil || pool.Adopted == "" {
		t.Errorf("a create after the first ended: %+v, %v; want it to adopt the pool", pool, err)
	}
}

// An interrupted create (its context ended after GKE accepted it) deletes
// its record, so that the next create adopts the pool at once.
func TestInterruptedCreateDeletesItsRecord(t *testing.T) {
	t.Parallel()
	spec := poolSpec()
	g := enginetest.NewGKE()
	kube, _ := enginetest.NewKube()
	e := newTestPools(enginetest.NewCompute().WithFixtureBlock(), g, kube)
	ctx, cancel := context.WithCancel(t.Context())
	if _, err := e.Create(ctx, spec, func(string) { cancel() }); !errors.Is(err, context.Canceled) {
		t.Fatalf("CreateNodePool: %v, want it cut short", err)
	}
	if l, err := leaseOf(t, kube); !apierrors.IsNotFound(err) {
		t.Errorf("the interrupted create left its record: %v (%v)", l, err)
	}
}

// A cluster that refuses the record's Lease leaves the create unrecorded:
// it goes on, as before records existed.
func TestCreateGoesOnWhenTheRecordIsRefused(t *testing.T) {
	t.Parallel()
	spec, g, kube, e := adoptablePool()
	kube.PrependReactor("create", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, poolRecord, errors.New("RBAC"))
	})
	pool, err := e.Create(t.Context(), spec, func(string) {})
	if err != nil || pool.Adopted == "" || len(g.Created) != 0 {
		t.Errorf("CreateNodePool: %+v, %v; want the pool adopted with no record", pool, err)
	}
}

// A resumed create (of a pool an interrupted apply recorded) is a creator
// at work too: it is refused while another's record is fresh, and records
// itself otherwise.
func TestResumeNodePoolIsRecorded(t *testing.T) {
	t.Parallel()
	spec, _, _, e := adoptablePool(otherCreator(time.Now()))
	var atWork *kernel.CreatorAtWorkError
	if _, err := e.Resume(t.Context(), spec); !errors.As(err, &atWork) {
		t.Errorf("ResumeNodePool beside a creator at work: %v, want a kernel.CreatorAtWorkError", err)
	}
	spec, g, kube, _ := adoptablePool()
	var during string
	e = newTestPools(enginetest.NewCompute().WithFixtureBlock(), g, kube, withGKE(sampledGKE{GKE: g, sample: func() {
		if l, err := leaseOf(t, kube); err == nil {
			during = holder(l)
		}
	}}))
	if _, err := e.Resume(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(during, kernel.ProcessCreator()) {
		t.Errorf("while the resume waited the record's creator was %q, want this process", during)
	}
}

// sampledGKE is a fake GKE that calls sample on each read of a pool.
type sampledGKE struct {
	*enginetest.GKE
	sample func()
}

func (g sampledGKE) GetNodePool(ctx context.Context, name string) (*container.NodePool, error) {
	g.sample()
	return g.GKE.GetNodePool(ctx, name)
}

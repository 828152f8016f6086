package kernel_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// A create renews its record while it works (here every millisecond,
// through CreateRecords.Renew), stops renewing one that another creator
// took over, and does not delete that one when it ends.
func TestCreateRecordRenews(t *testing.T) {
	t.Parallel()
	kube := fake.NewClientset()
	name := kernel.CreateRecordName("slice", "s")
	var (
		takenOver             atomic.Bool
		renewed, sawOther     = make(chan struct{}), make(chan struct{})
		renewedOnce, sawOnce  sync.Once
		lateRenewals, deletes atomic.Int32
	)
	// heldByAnother is the record as the API server holds it, taken over
	// by another creator.
	heldByAnother := func() (*coordinationv1.Lease, error) {
		obj, err := kube.Tracker().Get(coordinationv1.SchemeGroupVersion.WithResource("leases"), kernel.CreateRecordNamespace, name)
		if err != nil {
			return nil, err
		}
		l := obj.(*coordinationv1.Lease).DeepCopy()
		other := "another creator"
		l.Spec.HolderIdentity = &other
		return l, nil
	}
	// Another creator takes the record over: from then on every read of
	// it names that creator. (The fake API server does not refuse a
	// renewal of a record read before the take over, as the real one
	// does with a 409; here the renewal must not be tried at all.)
	kube.PrependReactor("get", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		if !takenOver.Load() {
			return false, nil, nil
		}
		l, err := heldByAnother()
		sawOnce.Do(func() { close(sawOther) })
		return true, l, err
	})
	// A renewal after a read that named the other creator is one too
	// many. (One read before the take over may still be written.)
	kube.PrependReactor("update", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		select {
		case <-sawOther:
			lateRenewals.Add(1)
		default:
			renewedOnce.Do(func() { close(renewed) })
		}
		return false, nil, nil
	})
	kube.PrependReactor("delete", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		deletes.Add(1)
		return false, nil, nil
	})
	clients := func(context.Context) (kernel.Cluster, error) {
		return kernel.NewCluster(kube, enginetest.NewDynamic()), nil
	}

	// The timeout only keeps renewals that never come from hanging the
	// test.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	release, err := kernel.CreateRecords{Renew: time.Millisecond}.Record(ctx, clients, "slice", "Slice", "s")
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	if l, err := kube.CoordinationV1().Leases(kernel.CreateRecordNamespace).Get(t.Context(), name, metav1.GetOptions{}); err != nil ||
		l.Spec.HolderIdentity == nil || !strings.Contains(*l.Spec.HolderIdentity, kernel.ProcessCreator()) {
		t.Fatalf("the record after Record: %v, %v; want one held by this process", l, err)
	}
	select {
	case <-renewed:
	case <-ctx.Done():
		t.Fatal("the record was never renewed")
	}
	takenOver.Store(true)
	select {
	case <-sawOther: // a renewal read the record another creator holds
	case <-ctx.Done():
		t.Fatal("the renewals stopped reading the record")
	}
	// release stops the renewals and waits for the last one to end: by
	// then a renewal that went on after the read would have written.
	release()
	if n := lateRenewals.Load(); n != 0 {
		t.Errorf("%d renewals of a record another creator took over, want none", n)
	}
	if n := deletes.Load(); n != 0 {
		t.Errorf("releasing deleted another creator's record (%d deletes)", n)
	}
}

// A create that ends deletes its own record.
func TestCreateRecordReleaseDeletesItsRecord(t *testing.T) {
	t.Parallel()
	kube := fake.NewClientset()
	clients := func(context.Context) (kernel.Cluster, error) {
		return kernel.NewCluster(kube, enginetest.NewDynamic()), nil
	}
	release, err := kernel.CreateRecords{Renew: time.Millisecond, Release: time.Minute}.Record(t.Context(), clients, "node-pool", "node pool", "projects/p/locations/l/clusters/c/nodePools/np")
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	release()
	leases, err := kube.CoordinationV1().Leases(kernel.CreateRecordNamespace).List(t.Context(), metav1.ListOptions{})
	if err != nil || len(leases.Items) != 0 {
		t.Errorf("records after the release: %v, %v; want none", leases, err)
	}
}

package kernel

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A create renews its record while it works, and stops renewing one that
// another creator took over.
func TestCreateRecordRenews(t *testing.T) {
	t.Parallel()
	kube := fake.NewClientset()
	leases := kube.CoordinationV1().Leases(CreateRecordNamespace)
	r := &createRecord{leases: leases, name: "rec", owner: "me", every: 5 * time.Millisecond, stop: make(chan struct{}), done: make(chan struct{})}
	start := time.Now().Add(-time.Minute)
	if _, err := leases.Create(t.Context(), r.lease("Slice", "s", start), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	go r.renew(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for {
		l, err := leases.Get(t.Context(), "rec", metav1.GetOptions{})
		if err == nil && l.Spec.RenewTime.After(start.Add(time.Second)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the record was not renewed within 5s: %v, %v", l, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The fake API server does not refuse a renewal read before the take
	// over (the real one answers 409): take it over until the renewals stop.
	other := "another"
	for stopped := false; !stopped; {
		l, _ := leases.Get(t.Context(), "rec", metav1.GetOptions{})
		l.Spec.HolderIdentity = &other
		if _, err := leases.Update(t.Context(), l, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-r.done:
			stopped = true
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline.Add(5 * time.Second)) {
			t.Fatal("the renewals went on after another creator took the record over")
		}
	}
	r.release(context.Background())() // stop is closed; the record, another's, is kept
	if l, err := leases.Get(t.Context(), "rec", metav1.GetOptions{}); err != nil || holder(l) != "another" {
		t.Errorf("releasing deleted another creator's record: %v, %v", l, err)
	}
}

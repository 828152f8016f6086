package kernel

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// A create records itself, while it works, in a coordination.k8s.io Lease
// of the cluster: the creator's identity and a renewal time it renews
// while it waits. A create that finds its object made already adopts it
// only when no other creator's record is fresh: adoption recovers a create
// that a killed run left behind, never one whose creator is still at work.
//
// The record lives in the cluster, not on the object, because a GKE node
// pool cannot carry one: GKE runs one operation at a time on a pool, so
// nothing (its resource labels, its node labels) can be changed while its
// create runs, and a label set at create cannot be renewed. A Lease is
// made before the object, so it also orders two creates of one name.
const (
	// CreateRecordNamespace is the namespace of the creates' Leases.
	CreateRecordNamespace = "kube-system"
	// CreateRecordDuration is how long a record is fresh after its last
	// renewal: a creator killed (kill -9) leaves a record that is stale
	// this long after it.
	CreateRecordDuration = 30 * time.Second
	// DefaultCreateRecordRenew is how often a creator renews its record
	// (CreateRecords.Renew).
	DefaultCreateRecordRenew = 10 * time.Second
	// DefaultCreateRecordRelease bounds the delete of a record when its
	// create ends (CreateRecords.Release).
	DefaultCreateRecordRelease = 10 * time.Second
	recordLabelManagedBy       = "app.kubernetes.io/managed-by"
	recordManagedBy            = "terraform-provider-gke"
	recordAnnotationObject     = "gke.dynslice.io/object"
)

// CreatorAtWorkError is a create that found its object made by another
// creator whose record is fresh: it was not adopted. The handler says to
// wait, or to import it once that create has ended.
type CreatorAtWorkError struct {
	// Kind is "Slice" or "node pool"; ID its name (a pool's full ID).
	Kind, ID string
	// Creator is the other creator's identity; Record its Lease
	// (namespace/name).
	Creator, Record string
	// Renewed is when the other creator last renewed its record; Expires
	// when the record goes stale if it is not renewed again.
	Renewed, Expires time.Time
}

func (e *CreatorAtWorkError) Error() string {
	return fmt.Sprintf("%s %s is being created at this moment by another run of this provider: %s (its record, Lease %s, was "+
		"renewed at %s). It was not adopted: two Terraform states would own it, and either one's destroy would delete it from under "+
		"the other. Wait for that apply to end; then give this one another name, or, if this workspace is to manage it instead, "+
		"remove it from that workspace's state and import it here (import ID %s). If that run was killed, its record is stale "+
		"from %s on, and an apply after then adopts the %s as what a killed create left behind",
		e.Kind, e.ID, e.Creator, e.Record, e.Renewed.UTC().Format(time.RFC3339), e.ID, e.Expires.UTC().Format(time.RFC3339), e.Kind)
}

// ProcessCreator names this provider process: its PID, host and working
// directory (Terraform starts a provider in its workspace).
var ProcessCreator = sync.OnceValue(func() string {
	host, _ := os.Hostname()
	dir, _ := os.Getwd()
	return fmt.Sprintf("terraform-provider-gke pid %d on host %s, workspace %s", os.Getpid(), host, dir)
})

// newCreator is the identity of one create: the process's and a nonce, so
// that two creates of one process are two creators.
func newCreator() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return ProcessCreator() + ", create " + hex.EncodeToString(b)
}

// CreateRecordName is the Lease of the creates of an object kind and name.
func CreateRecordName(kind, name string) string {
	return "terraform-gke-create-" + kind + "-" + name
}

// CreateRecords are the cadences of the records of one engine's creates;
// a zero field takes its default. The engine builds them from its options
// and hands them to the packages that create.
type CreateRecords struct {
	// Renew is how often a creator renews its record
	// (DefaultCreateRecordRenew). It must stay well under
	// CreateRecordDuration, which other processes judge the record by.
	Renew time.Duration
	// Release bounds the delete of a record when its create ends, on a
	// context of its own: the create's may have ended
	// (DefaultCreateRecordRelease).
	Release time.Duration
}

func (c CreateRecords) renew() time.Duration {
	if c.Renew <= 0 {
		return DefaultCreateRecordRenew
	}
	return c.Renew
}

func (c CreateRecords) release() time.Duration {
	if c.Release <= 0 {
		return DefaultCreateRecordRelease
	}
	return c.Release
}

// createRecord is a create's Lease while it works.
type createRecord struct {
	leases      coordinationv1client.LeaseInterface
	name, owner string
	// every is how often it is renewed; releaseWithin bounds its delete.
	every, releaseWithin time.Duration
	stop, done           chan struct{}
}

// Record records, before a create of kind (the Lease's name part:
// "slice", "node-pool") makes object id, that this creator works on it,
// and renews the record every c.Renew until release is called. It fails
// with a CreatorAtWorkError when another creator's record is fresh, and
// takes over a stale one. A cluster that cannot hold the record (its API
// unreachable, Leases denied) leaves the create unrecorded, as before
// records existed: a warning says so.
//
// clients returns the cluster's API clients (the engine's lazy lookup).
func (c CreateRecords) Record(ctx context.Context, clients func(context.Context) (Cluster, error), kind, what, id string) (release func(), err error) {
	none := func() {}
	leases := recordLeases(ctx, clients, id)
	if leases == nil {
		return none, nil
	}
	r := &createRecord{leases: leases, name: CreateRecordName(kind, LastSegment(id)), owner: newCreator(), every: c.renew(), releaseWithin: c.release()}
	err = r.acquire(ctx, what, id)
	if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) {
		tflog.Warn(ctx, "The create is not recorded: the cluster refuses its Lease, so a concurrent create of the same name could adopt it",
			map[string]any{"object": id, "lease": CreateRecordNamespace + "/" + r.name, "error": err.Error()})
		return none, nil
	}
	if err != nil {
		return nil, err
	}
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	go r.renew(context.WithoutCancel(ctx))
	return r.release(context.WithoutCancel(ctx)), nil
}

// recordLeases is the Leases of the records, or nil (with a warning) when
// the cluster cannot be reached or its clients serve none.
func recordLeases(ctx context.Context, clients func(context.Context) (Cluster, error), id string) coordinationv1client.LeaseInterface {
	c, err := clients(ctx)
	if err != nil {
		tflog.Warn(ctx, "The create is not recorded: the cluster is unreachable", map[string]any{"object": id, "error": err.Error()})
		return nil
	}
	leases := c.Leases(CreateRecordNamespace)
	if leases == nil {
		tflog.Warn(ctx, "The create is not recorded: the cluster's clients serve no Leases", map[string]any{"object": id})
	}
	return leases
}

// acquire creates the record, or takes over a stale one (an update
// conditional on the version read, so that of two creates taking it over
// at once one wins).
func (r *createRecord) acquire(ctx context.Context, what, id string) error {
	for attempt := 0; ; attempt++ {
		want := r.lease(what, id, time.Now())
		_, err := r.leases.Create(ctx, want, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		have, err := r.leases.Get(ctx, r.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) && attempt < 3 {
			continue // released meanwhile
		}
		if err != nil {
			return err
		}
		if at, fresh := recordFresh(have, time.Now()); fresh || attempt >= 3 {
			return &CreatorAtWorkError{Kind: what, ID: id, Creator: holder(have), Record: CreateRecordNamespace + "/" + r.name,
				Renewed: at, Expires: at.Add(leaseDuration(have))}
		}
		tflog.Warn(ctx, "Taking over a stale create record: its creator stopped renewing it", map[string]any{
			"object": id, "lease": CreateRecordNamespace + "/" + r.name, "creator": holder(have)})
		want.ResourceVersion = have.ResourceVersion
		_, err = r.leases.Update(ctx, want, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) {
			return err
		}
	}
}

// lease is the record of this creator, renewed at now.
func (r *createRecord) lease(what, id string, now time.Time) *coordinationv1.Lease {
	at := metav1.NewMicroTime(now)
	seconds := int32(CreateRecordDuration / time.Second)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name: r.name, Namespace: CreateRecordNamespace,
			Labels:      map[string]string{recordLabelManagedBy: recordManagedBy},
			Annotations: map[string]string{recordAnnotationObject: what + " " + id},
		},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &r.owner, LeaseDurationSeconds: &seconds, AcquireTime: &at, RenewTime: &at},
	}
}

// recordFresh says when the record was last renewed, and whether it is
// still fresh at now.
func recordFresh(l *coordinationv1.Lease, now time.Time) (time.Time, bool) {
	if l.Spec.RenewTime == nil {
		return time.Time{}, false
	}
	at := l.Spec.RenewTime.Time
	return at, now.Before(at.Add(leaseDuration(l)))
}

func leaseDuration(l *coordinationv1.Lease) time.Duration {
	if l.Spec.LeaseDurationSeconds == nil {
		return CreateRecordDuration
	}
	return time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
}

func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
		return "an unnamed creator"
	}
	return *l.Spec.HolderIdentity
}

// renew renews the record every r.every until stop; it stops at once
// when another creator took the record over.
func (r *createRecord) renew(ctx context.Context) {
	defer close(r.done)
	ticker := time.NewTicker(r.every)
	defer ticker.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-ticker.C:
		}
		l, err := r.leases.Get(ctx, r.name, metav1.GetOptions{})
		if err == nil && holder(l) != r.owner {
			tflog.Warn(ctx, "The create's record was taken over", map[string]any{"lease": r.name, "creator": holder(l)})
			return
		}
		if err == nil {
			at := metav1.NewMicroTime(time.Now())
			l.Spec.RenewTime = &at
			_, err = r.leases.Update(ctx, l, metav1.UpdateOptions{})
		}
		if err != nil {
			tflog.Warn(ctx, "Renewing the create's record failed", map[string]any{"lease": r.name, "error": err.Error()})
		}
	}
}

// release stops the renewals and deletes the record, if it is still this
// creator's: the create has ended (done, failed or interrupted), and the
// object is now in its Terraform state, or left for the next create to
// adopt.
func (r *createRecord) release(ctx context.Context) func() {
	return func() {
		close(r.stop)
		<-r.done
		ctx, cancel := context.WithTimeout(ctx, r.releaseWithin)
		defer cancel()
		l, err := r.leases.Get(ctx, r.name, metav1.GetOptions{})
		if err != nil || holder(l) != r.owner {
			return
		}
		err = r.leases.Delete(ctx, r.name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &l.ResourceVersion}})
		if err != nil && !apierrors.IsNotFound(err) {
			tflog.Warn(ctx, "Deleting the create's record failed: it goes stale on its own", map[string]any{"lease": r.name, "error": err.Error()})
		}
	}
}

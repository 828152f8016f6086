package clusterread

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

func TestWaitSyncedFailsAtOnceOnAccessErrors(t *testing.T) {
	t.Parallel()
	slices := schema.GroupResource{Group: kernel.SliceGVR.Group, Resource: kernel.SliceGVR.Resource}
	for _, tc := range []struct {
		name, resource string
		err            error
		want           string
	}{
		{"unknown CA", "nodes", &url.Error{Op: "Get", URL: "https://k", Err: x509.UnknownAuthorityError{}}, "kubernetes.cluster_ca_certificate"},
		{"401", "nodes", apierrors.NewUnauthorized("Unauthorized"), "did not accept the credentials"},
		{"403", "nodes", fmt.Errorf("failed to list *v1.Node: %w", apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("no"))), "may not list and watch nodes"},
		{"404 of the Slice API", "slices.accelerator.gke.io", apierrors.NewNotFound(slices, ""), "does not serve slices.accelerator.gke.io"},
		{"refused", "nodes", fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED), "Nothing answers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &informerSync{what: "things", resource: tc.resource, synced: func() bool { return false }}
			s.record(context.Background(), nil, tc.err)
			started := time.Now()
			err := waitSynced(t.Context(), s)
			var access *ClusterAccessError
			if !errors.As(err, &access) || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.err) {
				t.Errorf("waitSynced = %v, want a ClusterAccessError wrapping %v that says %q", err, tc.err, tc.want)
			}
			if time.Since(started) > time.Second {
				t.Errorf("took %s: the error was not taken as one that waiting does not cure", time.Since(started))
			}
		})
	}
}

func TestWaitSynced(t *testing.T) {
	t.Parallel()
	t.Run("synced", func(t *testing.T) {
		t.Parallel()
		s := &informerSync{what: "nodes", synced: func() bool { return true }}
		if err := waitSynced(t.Context(), s); err != nil {
			t.Error(err)
		}
	})
	t.Run("a transient error is waited out until the list succeeds", func(t *testing.T) {
		t.Parallel()
		var done atomic.Bool
		s := &informerSync{what: "nodes", resource: "nodes", synced: done.Load}
		s.record(context.Background(), nil, apierrors.NewServiceUnavailable("busy"))
		time.AfterFunc(100*time.Millisecond, func() { done.Store(true) })
		if err := waitSynced(t.Context(), s); err != nil {
			t.Errorf("waitSynced = %v, want nil once the list succeeded", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		s := &informerSync{what: "Slices", synced: func() bool { return false }}
		if err := waitSynced(ctx, s); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "listing the cluster's Slices") {
			t.Errorf("waitSynced = %v", err)
		}
	})
}

// A list or watch request refused, or without a name that resolves, is
// recorded when it fails: client-go's streaming list retries a refused
// watch for ever and never tells the error handler. Errors that waiting
// may cure are left to the handler.
func TestInformerSyncRecordsRefusedRequests(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		err    error
		record bool
	}{
		{"refused", &url.Error{Op: "Get", URL: "https://k", Err: fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED)}, true},
		{"no answer", fmt.Errorf("list: %w", kernel.ErrNoAnswer), true},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), false},
		{"503", apierrors.NewServiceUnavailable("shutting down"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &informerSync{what: "nodes", resource: "nodes", synced: func() bool { return false }}
			if got := s.noAnswer(context.Background(), tc.err); got != tc.err {
				t.Fatalf("noAnswer returned %v, want the error it was given", got)
			}
			if _, got := s.lastError(); (got != nil) != tc.record {
				t.Fatalf("recorded %v, want recorded=%v", got, tc.record)
			}
			if !tc.record {
				return
			}
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			var access *ClusterAccessError
			if err := waitSynced(ctx, s); !errors.As(err, &access) || !errors.Is(err, tc.err) {
				t.Fatalf("waitSynced: %v, want a ClusterAccessError at once", err)
			}
		})
	}
}

// A first list that neither finishes nor fails ends the wait at the
// informer's limit with a ClusterAccessError naming the host and what to
// check, and a later wait for it does not begin the limit again.
func TestWaitSyncedBoundsTheFirstList(t *testing.T) {
	t.Parallel()
	s := &informerSync{what: "nodes", resource: "nodes", host: "https://10.0.0.2", limit: 50 * time.Millisecond,
		synced: func() bool { return false }}
	for i := range 2 {
		err := waitSynced(t.Context(), s)
		var access *ClusterAccessError
		if !errors.As(err, &access) {
			t.Fatalf("wait %d: %v, want a ClusterAccessError", i, err)
		}
		for _, want := range []string{"cannot read the cluster's nodes at https://10.0.0.2", "the first list did not finish in 50ms", "reachable from here"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("wait %d: %q does not say %q", i, err, want)
			}
		}
	}
	if first, again := s.deadline(), s.deadline(); !first.Equal(again) {
		t.Errorf("the deadline moved from %s to %s between waits", first, again)
	}
}

// A list with no answer ends the wait at once: the request timeout
// already waited.
func TestWaitSyncedNoAnswerIsPermanent(t *testing.T) {
	t.Parallel()
	s := &informerSync{what: "Slices", resource: "slices.accelerator.gke.io", host: "https://10.0.0.2",
		synced: func() bool { return false }}
	s.record(t.Context(), nil, fmt.Errorf("failed to list: %w", kernel.ErrNoAnswer))
	err := waitSynced(t.Context(), s)
	var access *ClusterAccessError
	if !errors.As(err, &access) || !errors.Is(err, kernel.ErrNoAnswer) || !strings.Contains(err.Error(), "at https://10.0.0.2") {
		t.Errorf("waitSynced = %v, want a ClusterAccessError for no answer naming the host", err)
	}
}

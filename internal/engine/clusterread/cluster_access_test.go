package clusterread

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// unhurried are bounds under which only an error that waiting does not
// cure ends a wait for a first list: the list may take an hour, and fail
// for an hour.
var unhurried = Options{FirstListTimeout: time.Hour, SyncGrace: time.Hour}

// looks counts a wait's looks at an informer that never lists. Past its
// allowed looks, it cancels the wait's context (set them with
// looksOnly): a wait that did not end by then ends with the context's
// error.
type looks struct {
	n, allowed int
	cancel     context.CancelFunc
}

func (l *looks) unsynced() bool {
	l.n++
	if l.n > l.allowed && l.cancel != nil {
		l.cancel()
	}
	return false
}

// looksOnly is the context of a wait that l ends after n looks.
func looksOnly(t *testing.T, l *looks, n int) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	l.cancel, l.allowed = cancel, n
	return ctx
}

// firstLookOnly is the context of a wait that l ends after its first look.
func firstLookOnly(t *testing.T, l *looks) context.Context { return looksOnly(t, l, 1) }

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
			var l looks
			ctx := firstLookOnly(t, &l)
			s := newInformerSync("things", tc.resource, "", unhurried, l.unsynced)
			s.record(context.Background(), nil, tc.err)
			err := waitSynced(ctx, s)
			var access *ClusterAccessError
			if !errors.As(err, &access) || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.err) {
				t.Errorf("waitSynced = %v, want a ClusterAccessError wrapping %v that says %q", err, tc.err, tc.want)
			}
			if l.n != 1 {
				t.Errorf("the wait looked at the informer %d times, want once: the error was not taken as one that waiting does not cure", l.n)
			}
		})
	}
}

func TestWaitSynced(t *testing.T) {
	t.Parallel()
	t.Run("synced", func(t *testing.T) {
		t.Parallel()
		s := newInformerSync("nodes", "nodes", "", unhurried, func() bool { return true })
		if err := waitSynced(t.Context(), s); err != nil {
			t.Error(err)
		}
	})
	t.Run("a transient error is waited out until the list succeeds", func(t *testing.T) {
		t.Parallel()
		looks := 0
		s := newInformerSync("nodes", "nodes", "", unhurried, func() bool {
			looks++
			return looks == 3 // listed while the wait waited
		})
		s.record(context.Background(), nil, apierrors.NewServiceUnavailable("busy"))
		if err := waitSynced(t.Context(), s); err != nil || looks != 3 {
			t.Errorf("waitSynced = %v after %d looks, want nil once the list succeeded, at the third", err, looks)
		}
	})
	t.Run("a transient error that outlasts the grace", func(t *testing.T) {
		t.Parallel()
		// The grace is shorter than the wait's pause between looks
		// (syncPoll): the wait ends at its second look at the latest,
		// with the cause.
		var l looks
		ctx := looksOnly(t, &l, 2)
		s := newInformerSync("nodes", "nodes", "https://10.0.0.2", Options{FirstListTimeout: time.Hour, SyncGrace: time.Millisecond}, l.unsynced)
		busy := apierrors.NewServiceUnavailable("busy")
		s.record(context.Background(), nil, busy)
		err := waitSynced(ctx, s)
		var access *ClusterAccessError
		if !errors.As(err, &access) || !errors.Is(err, busy) || !strings.Contains(err.Error(), "It kept failing for 1ms") {
			t.Errorf("waitSynced = %v after %d looks, want a ClusterAccessError wrapping the 503, saying it kept failing for the grace", err, l.n)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		s := newInformerSync("Slices", "slices.accelerator.gke.io", "", unhurried, func() bool { return false })
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
			var l looks
			ctx := firstLookOnly(t, &l)
			s := newInformerSync("nodes", "nodes", "", unhurried, l.unsynced)
			if got := s.noAnswer(context.Background(), tc.err); got != tc.err {
				t.Fatalf("noAnswer returned %v, want the error it was given", got)
			}
			if _, got := s.lastError(); (got != nil) != tc.record {
				t.Fatalf("recorded %v, want recorded=%v", got, tc.record)
			}
			if !tc.record {
				return
			}
			var access *ClusterAccessError
			if err := waitSynced(ctx, s); !errors.As(err, &access) || !errors.Is(err, tc.err) || l.n != 1 {
				t.Fatalf("waitSynced: %v after %d looks, want a ClusterAccessError at the first", err, l.n)
			}
		})
	}
}

// A first list that neither finishes nor fails ends the wait at the
// informer's limit (its FirstListTimeout) with a ClusterAccessError
// naming the host and what to check, and a later wait for it does not
// begin the limit again: it ends at its first look.
func TestWaitSyncedBoundsTheFirstList(t *testing.T) {
	t.Parallel()
	var l looks
	s := newInformerSync("nodes", "nodes", "https://10.0.0.2", Options{FirstListTimeout: 50 * time.Millisecond, SyncGrace: time.Hour}, l.unsynced)
	for i := range 2 {
		ctx := t.Context()
		if i == 1 {
			l.n = 0
			ctx = firstLookOnly(t, &l)
		}
		err := waitSynced(ctx, s)
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
	if l.n != 1 {
		t.Errorf("the later wait looked %d times, want once: it began the limit again", l.n)
	}
	if first, again := s.deadline(), s.deadline(); !first.Equal(again) {
		t.Errorf("the deadline moved from %s to %s between waits", first, again)
	}
}

// A list with no answer ends the wait at once: the request timeout
// already waited.
func TestWaitSyncedNoAnswerIsPermanent(t *testing.T) {
	t.Parallel()
	var l looks
	ctx := firstLookOnly(t, &l)
	s := newInformerSync("Slices", "slices.accelerator.gke.io", "https://10.0.0.2", unhurried, l.unsynced)
	s.record(t.Context(), nil, fmt.Errorf("failed to list: %w", kernel.ErrNoAnswer))
	err := waitSynced(ctx, s)
	var access *ClusterAccessError
	if !errors.As(err, &access) || !errors.Is(err, kernel.ErrNoAnswer) || !strings.Contains(err.Error(), "at https://10.0.0.2") || l.n != 1 {
		t.Errorf("waitSynced = %v after %d looks, want a ClusterAccessError for no answer naming the host, at the first", err, l.n)
	}
}

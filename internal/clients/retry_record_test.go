package clients

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// conflictServer answers a create 409 (already exists), after a 503 to
// its first attempt when retried is set.
func conflictServer(t *testing.T, retried bool) string {
	t.Helper()
	srv, _ := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		if retried && attempt == 1 {
			googleError(w, http.StatusServiceUnavailable, "backendError", "hiccup")
			return
		}
		googleError(w, http.StatusConflict, "alreadyExists", "already exists")
	})
	return srv.URL
}

// The transport records which attempt the answer it returns is to, on
// the context of a request that carries a retryRecord.
func TestRetryRecord(t *testing.T) {
	t.Parallel()
	for _, retried := range []bool{true, false} {
		ctx, rec := withRetryRecord(t.Context())
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, conflictServer(t, retried), strings.NewReader(`{"name":"p"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := fastRetry(newFakeClock()).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusConflict || rec.retried() != retried {
			t.Errorf("a POST answered %d, retried %v: recorded as attempt %d, want retried %v", resp.StatusCode, retried, rec.answeredAttempt(), retried)
		}
	}
	// A request without a record is retried all the same.
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, conflictServer(t, true), strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := fastRetry(newFakeClock()).RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusConflict {
		t.Fatalf("RoundTrip = %v, %v; want the 409 to the retry", resp, err)
	}
	_ = resp.Body.Close()
}

// The adapters of the creates answer a 409 to a retried create as an
// kernel.RetriedCreateError, and a 409 to a first attempt as it is.
func TestCreatesReportARetriedConflict(t *testing.T) {
	t.Parallel()
	creates := map[string]func(ctx context.Context, set *Set) error{
		"nodePools.create": func(ctx context.Context, set *Set) error {
			_, err := set.GKE().CreateNodePool(ctx, "projects/p/locations/l/clusters/c", &container.NodePool{Name: "pool"})
			return err
		},
		"resourcePolicies.insert": func(ctx context.Context, set *Set) error {
			_, err := set.Compute().InsertResourcePolicy(ctx, "p", "r", &computepb.ResourcePolicy{Name: proto.String("policy")})
			return err
		},
	}
	for name, create := range creates {
		for _, retried := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s retried %v", name, retried), func(t *testing.T) {
				t.Parallel()
				endpoint := conflictServer(t, retried) + "/"
				set, err := New(t.Context(), Config{AccessToken: testToken, ComputeEndpoint: endpoint, ContainerEndpoint: endpoint},
					Options{RetryInitial: time.Millisecond, RetryMax: time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				err = create(t.Context(), set)
				var ge *googleapi.Error
				if !errors.As(err, &ge) || ge.Code != http.StatusConflict {
					t.Fatalf("%v, want the 409", err)
				}
				var rc *kernel.RetriedCreateError
				if got := errors.As(err, &rc); got != retried || (got && rc.Attempts != 2) {
					t.Errorf("answered 409: reported as a RetriedCreateError: %v (%+v), want %v", got, rc, retried)
				}
			})
		}
	}
}

package sandbox

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecheck"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// testActivationTimeout is how long the test sandbox's slice check (the
// emulation, or the open-source controller: GKE_SLICE_CONTROLLER) lets a
// Slice stay without a Ready condition before it is STALE (3 minutes by
// default): TestSliceCheckStale holds one ACTIVATING past it.
const testActivationTimeout = 15 * time.Second

// testSandbox is started once for the package's tests. Tests that change
// faults restore them with t.Cleanup; tests that use sub-blocks free them.
var testSandbox *Sandbox

func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") == "" {
		// Without TF_ACC only the tests that need no sandbox run
		// (needSandbox skips the others); `make test` sets it.
		os.Exit(m.Run())
	}
	opts := Options{Delays: testDelays.schedule, SliceCheckTiming: slicecheck.Options{ActivationTimeout: testActivationTimeout}}
	outside := os.Getenv(envOutsideCheck)
	if outside != "" {
		opts.SliceCheck = SliceCheckExternal
	}
	testSandbox = testsupport.StartSandbox(func(ctx context.Context) (*Sandbox, error) {
		return Start(ctx, opts)
	})
	stopOutside := func() {}
	if outside != "" {
		ctx, cancel := context.WithTimeout(context.Background(), testsupport.SandboxStartTimeout)
		stop, err := startOutsideCheck(ctx, testSandbox, outside)
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			testsupport.StopSandbox(testSandbox.Stop)
			os.Exit(1)
		}
		stopOutside = stop
	}
	code := m.Run()
	stopOutside()
	testsupport.StopSandbox(testSandbox.Stop)
	os.Exit(code)
}

// testDelays runs the test sandbox's delays (Options.Delays): on a timer,
// as the sandbox does by default, unless a test holds them (holdDelays).
var testDelays = &delayBoard{}

// delayBoard is what the test sandbox's delays go through.
type delayBoard struct {
	mu    sync.Mutex
	holds []*heldDelays
}

// schedule holds d if a test holds its kind and subject, else runs then
// after d.For.
func (b *delayBoard) schedule(d Delay, then func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, h := range b.holds {
		if h.kind == d.Kind && (h.of == "" || h.of == d.Of) {
			select {
			case h.came <- heldDelay{Delay: d, then: then}:
				return
			default: // more than the test can have asked for: not held
			}
		}
	}
	time.AfterFunc(d.For, then)
}

// heldDelays are the delays of one kind (and one subject) that a test
// holds until it ends them.
type heldDelays struct {
	kind, of string
	came     chan heldDelay
}

// heldDelay is one held delay, and what waits for its end.
type heldDelay struct {
	Delay
	then func()
}

// end ends the delay: what waited for it runs in the test's goroutine, and
// has run when end returns (the work of a held operation, the making of a
// pool's late Nodes, the queueing of a slice that was ACTIVATING).
func (d heldDelay) end() { d.then() }

// holdDelays holds the test sandbox's delays of the kind for of (every one
// of the kind when of is ""), until the test ends each (next, end). When
// the test ends, the hold is lifted and the delays it holds still are
// ended, so that nothing of the test waits on for ever.
func holdDelays(t *testing.T, kind, of string) *heldDelays {
	t.Helper()
	h := &heldDelays{kind: kind, of: of, came: make(chan heldDelay, 64)}
	testDelays.mu.Lock()
	testDelays.holds = append(testDelays.holds, h)
	testDelays.mu.Unlock()
	t.Cleanup(func() {
		testDelays.mu.Lock()
		testDelays.holds = slices.DeleteFunc(testDelays.holds, func(x *heldDelays) bool { return x == h })
		testDelays.mu.Unlock()
		for {
			select {
			case d := <-h.came:
				d.end()
			default:
				return
			}
		}
	})
	return h
}

// next waits for the next delay the hold takes, and returns it.
func (h *heldDelays) next(t *testing.T) heldDelay {
	t.Helper()
	what := fmt.Sprintf("a %s delay", h.kind)
	if h.of != "" {
		what += " of " + h.of
	}
	return testsupport.Await(t, h.came, what)
}

// none fails the test if the hold has taken a delay that next did not
// return.
func (h *heldDelays) none(t *testing.T) {
	t.Helper()
	select {
	case d := <-h.came:
		t.Errorf("one %s delay more than expected: %+v", h.kind, d.Delay)
		d.end()
	default:
	}
}

// needSandbox skips a test that needs the running sandbox unless TF_ACC is
// set, as terraform-plugin-testing does for acceptance tests.
func needSandbox(t *testing.T) {
	t.Helper()
	if testSandbox == nil {
		t.Skip("needs the local sandbox (a real kube-apiserver and etcd): set TF_ACC=1, as `make test` does")
	}
}

// withFaults sets faults for one test and restores the previous ones.
func withFaults(t *testing.T, f Faults) {
	t.Helper()
	prev := testSandbox.Faults()
	testSandbox.SetFaults(f)
	t.Cleanup(func() { testSandbox.SetFaults(prev) })
}

// testKube is a Kubernetes client of the test sandbox (through its proxy).
func testKube(t *testing.T) kubernetes.Interface {
	t.Helper()
	kube, err := kubernetes.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return kube
}

// listWatch lists and watches with the options opts sets (a field or label
// selector).
func listWatch(list func(context.Context, metav1.ListOptions) (runtime.Object, error), watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error), opts func(*metav1.ListOptions)) cache.ListerWatcher {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			opts(&o)
			return list(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			opts(&o)
			return watchFn(ctx, o)
		},
	}
}

// awaitObjects follows what lw lists with an informer (a list, then a
// watch: no polling) until done holds for the objects, and returns them.
// After timeout it fails the test with describe's account of the objects.
//
//nolint:unparam // every caller waits 20s today; how long stays the caller's choice
func awaitObjects(t *testing.T, lw cache.ListerWatcher, obj runtime.Object, timeout time.Duration, done func([]any) bool, describe func([]any) string) []any {
	t.Helper()
	changed := make(chan struct{}, 1)
	signal := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	store, controller := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw, ObjectType: obj,
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc: func(any) { signal() }, UpdateFunc: func(any, any) { signal() }, DeleteFunc: func(any) { signal() },
		},
	})
	stop := make(chan struct{})
	defer close(stop)
	go controller.Run(stop)
	// timeout is the wait's patience: past it the wait logs where it is
	// and waits on. How long a state takes on a slow or busy machine is no
	// measure of whether the sandbox is right: it fails when the test
	// binary's -timeout is near.
	end, stopEnd := testsupport.NearTimeout(t)
	defer stopEnd()
	patience := time.NewTimer(timeout)
	defer patience.Stop()
	// An empty first list raises no event: wait for the sync itself.
	synced := make(chan struct{})
	go func() {
		if cache.WaitForCacheSync(stop, controller.HasSynced) {
			close(synced)
		}
	}()
	for waiting := true; waiting; {
		select {
		case <-synced:
			waiting = false
		case <-patience.C:
			t.Logf("still waiting after %s for the first list", timeout)
		case <-end:
			t.Fatalf("the first list did not finish before the test binary's -timeout was near")
		}
	}
	for {
		if objs := store.List(); done(objs) {
			return objs
		}
		select {
		case <-changed:
		case <-patience.C:
			t.Logf("still waiting after %s: %s", timeout, describe(store.List()))
		case <-end:
			t.Fatalf("gave up when the test binary's -timeout was near: %s", describe(store.List()))
		}
	}
}

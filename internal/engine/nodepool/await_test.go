package nodepool

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestCreateNodePoolWaitsForThePartition(t *testing.T) {
	t.Parallel()
	labelledNotReady := func(state string) []*corev1.Node {
		return []*corev1.Node{
			enginetest.Node("slice-a-0", testPoolName, enginetest.Partition("part-1", state)),
			enginetest.Node("slice-a-1", testPoolName, enginetest.Partition("part-1", state)),
		}
	}
	oneUnlabelled := []*corev1.Node{
		enginetest.Node("slice-a-0", testPoolName, enginetest.Ready, enginetest.Partition("part-1", wellknown.PartitionHealthy)),
		enginetest.Node("slice-a-1", testPoolName, enginetest.Ready),
	}
	for _, tc := range []struct {
		name    string
		nodes   []*corev1.Node
		waitFor string
		// progress is what the wait must report, and its timeout error
		// name, before it is made to time out; "" when the wait must
		// succeed.
		progress string
	}{
		{"labelled, incomplete", readyPoolNodes(wellknown.PartitionIncomplete), WaitLabelled, ""},
		{"labelled, unhealthy", readyPoolNodes(wellknown.PartitionUnhealthy), WaitLabelled, ""},
		{"healthy for healthy", readyPoolNodes(wellknown.PartitionHealthy), WaitHealthy, ""},
		{"healthy for usable", readyPoolNodes(wellknown.PartitionHealthy), WaitUsable, ""},
		{"degraded for usable", readyPoolNodes(wellknown.PartitionDegraded), WaitUsable, ""},
		{"degraded for healthy", readyPoolNodes(wellknown.PartitionDegraded), WaitHealthy, `2 nodes, 2 Ready, partition state "DEGRADED"`},
		{"unhealthy for usable", readyPoolNodes(wellknown.PartitionUnhealthy), WaitUsable, `2 nodes, 2 Ready, partition state "UNHEALTHY"`},
		{"unset for usable", readyPoolNodes(wellknown.PartitionUnset), WaitUsable, `2 nodes, 2 Ready, partition state "UNSET"`},
		{"no nodes", nil, WaitLabelled, `0 nodes, 0 Ready, partition state ""`},
		{"not Ready", labelledNotReady(wellknown.PartitionHealthy), WaitHealthy, `2 nodes, 0 Ready, partition state "HEALTHY"`},
		{"one node unlabelled", oneUnlabelled, WaitLabelled, `2 nodes, 2 Ready, partition state "HEALTHY"`},
		{"other pools' nodes do not count", []*corev1.Node{
			enginetest.Node("other-0", "other-pool", enginetest.Ready, enginetest.Partition("part-9", wellknown.PartitionHealthy)),
		}, WaitLabelled, `0 nodes, 0 Ready, partition state ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kube, _ := enginetest.NewKube(tc.nodes...)
			s := poolSpec()
			s.WaitFor = tc.waitFor
			// No clock bounds the wait: a wait that must fail is made to
			// time out once it has reported the progress its error must
			// name, however long a loaded machine took to get there.
			ctx, expire := testsupport.Expirable(t.Context())
			ctx = tflogtest.RootLogger(ctx, onProgress(tc.progress, expire))
			pool, err := newTestPools(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), kube).Create(ctx, s, func(string) {})
			if tc.progress == "" {
				if err != nil {
					t.Fatalf("CreateNodePool waiting for %s: %v", tc.waitFor, err)
				}
				if pool.PartitionID != "part-1" {
					t.Errorf("partition ID = %q, want part-1", pool.PartitionID)
				}
				return
			}
			testsupport.WantContains(t, err, "node pool "+testPoolID+" was created, but after", "its nodes were not ready ("+tc.progress+"; waiting for "+tc.waitFor+")")
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
			}
		})
	}
}

// onProgress is a log sink that calls expire once the partition's wait
// reports progress (never when progress is "").
func onProgress(progress string, expire func()) io.Writer {
	return writerFunc(func(line []byte) {
		var entry struct {
			Message  string `json:"@message"`
			Progress string `json:"progress"`
		}
		if progress != "" && json.Unmarshal(line, &entry) == nil && entry.Message == "Waiting for node pool partition" && entry.Progress == progress {
			expire()
		}
	})
}

// writerFunc is an io.Writer that hands each write (one log entry) to f.
type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// TestCreateNodePoolFollowsTheNodes changes a one-node pool's node while
// the engine watches: it must notice every change without polling, and
// not stop before the state it waits for.
func TestCreateNodePoolFollowsTheNodes(t *testing.T) {
	t.Parallel()
	kube, watching := enginetest.NewKube(enginetest.Node("slice-a-0", testPoolName, enginetest.OnSubBlock("phys-a")))
	ctx := t.Context()
	steps := make(chan string, 8)
	go func() {
		defer close(steps)
		select {
		case <-watching:
		case <-ctx.Done():
			return
		}
		update := func(step string, opt enginetest.NodeOpt) {
			n, err := kube.CoreV1().Nodes().Get(ctx, "slice-a-0", metav1.GetOptions{})
			if err == nil {
				opt(n)
				_, err = kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			}
			if err != nil {
				step += " failed: " + err.Error()
			}
			steps <- step
		}
		update("ready", enginetest.Ready)
		update("incomplete", enginetest.Partition("part-7", wellknown.PartitionIncomplete))
		update("unhealthy", enginetest.Partition("part-7", wellknown.PartitionUnhealthy))
		update("degraded", enginetest.Partition("part-7", wellknown.PartitionDegraded))
		update("healthy", enginetest.Partition("part-7", wellknown.PartitionHealthy))
	}()
	s := poolSpec()
	s.NodeCount = 1
	s.WaitFor = WaitHealthy
	pool, err := newTestPools(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), kube).Create(ctx, s, func(string) {})
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	var got []string
	for step := range steps {
		got = append(got, step)
	}
	if want := []string{"ready", "incomplete", "unhealthy", "degraded", "healthy"}; !reflect.DeepEqual(got, want) {
		t.Errorf("node changes = %v, want %v", got, want)
	}
	if pool.PartitionID != "part-7" || pool.PartitionState != wellknown.PartitionHealthy || pool.ReadyNodes != 1 {
		t.Errorf("pool partition = %q %q with %d Ready nodes, want part-7 HEALTHY with 1 (did the wait end early?)", pool.PartitionID, pool.PartitionState, pool.ReadyNodes)
	}
}

func TestCreateNodePoolWithoutKubernetes(t *testing.T) {
	t.Parallel()
	e := newTestPools(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), nil,
		inventoryFails(errors.New("no route to the cluster endpoint")))
	created := ""
	_, err := e.Create(t.Context(), poolSpec(), func(id string) { created = id })
	testsupport.WantContains(t, err, "node pool "+testPoolID+" was created, but no route to the cluster endpoint")
	if created != testPoolID {
		t.Errorf("created callback got %q, want %q", created, testPoolID)
	}
}

// TestCreateNodePoolReadsFreshNodes: right after create the inventory may
// lag, so the pool is read back from the API server.
func TestCreateNodePoolReadsFreshNodes(t *testing.T) {
	t.Parallel()
	kube, _ := enginetest.NewKube(readyPoolNodes(wellknown.PartitionHealthy)...)
	unread, _ := enginetest.NewKube()
	unread.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		t.Error("CreateNodePool read the nodes from the inventory")
		return true, nil, errors.New("inventory used")
	})
	e := newTestPools(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), kube, withInventory(newInventory(t, unread)))
	pool, err := e.Create(t.Context(), poolSpec(), func(string) {})
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	if len(pool.NodeNames) != 2 {
		t.Errorf("node names = %v, want the pool's two nodes", pool.NodeNames)
	}
}

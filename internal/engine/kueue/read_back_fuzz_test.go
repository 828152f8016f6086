package kueue

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// readBack is what an import reads of the objects: the queue's (or its
// error), the overflow, the sub-slicing and the namespaces.
type readBack struct {
	k          KueueSlicing
	err        string
	overflow   *KueueOverflow
	subSlicing bool
	namespaces []string
}

func readBackOf(cq, prc, topo *unstructured.Unstructured, queues []unstructured.Unstructured) readBack {
	var r readBack
	k, err := queueReadBack(seedSlicing.Name, cq)
	r.k = k
	if err != nil {
		r.err = err.Error()
	}
	r.overflow = readOverflow(seedSlicing.Name, cq, prc)
	if topo != nil {
		r.subSlicing = subSlicingOf(topo)
	}
	r.namespaces = namespacesOf(seedSlicing.Name, queues)
	return r
}

// decodedList is data decoded as the dynamic client decodes a list, or
// nil.
func decodedList(data []byte) []unstructured.Unstructured {
	l := &unstructured.UnstructuredList{}
	if err := l.UnmarshalJSON(data); err != nil {
		return nil
	}
	return l.Items
}

// Any JSON as the ClusterQueue, ProvisioningRequestConfig, Topology and
// LocalQueues an import reads back: reading them never panics; the queue
// is refused unless the provider made it and it records its pools, whose
// list is the annotation's; the overflow is read exactly when the queue
// records one, with a run duration the provider can write and retries
// the config's; the namespaces are sorted, of LocalQueues of the name;
// and all read the same of the objects encoded and decoded again.
func FuzzReadBack(f *testing.F) {
	prcStatus := map[string]any{"conditions": []any{condition("Active", "True", "Ready", "")}}
	f.Add(seedObject(f, "ClusterQueue", nil), seedObject(f, "ProvisioningRequestConfig", prcStatus), seedObject(f, "Topology", nil), seedList(f, "LocalQueue"))
	f.Add([]byte(`{"kind":"ClusterQueue","metadata":{"name":"train","labels":{"app.kubernetes.io/managed-by":"terraform-provider-gke"},`+
		`"annotations":{"gke.dynslice.io/node-pools":",np-1,,","gke.dynslice.io/overflow-node-pools":"f"}},"spec":{"resourceGroups":[{"flavors":`+
		`[{"name":"train","resources":[{"name":"google.com/tpu","nominalQuota":"1e100"}]},{"name":"train-flex","resources":[{"name":"google.com/tpu",`+
		`"nominalQuota":-4}]}]}]}}`),
		[]byte(`{"kind":"ProvisioningRequestConfig","spec":{"parameters":{"maxRunDurationSeconds":"9223372036854775807"},"retryStrategy":{"backoffLimitCount":-1}}}`),
		[]byte(`{"kind":"Topology","spec":{"levels":"x"}}`), []byte(`{"items":[{"kind":"LocalQueue","metadata":{"name":"train"},"spec":{"clusterQueue":5}}]}`))
	f.Add([]byte(`{"kind":"ClusterQueue","metadata":{"labels":{"app.kubernetes.io/managed-by":5}}}`), []byte(`{}`), []byte(`{}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, cqDoc, prcDoc, topoDoc, queuesDoc []byte) {
		cq := decoded(cqDoc)
		if cq == nil {
			return
		}
		prc, topo, queues := decoded(prcDoc), decoded(topoDoc), decodedList(queuesDoc)
		r := readBackOf(cq, prc, topo, queues)
		checkReadBack(t, cq, prc, queues, r)
		var prc2, topo2 *unstructured.Unstructured
		if prc != nil {
			prc2 = again(t, prc)
		}
		if topo != nil {
			topo2 = again(t, topo)
		}
		queues2 := make([]unstructured.Unstructured, len(queues))
		for i := range queues {
			queues2[i] = *again(t, &queues[i])
		}
		if r2 := readBackOf(again(t, cq), prc2, topo2, queues2); !reflect.DeepEqual(r, r2) {
			t.Fatalf("read back %+v, and %+v once encoded and decoded again", r, r2)
		}
	})
}

func checkReadBack(t *testing.T, cq, prc *unstructured.Unstructured, queues []unstructured.Unstructured, r readBack) {
	t.Helper()
	pools := cq.GetAnnotations()[AnnotationKueueNodePools]
	made := cq.GetLabels()[labelManagedBy] == managedBy
	if (r.err == "") != (made && pools != "") {
		t.Fatalf("queue made by the provider %t, pools %q: read back with error %q", made, pools, r.err)
	}
	if r.err == "" && (!slices.Equal(r.k.NodePools, strings.Split(pools, ",")) || r.k.Name != seedSlicing.Name) {
		t.Fatalf("pools %q read back as %+v", pools, r.k)
	}
	overflowPools := cq.GetAnnotations()[AnnotationKueueOverflowPools]
	if (r.overflow != nil) != (overflowPools != "") {
		t.Fatalf("overflow pools %q read back as %+v", overflowPools, r.overflow)
	}
	if o := r.overflow; o != nil {
		if o.MaxRunDuration <= 0 || o.MaxRunDuration%time.Second != 0 || !slices.Equal(o.NodePools, strings.Split(overflowPools, ",")) {
			t.Fatalf("overflow read back as %+v", o)
		}
		if n, ok, _ := nestedInt64(prc, "spec", "retryStrategy", "backoffLimitCount"); ok && o.Retries != n {
			t.Fatalf("retries %d read back as %d", n, o.Retries)
		}
	}
	if !slices.IsSorted(r.namespaces) || len(r.namespaces) > len(queues) {
		t.Fatalf("namespaces %q of %d LocalQueues", r.namespaces, len(queues))
	}
}

func nestedInt64(u *unstructured.Unstructured, fields ...string) (int64, bool, error) {
	if u == nil {
		return 0, false, nil
	}
	return unstructured.NestedInt64(u.Object, fields...)
}

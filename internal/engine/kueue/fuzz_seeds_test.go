package kueue

import (
	"encoding/json"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The seeds of the fuzz tests of the decoding of Kueue objects: the
// objects ApplyKueueSlicing makes, as the API server answers them (with
// the status Kueue writes), and near misses.

// seedSlicing is a gke_kueue_slicing with every object: sub-slicing, two
// namespaces, an overflow.
var seedSlicing = KueueSlicing{Name: "train", SubSlicing: true, Namespaces: []string{"team-a", "team-b"}, TPUQuota: 256,
	NodePools: []string{"np-1", "np-2"}, Overflow: &KueueOverflow{NodePools: []string{"flex-1"}, Topology: "4x4x4", TPUQuota: 64,
		MaxRunDuration: 24 * time.Hour, Retries: 2}}

// seedObject is the JSON of the object of kind (and, for several, the
// first) that seedSlicing applies, with status merged in when not nil.
func seedObject(t testing.TB, kind string, status map[string]any) []byte {
	t.Helper()
	for _, o := range seedSlicing.objects() {
		if o.obj.GetKind() != kind {
			continue
		}
		u := o.obj.DeepCopy()
		if status != nil {
			u.Object["status"] = status
		}
		b, err := u.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Fatalf("seedSlicing applies no %s", kind)
	return nil
}

// seedList is the JSON of a list of the objects of kind that seedSlicing
// applies.
func seedList(t testing.TB, kind string) []byte {
	t.Helper()
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": kind + "List"}}
	for _, o := range seedSlicing.objects() {
		if o.obj.GetKind() == kind {
			list.Items = append(list.Items, *o.obj.DeepCopy())
		}
	}
	b, err := list.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// condition is a status condition as Kueue writes it.
func condition(typ, status, reason, message string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message, "lastTransitionTime": "2026-01-01T00:00:00Z"}
}

// decoded is data decoded as the dynamic client decodes an object, or nil.
func decoded(data []byte) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil
	}
	return u
}

// again is u encoded and decoded again.
func again(t *testing.T, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	b, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatalf("a decoded object does not encode: %v", err)
	}
	v := decoded(b)
	if v == nil {
		t.Fatalf("%s, an encoded object, does not decode", b)
	}
	return v
}

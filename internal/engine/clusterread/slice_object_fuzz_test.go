package clusterread

import (
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// sliceSeeds are Slices as the cluster's API server answers them (GKE's
// Slice custom resource, accelerator.gke.io/v1beta1), and near misses.
var sliceSeeds = []string{
	`{"apiVersion":"accelerator.gke.io/v1beta1","kind":"Slice","metadata":{"name":"s1","uid":"0b1f","generation":2,"resourceVersion":"42",` +
		`"annotations":{"slice.gke.io/retry-on-failure":"true"},"finalizers":["accelerator.gke.io/slice"]},` +
		`"spec":{"type":"tpu7x","topology":"4x4x8","partitionIds":["p-1","p-2"]},` +
		`"status":{"conditions":[{"type":"Ready","status":"True","reason":"ACTIVE","message":"the slice is formed","observedGeneration":2,` +
		`"lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
	`{"apiVersion":"accelerator.gke.io/v1beta1","kind":"Slice","metadata":{"name":"s2","generation":3,"deletionTimestamp":"2026-01-01T00:00:00Z",` +
		`"annotations":{"accelerator.gke.io/owner-workload-namespace":"team","accelerator.gke.io/owner-workload-name":"job-1",` +
		`"accelerator.gke.io/owner-podset-name":"main"}},"spec":{"type":"tpu7x","topology":"2x2x1","partitionIds":["p-1-2x2x1-0"]},` +
		`"status":{"conditions":[{"type":"Ready","status":"False","reason":"ACTIVATING","observedGeneration":2}]}}`,
	`{"apiVersion":"accelerator.gke.io/v1beta1","kind":"Slice","metadata":{"name":"s3"},"spec":{"partitionIds":["p",7]},` +
		`"status":{"conditions":[{"type":"Ready","status":"False","reason":"FAILED"},"garbage",{"type":"Other","status":1}]}}`,
	`{"apiVersion":"accelerator.gke.io/v1beta1","kind":"Slice","metadata":{"name":5,"annotations":{"a":1}},"spec":"x","status":[]}`,
	`{"apiVersion":"accelerator.gke.io/v1beta1","kind":"Slice","metadata":"m","status":{"conditions":{"type":"Ready"}}}`,
	`{"apiVersion":"accelerator.gke.io/v1beta1","kind":"Slice","metadata":{"generation":1.5},"status":{"conditions":[{"type":"Ready","observedGeneration":1e40}]}}`,
	`{"kind":"Slice"}`, `{}`, `[]`, `null`,
}

// readSlice decodes data as the dynamic client does (an unstructured
// object), or says it does not decode.
func readSlice(data []byte) (*unstructured.Unstructured, bool) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, false
	}
	return u, true
}

// Any JSON as a Slice the cluster answers: SliceOf never panics; what it
// reads is the object's (its name, partitions, the Ready condition's
// reason and status); it reads the same of the object encoded and decoded
// again; and the inventory's holders of partitions are the Slice's.
func FuzzSliceOf(f *testing.F) {
	for _, seed := range sliceSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		u, ok := readSlice(data)
		if !ok {
			return
		}
		s := SliceOf(u)
		if s.Name != u.GetName() || s.UID != string(u.GetUID()) || s.Deleting != (u.GetDeletionTimestamp() != nil) {
			t.Fatalf("%s: read name %q uid %q deleting %t", data, s.Name, s.UID, s.Deleting)
		}
		ids, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "partitionIds")
		if !slices.Equal(s.PartitionIDs, ids) {
			t.Fatalf("%s: read partitions %q, the object lists %q", data, s.PartitionIDs, ids)
		}
		if s.State != "" || s.Ready {
			i := slices.IndexFunc(s.Conditions, func(c Condition) bool { return c.Type == conditionReady })
			if i < 0 || (s.State != "" && s.Conditions[i].Reason != s.State) || s.Ready != (s.Conditions[i].Status == "True") {
				t.Fatalf("%s: state %q ready %t, not the Ready condition's among %+v", data, s.State, s.Ready, s.Conditions)
			}
		}
		encoded, err := u.MarshalJSON()
		if err != nil {
			t.Fatalf("%s: a decoded Slice does not encode: %v", data, err)
		}
		again, ok := readSlice(encoded)
		if !ok {
			t.Fatalf("%s: encoded as %s, which does not decode", data, encoded)
		}
		if s2 := SliceOf(again); !reflect.DeepEqual(s, s2) {
			t.Fatalf("%s: read %+v, and %+v once encoded and decoded again", data, s, s2)
		}
		holders := Fixed(nil, []*unstructured.Unstructured{u}).holders(false)
		for id, holder := range holders {
			if holder != u.GetName() || !slices.Contains(ids, id) {
				t.Fatalf("%s: partition %q held by %q", data, id, holder)
			}
		}
		if !s.Deleting && len(holders) != len(uniq(ids)) {
			t.Fatalf("%s: holders %v of partitions %q", data, holders, ids)
		}
	})
}

func uniq(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

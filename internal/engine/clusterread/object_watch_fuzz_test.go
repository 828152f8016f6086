package clusterread

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// Any JSON as the object of an event of the watch of one object (a Kueue
// object being deleted), of any type: following the watch never panics;
// an ERROR event ends it (to list again when its status says the version
// expired), a BOOKMARK moves its version, and any other hands the object
// to the handler.
func FuzzDrainObjectWatch(f *testing.F) {
	for i, seed := range append(sliceSeeds,
		`{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"train","resourceVersion":"9",`+
			`"deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["kueue.x-k8s.io/resource-in-use"]}}`) {
		f.Add([]byte(seed), uint8(i))
	}
	for i, status := range []string{
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (42)","reason":"Expired","code":410}`,
		`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Gone","code":"x","details":{"causes":[{"type":5}]}}`,
		`{"kind":"Status","apiVersion":"v1","code":1e30}`,
	} {
		f.Add([]byte(status), uint8(i))
	}
	f.Add([]byte(`{"kind":"Slice","apiVersion":"accelerator.gke.io/v1beta1","metadata":{"name":"s1","resourceVersion":"77"}}`), uint8(3))
	types := []watch.EventType{watch.Error, watch.Bookmark, watch.Added, watch.Modified, watch.Deleted}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		obj, _, err := unstructured.UnstructuredJSONScheme.Decode(data, nil, nil)
		if err != nil {
			return
		}
		u, isObject := obj.(*unstructured.Unstructured)
		typ := types[int(which)%len(types)]
		w := watch.NewFakeWithChanSize(1, false)
		w.Action(typ, obj)
		w.Stop()
		handled := 0
		seen, rv, done, err := drainObjectWatch(context.Background(), w, "1", func(_ *unstructured.Unstructured, gone bool) (bool, error) {
			handled++
			return gone, nil
		})
		if !seen || err != nil {
			t.Fatalf("%s (%s): seen %t, err %v", data, typ, seen, err)
		}
		switch {
		case typ == watch.Error:
			status := apierrors.FromObject(obj)
			expired := apierrors.IsResourceExpired(status) || apierrors.IsGone(status)
			if handled != 0 || done || (rv == "") != expired {
				t.Fatalf("%s: an ERROR event handled %d times, done %t, version %q", data, handled, done, rv)
			}
		case !isObject:
			if handled != 0 || rv != "1" {
				t.Fatalf("%s (%s, a %T): handled %d times, version %q", data, typ, obj, handled, rv)
			}
		case typ == watch.Bookmark:
			if handled != 0 || rv != u.GetResourceVersion() {
				t.Fatalf("%s: a BOOKMARK handled %d times, version %q", data, handled, rv)
			}
		default:
			if handled != 1 || rv != u.GetResourceVersion() || done != (typ == watch.Deleted) {
				t.Fatalf("%s (%s): handled %d times, version %q, done %t", data, typ, handled, rv, done)
			}
		}
	})
}

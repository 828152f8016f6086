package clusterread

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Any two resource versions, as Slices the cluster answers carry them: a
// Slice wait that saw the first passes over a change of the second only
// when it is older (both the API server's integers) or the same; older
// never holds both ways, nor of a version and itself; and the Slice the
// wait hands on is read by SliceOf.
func FuzzSliceWaitChange(f *testing.F) {
	for _, rvs := range [][2]string{{"42", "43"}, {"43", "42"}, {"42", "42"}, {"", "1"}, {"1", ""}, {"007", "7"}, {"x", "1"},
		{"99999999999999999999", "100000000000000000000"}, {"-1", "1"}, {"1.5", "2"}} {
		f.Add(rvs[0], rvs[1], false)
	}
	f.Add("5", "4", true)
	f.Fuzz(func(t *testing.T, seen, next string, deleted bool) {
		if older(seen, seen) || (older(seen, next) && older(next, seen)) {
			t.Fatalf("older(%q, %q) = %t, older(%q, %q) = %t, a version older than itself: %t",
				seen, next, older(seen, next), next, seen, older(next, seen), older(seen, seen))
		}
		slice := func(rv string) *unstructured.Unstructured {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "accelerator.gke.io/v1beta1", "kind": "Slice"}}
			u.SetName("s1")
			u.SetResourceVersion(rv)
			return u
		}
		var handed []string
		w := &sliceWait{name: "s1", handle: func(u *unstructured.Unstructured, _ bool) (bool, error) {
			handed = append(handed, SliceOf(u).Name+"@"+u.GetResourceVersion())
			return false, nil
		}}
		if _, err := w.deliver(slice(seen), false); err != nil {
			t.Fatal(err)
		}
		if _, err := w.change(t.Context(), sliceChange{obj: slice(next), deleted: deleted}); err != nil {
			t.Fatal(err)
		}
		passedOver := older(next, seen) || (!deleted && next != "" && next == seen)
		if want := 2 - map[bool]int{true: 1}[passedOver]; len(handed) != want {
			t.Fatalf("saw %q, then a change at %q (deleted %t): handed %q", seen, next, deleted, handed)
		}
	})
}
